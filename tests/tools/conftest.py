from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from pith.agent import AbortController, ToolResult, run_tool_call
from pith.ai import ToolCall
from pith.tools import builtin_tools

RunTool = Callable[..., ToolResult]


@pytest.fixture
def run_tool(tmp_path: object) -> RunTool:
    """Run a built-in tool in `tmp_path` the way a model's call runs (validation included)."""

    def run(name: str, cwd: str | None = None, **arguments: object) -> ToolResult:
        tools = builtin_tools(str(cwd or tmp_path))
        call = ToolCall(id="t1", name=name, arguments=dict(arguments))
        outcome = asyncio.run(run_tool_call(tools, call, AbortController().signal))
        return outcome.result

    return run
