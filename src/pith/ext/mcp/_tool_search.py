"""`tool_search`: find deferred MCP tools by what they do, and declare the matches.

Deferred tools cost the context nothing until the model needs them. The ranking is
`pith.mcp`'s (BM25F over name, description, parameters and server summary). The tool's
description names the servers it searches, with each one's configured description: it is
written once, at start-up, so it never changes while the session runs and the provider's
prompt cache keeps holding.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from pith.agent import AbortSignal, ToolError, ToolResult, UpdateCallback, text_result
from pith.extensions import ExtensionContext, ToolDefinition

if TYPE_CHECKING:
    from pith.mcp import McpTool

__all__ = ["Loader", "search_tool_definition"]


class Loader(Protocol):
    """What the search needs from the extension: the candidates, and declaring some."""

    async def searchable(self) -> list[McpTool]: ...

    def summaries(self) -> dict[str, str]: ...

    def load(self, names: list[str]) -> list[str]: ...


def _description(base: str, servers: Mapping[str, str]) -> str:
    if not servers:
        return base
    listed = "\n".join(
        f"- {name}" + (f": {text}" if text else "") for name, text in servers.items()
    )
    return f"{base}\n\nServers searched:\n{listed}"


def search_tool_definition(loader: Loader, servers: Mapping[str, str]) -> ToolDefinition:
    """The `tool_search` tool; `servers` maps each searched server to its configured summary."""
    from pith.mcp import (
        TOOL_SEARCH_DESCRIPTION,
        TOOL_SEARCH_NAME,
        TOOL_SEARCH_PARAMETERS,
        ToolIndex,
        search_limit,
        search_result_text,
    )

    async def execute(
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
        ctx: ExtensionContext,
    ) -> ToolResult:
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            raise ToolError("query: say in a few words what the tool should do")
        try:
            limit = search_limit(args.get("limit"))
        except ValueError as error:
            raise ToolError(str(error)) from None
        hits = ToolIndex(await loader.searchable(), loader.summaries()).rank(query, limit)
        loaded = loader.load([hit.tool.full_name for hit in hits])
        return text_result(
            search_result_text(query, hits),
            details={
                "query": query,
                "matches": [hit.tool.full_name for hit in hits],
                "loaded": loaded,
            },
        )

    return ToolDefinition(
        name=TOOL_SEARCH_NAME,
        description=_description(TOOL_SEARCH_DESCRIPTION, servers),
        parameters=TOOL_SEARCH_PARAMETERS,
        execute=execute,
        label="tool search",
        prompt_snippet="Find tools of MCP servers by what they do; the matches become callable",
    )
