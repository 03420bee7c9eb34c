"""The MCP part of `pith context`: each MCP tool's definition cost, grouped by server, with the
deferred ones (registered, not declared yet) and what they would cost once `tool_search`
declares them.

MCP tools are known by their names (`mcp__<server>__<tool>`; a server's name never holds
`__`), so this needs nothing from the MCP extension itself. Before the report is built,
`REPORT_CHANNEL` is emitted on the extensions' event bus: the MCP extension waits there
(bounded) for its servers, so their tools are registered when the report looks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pith.agent import Tool
from pith.ai import Context, ToolSpec
from pith.app.session._tool_selection import MCP_PREFIX
from pith.compaction import estimate_tool_tokens
from pith.extensions import ExtensionRunner

__all__ = [
    "REPORT_CHANNEL",
    "McpToolGroup",
    "McpToolLine",
    "group_lines",
    "groups_to_json",
    "mcp_tool_groups",
    "prepare_report",
]

REPORT_CHANNEL = "context:report"
"""Emitted (no data) on `api.events` just before `pith context` or `/context` builds its
report; a handler may await what the report should include."""

SEARCH_TOOL = "tool_search"


@dataclass(frozen=True)
class McpToolLine:
    name: str
    tokens: int
    """Its definition's estimate: what it costs now if declared, what it would cost if not."""
    declared: bool


@dataclass
class McpToolGroup:
    server: str
    tools: list[McpToolLine] = field(default_factory=list)

    @property
    def declared_tokens(self) -> int:
        return sum(line.tokens for line in self.tools if line.declared)

    @property
    def deferred_tokens(self) -> int:
        return sum(line.tokens for line in self.tools if not line.declared)


async def prepare_report(runner: ExtensionRunner) -> None:
    """Let extensions finish what the report should show (MCP servers connecting)."""
    await runner.events.emit(REPORT_CHANNEL)


def _server(name: str) -> str | None:
    if not name.startswith(MCP_PREFIX):
        return None
    server, sep, _ = name[len(MCP_PREFIX) :].partition("__")
    return server if sep and server else None


def mcp_tool_groups(context: Context, runner: ExtensionRunner | None) -> list[McpToolGroup]:
    """The MCP tools of `context` (declared) and those registered but not declared (deferred,
    and let through by every tool gate), by server in the order first seen."""
    groups: dict[str, McpToolGroup] = {}
    declared = {tool.name for tool in context.tools}

    def add(name: str, tokens: int, is_declared: bool) -> None:
        server = _server(name)
        if server is None:
            return
        group = groups.setdefault(server, McpToolGroup(server))
        group.tools.append(McpToolLine(name, tokens, is_declared))

    for spec in context.tools:
        add(spec.name, estimate_tool_tokens(spec), True)
    if runner is not None:
        for name, (_, tool) in runner.tools.items():
            if name in declared or _server(name) is None or not runner.tool_allowed(name):
                continue
            add(name, _tool_tokens(tool), False)
    return list(groups.values())


def _tool_tokens(tool: Tool) -> int:
    spec = ToolSpec(name=tool.name, description=tool.description, parameters=tool.parameters)
    return estimate_tool_tokens(spec)


def group_lines(groups: Sequence[McpToolGroup], search_tokens: int | None) -> list[str]:
    """The report's lines for MCP tools (nothing when there are none)."""
    if not groups and search_tokens is None:
        return []
    lines = ["mcp tools (by server; deferred ones cost nothing until tool_search loads them)"]
    if search_tokens is not None:
        lines.append(f"  {SEARCH_TOOL:<46} ~{search_tokens:>8,} tokens")
    for group in groups:
        now = sum(line.declared for line in group.tools)
        later = len(group.tools) - now
        lines.append(
            f"  {group.server}: {now} declared ~{group.declared_tokens:,}, "
            f"{later} deferred (~{group.deferred_tokens:,} if loaded)"
        )
        for line in group.tools:
            if line.declared:
                lines.append(f"    {line.name:<44} ~{line.tokens:>8,}")
            else:
                lines.append(f"    {line.name:<44}  deferred (~{line.tokens:,} if loaded)")
    return lines


def groups_to_json(groups: Sequence[McpToolGroup]) -> list[dict[str, object]]:
    return [
        {
            "server": group.server,
            "declaredTokens": group.declared_tokens,
            "deferredTokens": group.deferred_tokens,
            "tools": [
                {"name": line.name, "tokens": line.tokens, "declared": line.declared}
                for line in group.tools
            ],
        }
        for group in groups
    ]
