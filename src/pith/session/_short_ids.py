"""How much of a session id to show: enough to tell it from the others beside it.

Session ids start with their creation time, so sessions made within a minute share their first
8 characters; a fixed cut would print the same id for all of them. Each id is shown as its
shortest prefix that no other id in the list starts with, at least `MIN_SHOWN` characters long.
Such a prefix, typed back, picks that one session among the ones listed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

__all__ = ["MIN_SHOWN", "short_ids"]

MIN_SHOWN = 8


def _shared(a: str, b: str) -> int:
    """How many leading characters `a` and `b` have in common."""
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count


def short_ids(ids: Sequence[str], minimum: int = MIN_SHOWN) -> list[str]:
    """For each of `ids`, in order, its shortest prefix of at least `minimum` characters that
    no other id starts with. An id that another one starts with, or that appears twice, is
    shown whole. A prefix never ends on `-`: `01a23306-` tells no more than `01a23306`."""
    ordered = sorted(set(ids))
    needed: dict[str, int] = {}
    for index, value in enumerate(ordered):
        neighbours = ordered[max(index - 1, 0) : index] + ordered[index + 1 : index + 2]
        longest = max((_shared(value, other) for other in neighbours), default=0)
        needed[value] = longest + 1
    counts = Counter(ids)
    shown = []
    for value in ids:
        length = len(value) if counts[value] > 1 else max(minimum, needed[value])
        while length < len(value) and value[length - 1] == "-":
            length += 1
        shown.append(value[:length])
    return shown
