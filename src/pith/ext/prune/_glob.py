"""The protected-path glob contract (docs/pruning.md): a pattern compiled once to an anchored regex.

- `*` and `?` match within one path segment (never `/`);
- `**` matches across segments; `**/` also matches zero directories, so `**/SKILL.md`
  matches a bare `SKILL.md`;
- every other character is a literal (regex characters are escaped);
- `\\` in the pattern and in the path is read as `/`; matching is case-sensitive and covers
  the whole path.

Every pattern compiles to some regex, so a bad pattern cannot raise.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["compile_glob", "glob_match"]


@lru_cache(maxsize=512)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """The anchored regex for `pattern` (cached by pattern text, so edited settings apply at
    once without invalidation)."""
    text = pattern.replace("\\", "/")
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if text.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif text.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(char))
            i += 1
    return re.compile("".join(out), re.DOTALL)


def glob_match(pattern: str, path: str) -> bool:
    """True when the whole of `path` (with `\\` read as `/`) matches `pattern`."""
    return compile_glob(pattern).fullmatch(path.replace("\\", "/")) is not None
