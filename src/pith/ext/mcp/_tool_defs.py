"""An MCP server's tool as a pith tool: the definition the model gets, and a call through the
connection manager.

A tool whose server is still connecting waits for it (at most the server's timeout); a server
that is not connected gives the call an error result that says what to do, never an exception.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from pith.agent import AbortSignal, ToolResult, UpdateCallback, error_result
from pith.ai import TextContent
from pith.extensions import ExtensionContext, ToolDefinition

if TYPE_CHECKING:
    from pith.mcp import McpTool

__all__ = ["Caller", "mcp_tool_definition"]


class Caller(Protocol):
    """What an MCP tool needs from the extension: a way to run the call on its server."""

    async def call(
        self,
        tool: McpTool,
        arguments: dict[str, Any],
        signal: AbortSignal,
        on_progress: Callable[[str], None] | None,
    ) -> ToolResult: ...


def mcp_tool_definition(tool: McpTool, caller: Caller, *, active: bool) -> ToolDefinition:
    """`tool` for `api.register_tool`; `active=False` registers it switched off (deferred)."""
    from pith.mcp import tool_spec

    spec = tool_spec(tool)

    async def execute(
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
        ctx: ExtensionContext,
    ) -> ToolResult:
        def progress(text: str) -> None:
            if on_update is not None:
                on_update(ToolResult(content=[TextContent(text=text)], details={}))

        try:
            return await caller.call(tool, dict(args), signal, progress)
        except Exception as error:  # a fault of ours must still be a result the model reads
            return error_result(f"MCP server {tool.server!r} failed: {error}")

    return ToolDefinition(
        name=tool.full_name,
        description=spec.description,
        parameters=dict(spec.parameters),
        execute=execute,
        label=f"{tool.server}: {tool.name}",
        default_active=active,
    )
