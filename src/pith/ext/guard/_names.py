"""Tool-Name Repair: a misspelled tool name mapped to the declared tool the model meant.

Deliberately tight: a wrong rewrite runs the wrong tool, while an unrepaired typo costs one
round trip. `repair_tool_name` renames only when all hold:

- the target is in the **Declared Tool Set** (the names given here) and the name is not;
- both are in the same **MCP Family** (the part before the last `__`, compared ignoring case),
  or neither has one: a repair never crosses, adds or drops a family;
- the target is the *unique* closest declared name of that family; a tie refuses;
- the distance is at most 1, or 2 when the name is at least 8 characters long and its first
  and last characters equal the target's; case-only differences cost nothing;
- the target is at least 4 characters long.

Inside a family, the lengths and the first and last characters are those of the part after
the family (`create_isue` in `mcp__jira__create_isue`): the family is equal on both sides by
then, and counting it would let every namespaced name, however short its own part, use the
wider budget.

The distance is the optimal-string-alignment form of Damerau-Levenshtein: an adjacent
transposition (`raed` → `read`, `wirte` → `write`) is one edit. It is the commonest slip on a
keyboard, and plain Levenshtein would charge it 2, refusing it for every name shorter than 8
characters, which includes every built-in tool.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

__all__ = ["repair_notice", "repair_tool_name", "unknown_tool_message"]

_MIN_TARGET = 4
_WIDE_BUDGET_MIN_NAME = 8
_SHOWN_NAME_MAX = 200


def repair_tool_name(name: str, declared: Sequence[str]) -> str | None:
    """The declared tool `name` was meant to be, or None when there is nothing to repair.

    None also when `name` is itself declared (nothing to repair) or when no declared tool is
    unambiguously within the edit-distance budget.
    """
    if not name or name in declared:
        return None
    family, local = _split(name)
    distances: dict[str, int] = {}
    for target in dict.fromkeys(declared):  # declared order, duplicates once
        target_family, target_local = _split(target)
        if _fold(target_family) != _fold(family):
            continue
        distances[target] = _distance(local.lower(), target_local.lower())
    if not distances:
        return None
    closest = min(distances.values())
    nearest = [target for target, distance in distances.items() if distance == closest]
    if len(nearest) != 1:
        return None
    target = nearest[0]
    target_local = _split(target)[1]
    if len(target_local) < _MIN_TARGET or not _within_budget(local, target_local, closest):
        return None
    return target


def unknown_tool_message(name: str, declared: Sequence[str]) -> str:
    """The error text the model gets for a call to `name` that no declared tool answers."""
    shown = _shown(name)
    names = list(dict.fromkeys(declared))
    if not names:
        return f"Tool {shown} not found. No tools are available."
    return (
        f"Tool {shown} not found. Available tools: {', '.join(names)}. "
        "Call one of them by its exact name."
    )


def repair_notice(old: str, new: str) -> str:
    """The notice the user sees when a call to `old` was run as `new`."""
    return f"tool name repaired: {_shown(old)} → {_shown(new)}"


def _split(name: str) -> tuple[str | None, str]:
    """(family, the rest): `mcp__jira__create_issue` → (`mcp__jira`, `create_issue`)."""
    family, separator, local = name.rpartition("__")
    return (family, local) if separator else (None, name)


def _fold(family: str | None) -> str | None:
    return None if family is None else family.lower()


def _within_budget(name: str, target: str, distance: int) -> bool:
    if distance <= 1:
        return True
    return (
        distance == 2
        and len(name) >= _WIDE_BUDGET_MIN_NAME
        and name[0].lower() == target[0].lower()
        and name[-1].lower() == target[-1].lower()
    )


def _distance(a: str, b: str) -> int:
    """Edits (insert, delete, substitute, swap two adjacent characters) turning `a` into `b`.

    Past the budget only "more than 2" matters, so lengths 3 or more apart give 3 unmeasured
    (which also keeps a huge name from costing a huge table).
    """
    if a == b:
        return 0
    if abs(len(a) - len(b)) > 2:
        return 3
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


def _shown(name: str) -> str:
    """`name` as messages show it: bare when plain, quoted when empty, spaced or odd; capped."""
    if len(name) > _SHOWN_NAME_MAX:
        name = name[:_SHOWN_NAME_MAX] + "…"
    if name and all(char.isprintable() and not char.isspace() for char in name):
        return name
    return json.dumps(name, ensure_ascii=False)
