"""`--tools a,b,+x,-y`: which tools are active, in which order, and which MCP tools may be
declared (pure)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from pith.errors import InputError

__all__ = ["MCP_PREFIX", "mcp_tool_gate", "select_tool_names"]

MCP_PREFIX = "mcp__"
"""How every MCP tool's name starts (`mcp__<server>__<tool>`). MCP servers connect after the
tools are chosen, so `--tools` entries with this prefix are not checked against the known
tools; they filter MCP tools as they arrive (`mcp_tool_gate`)."""


MCP_RESOURCES = "mcp_resources"
"""The MCP servers' resource tool: judged with the MCP tools, so `--tools mcp__box__echo`
leaves it out unless an entry names it."""


def _is_mcp_name(name: str) -> bool:
    return name.startswith(MCP_PREFIX) or name == MCP_RESOURCES


def _is_mcp(item: str) -> bool:
    return _is_mcp_name(item.lstrip("+-"))


def select_tool_names(
    spec: str | None, default: Sequence[str], available: Sequence[str], *, no_tools: bool = False
) -> list[str]:
    """The active tool names, in the order the model gets them.

    A plain list replaces the default set and keeps its own order; `+name` adds a tool at the
    end and `-name` removes one (as Pi does). Without a spec the default set is used, in the
    order of `available`. Unknown names are an error that lists the available tools.
    """
    if no_tools:
        return []
    if spec is None:
        return [name for name in available if name in default]
    items = [item.strip() for item in spec.split(",") if item.strip()]
    unknown = [
        item.lstrip("+-")
        for item in items
        if item.lstrip("+-") not in available and not _is_mcp(item)
    ]
    if unknown:
        raise InputError(
            f"--tools: unknown tool(s) {', '.join(unknown)}; available: {', '.join(available)}"
        )
    plain = [item for item in items if not item.startswith(("+", "-"))]
    chosen = (
        list(dict.fromkeys(item for item in plain if not _is_mcp(item)))
        if plain
        else [n for n in available if n in default]
    )
    for item in items:
        name = item[1:]
        if _is_mcp(item):
            continue
        if item.startswith("+") and name not in chosen:
            chosen.append(name)
        elif item.startswith("-") and name in chosen:
            chosen.remove(name)
    return chosen


def _pattern(patterns: Sequence[str]) -> re.Pattern[str]:
    """One regex for names matching any of `patterns`, where `*` is any run of characters."""
    parts = [".*".join(re.escape(piece) for piece in p.split("*")) for p in patterns]
    return re.compile("|".join(f"(?:{part})" for part in parts))


def mcp_tool_gate(spec: str | None, *, no_tools: bool = False) -> Callable[[str], bool] | None:
    """Which MCP tools `--tools` lets be declared (None: every one).

    MCP tools are not removed by `--tools` unless an entry starts with `mcp__`: a plain entry
    (`mcp__box__*`, `*` matching any run of characters) keeps only the MCP tools that match
    some plain entry; a `-mcp__...` entry removes those that match it. `--no-tools` removes
    every MCP tool. `mcp_resources` counts as an MCP tool. Tools with other names are never
    judged here.
    """
    if no_tools:
        return lambda name: not _is_mcp_name(name)
    if spec is None:
        return None
    items = [item.strip() for item in spec.split(",") if item.strip()]
    keep = [item for item in items if not item.startswith(("+", "-")) and _is_mcp(item)]
    drop = [item[1:] for item in items if item.startswith("-") and _is_mcp(item)]
    if not keep and not drop:
        return None
    kept = _pattern(keep) if keep else None
    dropped = _pattern(drop) if drop else None

    def gate(name: str) -> bool:
        if not _is_mcp_name(name):
            return True
        if kept is not None and kept.fullmatch(name) is None:
            return False
        return dropped is None or dropped.fullmatch(name) is None

    return gate
