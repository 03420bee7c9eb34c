"""The segment glob (protected paths of the pruner): a pattern compiled once to an anchored
regex. `*` and `?` stay within one segment, `**` crosses segments and `**/` also matches no
directory; everything else is literal. `\\` in pattern and path is read as `/`; matching is
case-sensitive and covers the whole path. Every pattern compiles, so a bad one cannot raise."""

from __future__ import annotations

import re
from functools import lru_cache

from pith.glob._translate import SEGMENT_ONE, SEGMENT_STAR, WildcardSyntax

__all__ = ["compile_segment_glob", "segment_glob_match"]

_SYNTAX = WildcardSyntax(star=SEGMENT_STAR, one=SEGMENT_ONE, any_directories=True, double_star=".*")


@lru_cache(maxsize=512)
def compile_segment_glob(pattern: str) -> re.Pattern[str]:
    """The anchored regex for `pattern` (cached by pattern text, so edited settings apply at
    once without invalidation)."""
    return re.compile(_SYNTAX.source(pattern.replace("\\", "/")), re.DOTALL)


def segment_glob_match(pattern: str, path: str) -> bool:
    """True when the whole of `path` (with `\\` read as `/`) matches `pattern`."""
    return compile_segment_glob(pattern).fullmatch(path.replace("\\", "/")) is not None
