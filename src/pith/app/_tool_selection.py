"""`--tools a,b,+x,-y`: which tools are active (pure)."""

from __future__ import annotations

from collections.abc import Sequence

from pith.errors import InputError

__all__ = ["select_tool_names"]


def select_tool_names(
    spec: str | None, default: Sequence[str], available: Sequence[str], *, no_tools: bool = False
) -> list[str]:
    """The active tool names, in the order of `available`.

    A plain list replaces the default set; `+name` adds to it and `-name` removes from it.
    Unknown names are an error that lists the available tools.
    """
    if no_tools:
        return []
    if spec is None:
        return [name for name in available if name in default]
    items = [item.strip() for item in spec.split(",") if item.strip()]
    unknown = [item.lstrip("+-") for item in items if item.lstrip("+-") not in available]
    if unknown:
        raise InputError(
            f"--tools: unknown tool(s) {', '.join(unknown)}; available: {', '.join(available)}"
        )
    plain = [item for item in items if not item.startswith(("+", "-"))]
    chosen = set(plain) if plain else set(default)
    for item in items:
        if item.startswith("+"):
            chosen.add(item[1:])
        elif item.startswith("-"):
            chosen.discard(item[1:])
    return [name for name in available if name in chosen]
