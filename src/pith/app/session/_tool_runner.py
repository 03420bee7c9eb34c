"""Run one tool call outside a conversation (`pith tool`), exactly as a model's call runs:
argument repair, validation, the extensions' `tool_call` and `tool_result`, execution."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from pathlib import Path

from pith.agent import AbortController, ToolCallOutcome, run_tool_call
from pith.ai import ToolCall
from pith.app.session._extension_hooks import tool_hooks
from pith.app.session._extension_host import ToolHost
from pith.errors import InputError
from pith.extensions import ExtensionRunner, ExtensionUI, HeadlessUI
from pith.extensions.events import SessionShutdown, SessionStart
from pith.tools import builtin_tools

__all__ = ["ToolRunError", "run_tool"]


class ToolRunError(InputError):
    """The request itself is unusable (unknown tool, arguments not a JSON object)."""


async def run_tool(
    name: str,
    arguments: object,
    cwd: str,
    *,
    extensions: ExtensionRunner | None = None,
    ui: ExtensionUI | None = None,
    settings: dict[str, object] | None = None,
    layers: Sequence[tuple[Path, dict[str, object]]] = (),
) -> ToolCallOutcome:
    """Run `name` with `arguments` in `cwd`. Tools extensions registered are available, and
    their handlers see the call between `session_start` and `session_shutdown`."""
    runner = extensions or ExtensionRunner(cwd)
    tools = builtin_tools(cwd)
    tools.update({tool_name: tool for tool_name, (_, tool) in runner.tools.items()})
    if name not in tools:
        available = ", ".join(tools)
        raise ToolRunError(f"unknown tool {name!r}; available tools: {available}")
    if not isinstance(arguments, dict):
        raise ToolRunError('tool arguments must be a JSON object, e.g. \'{"path": "README.md"}\'')
    runner.bind(ToolHost(cwd, tools, ui or HeadlessUI(), settings or {}, layers))
    call = ToolCall(id=f"cli-{secrets.token_hex(4)}", name=name, arguments=arguments)
    before, after = tool_hooks(runner)
    await runner.emit(SessionStart("startup"))
    # Handlers of session_start may have replaced tools (a wrapper under the same name).
    tools.update({tool_name: tool for tool_name, (_, tool) in runner.tools.items()})
    try:
        return await run_tool_call(
            tools, call, AbortController().signal, before=before, after=after
        )
    finally:
        await runner.emit(SessionShutdown("quit"))
