"""Which deferred MCP tools `tool_search` has declared on the current branch.

Each search that declares new tools appends one `mcp-tools-loaded` custom entry holding their
names. The set on a branch is the union of the entries on it, so the tools stay declared
after a restart or a resume, and a move in the session tree (`/tree`, fork) takes exactly the
tools that branch had loaded.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pith.session import CustomEntry, SessionEntry

__all__ = ["LOADED_TYPE", "loaded_entry_data", "loaded_on_branch"]

LOADED_TYPE = "mcp-tools-loaded"


def loaded_on_branch(branch: Sequence[SessionEntry]) -> list[str]:
    """The names every `mcp-tools-loaded` entry of `branch` declared, in first-loaded order."""
    names: dict[str, None] = {}
    for entry in branch:
        if not isinstance(entry, CustomEntry) or entry.custom_type != LOADED_TYPE:
            continue
        data = entry.data
        tools = data.get("tools") if isinstance(data, dict) else None
        if isinstance(tools, list):
            names.update((name, None) for name in tools if isinstance(name, str))
    return list(names)


def loaded_entry_data(names: Iterable[str]) -> dict[str, object]:
    return {"tools": list(names)}
