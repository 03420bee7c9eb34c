"""`--tools a,b,+x,-y`: which tools are active, in which order (pure)."""

from __future__ import annotations

from collections.abc import Sequence

from pith.errors import InputError

__all__ = ["select_tool_names"]


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
    unknown = [item.lstrip("+-") for item in items if item.lstrip("+-") not in available]
    if unknown:
        raise InputError(
            f"--tools: unknown tool(s) {', '.join(unknown)}; available: {', '.join(available)}"
        )
    plain = [item for item in items if not item.startswith(("+", "-"))]
    chosen = list(dict.fromkeys(plain)) if plain else [n for n in available if n in default]
    for item in items:
        name = item[1:]
        if item.startswith("+") and name not in chosen:
            chosen.append(name)
        elif item.startswith("-") and name in chosen:
            chosen.remove(name)
    return chosen
