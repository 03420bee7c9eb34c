"""MCP tools as the permission rules see them: `mcp__<server>__<tool>` read as a server and a
tool, and how an `mcp` surface pattern matches them.

MCP tools reach pith under model-facing names: `mcp__`, the server's name, `__`, the tool's
name, every character other than a letter, a digit or `_` replaced by `_` (so `my-server`'s
`get.item` is `mcp__my_server__get_item`). A server name never holds `__`, so the server is
what lies between `mcp__` and the next `__`, and the tool is all the rest.

The `mcp` surface judges `server:tool` and `server` alone, as command patterns, the last
matching pattern winning. A pattern is matched as written and also with the characters a name
cannot hold replaced the way names are (`my-server:*` matches `my_server:get_item`), so the
configured names work as well as the model-facing ones. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pith.glob import command_matches

__all__ = ["MCP_SURFACE", "McpName", "mcp_name", "mcp_pattern_matches"]

MCP_SURFACE = "mcp"
_PREFIX = "mcp__"
_NOT_IN_A_NAME = re.compile(r"[^A-Za-z0-9_*?:]")


@dataclass(frozen=True)
class McpName:
    """One MCP tool's model-facing name, split."""

    server: str
    tool: str

    @property
    def value(self) -> str:
        """`server:tool`, what the `mcp` surface judges."""
        return f"{self.server}:{self.tool}"


def mcp_name(tool: str) -> McpName | None:
    """`mcp__git__git_commit` → (`git`, `git_commit`); None for a name that is not an MCP
    tool's (no server, or no tool after it)."""
    if not tool.startswith(_PREFIX):
        return None
    server, sep, rest = tool[len(_PREFIX) :].partition("__")
    if not server or not sep or not rest:
        return None
    return McpName(server, rest)


def mcp_pattern_matches(pattern: str, name: McpName, home: str) -> bool:
    """Whether an `mcp` surface pattern matches `server:tool` or `server`."""
    patterns = {pattern, _NOT_IN_A_NAME.sub("_", pattern)}
    return any(
        command_matches(candidate, value, home)
        for candidate in patterns
        for value in (name.value, name.server)
    )
