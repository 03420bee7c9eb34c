"""What `/mcp` shows: the servers with their state, and one server's tools. Pure.

Servers that need attention come first (failed, then needing sign-in, then still connecting),
then the connected ones, then the disabled or closed ones, each group by name. A failed server
shows its error and the last lines its process wrote on stderr.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pith.mcp import McpConfig, McpTool, ServerState

__all__ = ["MCP_USAGE", "NO_SERVERS", "server_report", "tools_report"]

MCP_USAGE = (
    "usage: /mcp | /mcp tools NAME | /mcp reconnect NAME | "
    "/mcp enable NAME [--project] | /mcp disable NAME [--project]"
)
_ORDER = {"failed": 0, "needs-auth": 1, "connecting": 2, "connected": 3}
_STDERR_LINES = 5


NO_SERVERS = "No MCP servers are configured; add one with `pith mcp add NAME -- COMMAND ...`."


def server_report(config: McpConfig, states: Mapping[str, ServerState]) -> str:
    """Every configured server, one line each (plus error lines for a failed one)."""
    if not config.servers:
        return NO_SERVERS
    rows = []
    for name, server in config.servers.items():
        state = states.get(name)
        status = state.status if state is not None else ("closed" if server.enabled else "disabled")
        if not server.enabled:
            status = "disabled"
        rows.append((_ORDER.get(status, 4), name, server, state, status))
    lines: list[str] = []
    for _, name, server, state, status in sorted(rows, key=lambda row: (row[0], row[1])):
        count = state.tool_count if state is not None else 0
        tools = f"{count} tool{'' if count == 1 else 's'}" if status == "connected" else "-"
        source = str(server.source) if server.source is not None else "registered by code"
        if server.override is not None:
            source += f" (override: {server.override})"
        lines.append(f"{name}  {status}  {tools}  {server.exposure}  {source}")
        if state is not None and status in ("failed", "needs-auth") and state.error:
            lines.append(f"  error: {state.error}")
        tail = state.stderr_tail.strip().splitlines() if state is not None else []
        if status == "failed" and tail:
            lines.append("  stderr:")
            lines.extend(f"    {line}" for line in tail[-_STDERR_LINES:])
    return "\n".join(lines)


def tools_report(server: str, tools: Sequence[McpTool], loaded: Collection[str]) -> str:
    """`server`'s tools with the exposure each has now (a deferred one `tool_search` declared
    says so)."""
    mine = [tool for tool in tools if tool.server == server]
    if not mine:
        return f"MCP server {server!r} offers no tools (or is not connected)."
    lines = []
    for tool in sorted(mine, key=lambda t: t.full_name):
        exposure = str(tool.exposure)
        if tool.exposure == "deferred" and tool.full_name in loaded:
            exposure += ", declared by tool_search"
        summary = tool.description.strip().split("\n", 1)[0]
        lines.append(f"{tool.full_name}  {exposure}" + (f"  {summary}" if summary else ""))
    return "\n".join(lines)
