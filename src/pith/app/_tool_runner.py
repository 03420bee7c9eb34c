"""Run one tool call outside a conversation (`pith tool`), exactly as a model's call runs."""

from __future__ import annotations

import secrets

from pith.agent import AbortController, ToolCallOutcome, run_tool_call
from pith.ai import ToolCall
from pith.errors import InputError
from pith.tools import builtin_tools

__all__ = ["ToolRunError", "run_tool"]


class ToolRunError(InputError):
    """The request itself is unusable (unknown tool, arguments not a JSON object)."""


async def run_tool(name: str, arguments: object, cwd: str) -> ToolCallOutcome:
    """Run `name` with `arguments` in `cwd` through argument repair, validation and execution."""
    tools = builtin_tools(cwd)
    if name not in tools:
        available = ", ".join(tools)
        raise ToolRunError(f"unknown tool {name!r}; available tools: {available}")
    if not isinstance(arguments, dict):
        raise ToolRunError('tool arguments must be a JSON object, e.g. \'{"path": "README.md"}\'')
    call = ToolCall(id=f"cli-{secrets.token_hex(4)}", name=name, arguments=arguments)
    controller = AbortController()
    return await run_tool_call(tools, call, controller.signal)
