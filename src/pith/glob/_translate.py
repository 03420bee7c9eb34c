"""The two translation loops several dialects share.

`wildcard_source` reads patterns that know only `*`, `?`, `**` and literals (the protected-path
glob and both permission wildcards); a `WildcardSyntax` says what each wildcard becomes.
`segment_source` reads one `/`-free segment with `\\` escapes, `*`, `?` and `[...]` (the
settings glob and ignore-file rules); the caller says how a bracket expression reads.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "ANY_DIRECTORIES",
    "SEGMENT_ONE",
    "SEGMENT_STAR",
    "BracketReader",
    "WildcardSyntax",
    "segment_source",
]

SEGMENT_STAR = "[^/]*"
"""`*` that stays within one path segment."""
SEGMENT_ONE = "[^/]"
"""`?` that stays within one path segment."""
ANY_DIRECTORIES = "(?:.*/)?"
"""`**/`: any number of whole directories, none included."""


@dataclass(frozen=True)
class WildcardSyntax:
    """What each wildcard of a `*` / `?` / `**` pattern becomes in a regular expression."""

    star: str
    one: str
    any_directories: bool
    """Whether `**/` means "zero or more directories"."""
    double_star: str | None
    """The regex for a `**` not followed by `/`; None reads it as two `star`s."""

    def source(self, pattern: str) -> str:
        """The regular-expression body for `pattern`; every other character is literal."""
        out: list[str] = []
        index = 0
        while index < len(pattern):
            char = pattern[index]
            if self.any_directories and pattern.startswith("**/", index):
                out.append(ANY_DIRECTORIES)
                index += 3
            elif self.double_star is not None and pattern.startswith("**", index):
                out.append(self.double_star)
                index += 2
            elif char == "*":
                out.append(self.star)
                index += 1
            elif char == "?":
                out.append(self.one)
                index += 1
            else:
                out.append(re.escape(char))
                index += 1
        return "".join(out)


BracketReader = Callable[[str, int], tuple[str, int] | None]
"""Reads the `[...]` at an index of a segment: (regex, index after it), or None when the
whole pattern can never match."""


def segment_source(segment: str, bracket: BracketReader) -> str | None:
    """The regular-expression body for one path segment: `\\x` is a literal `x`, a run of `*`
    is `SEGMENT_STAR`, `?` is `SEGMENT_ONE`, `[` is read by `bracket`, the rest is literal.
    None when `bracket` says the pattern can never match."""
    out: list[str] = []
    index = 0
    length = len(segment)
    while index < length:
        char = segment[index]
        if char == "\\" and index + 1 < length:
            out.append(re.escape(segment[index + 1]))
            index += 2
        elif char == "*":
            while index < length and segment[index] == "*":
                index += 1
            out.append(SEGMENT_STAR)
        elif char == "?":
            out.append(SEGMENT_ONE)
            index += 1
        elif char == "[":
            read = bracket(segment, index)
            if read is None:
                return None
            source, index = read
            out.append(source)
        else:
            out.append(re.escape(char))
            index += 1
    return "".join(out)
