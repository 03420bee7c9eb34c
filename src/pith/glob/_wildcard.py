"""The permission wildcard: the two pattern languages of permission rules, compiled to anchored
regular expressions.

**Command patterns** (`bash`, `skill`, `mcp`, tools without a path): `*` matches any run of
characters (`/` and newlines included), `?` exactly one, everything else is literal; a pattern
ending in ` *` also matches without that suffix (`git *` matches `git`); `~`, `$HOME` and
`${HOME}` at the start expand to the home directory.

**Path patterns** (`read` `write` `edit` `grep` `find` `ls`, `path`, `external_directory`):
the same, plus what paths need: the pattern is normalized like a path
(`./.env` is `.env`, `a/../b` is `b`); `dir/*` also matches `dir` itself; `**/` also matches
no directory at all (`**/*.env` matches `.env`); a trailing `/` means the directory and
everything under it. A path pattern is *absolute* (it starts with `/` after expansion) or
*relative*; the permission system matches each against the same form of a path.
"""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache
from typing import Literal

from pith.glob._translate import WildcardSyntax

__all__ = [
    "PathPattern",
    "command_matches",
    "expand_home",
    "path_pattern",
]

_HOME_PREFIXES = ("${HOME}", "$HOME", "~")


def expand_home(text: str, home: str) -> str:
    """`text` with a leading `~`, `$HOME` or `${HOME}` replaced by `home` (only as a whole
    first segment: `~user` and `$HOMEDIR` stay as they are)."""
    for prefix in _HOME_PREFIXES:
        if text == prefix:
            return home
        if text.startswith(prefix + "/"):
            return home.rstrip("/") + text[len(prefix) :]
    return text


_COMMAND = WildcardSyntax(star=".*", one=".", any_directories=False, double_star=None)
_PATH = WildcardSyntax(star=".*", one=".", any_directories=True, double_star=None)


@lru_cache(maxsize=4096)
def _command_regex(pattern: str, home: str) -> re.Pattern[str]:
    expanded = expand_home(pattern, home)
    if expanded.endswith(" *"):
        body = _COMMAND.source(expanded[:-2]) + "(?: .*)?"
    else:
        body = _COMMAND.source(expanded)
    return re.compile(body, re.DOTALL)


def command_matches(pattern: str, value: str, home: str) -> bool:
    """Whether the command pattern `pattern` matches `value` entirely."""
    return _command_regex(pattern, home).fullmatch(value) is not None


PatternKind = Literal["absolute", "relative"]


class PathPattern:
    """A compiled path pattern: `kind` says which form of a path it is matched against."""

    __slots__ = ("_regex", "kind", "text")

    def __init__(self, text: str, kind: PatternKind, regex: re.Pattern[str]) -> None:
        self.text = text
        self.kind: PatternKind = kind
        self._regex = regex

    def matches(self, value: str) -> bool:
        return self._regex.fullmatch(value) is not None


def _normalize(pattern: str) -> str:
    """Collapse `.` and `..` segments and repeated slashes, keeping wildcards as they are."""
    absolute = pattern.startswith("/")
    parts: list[str] = []
    for part in pattern.split("/"):
        if part in ("", "."):
            continue
        if part == ".." and parts and parts[-1] != "..":
            parts.pop()
            continue
        if part == ".." and absolute and not parts:
            continue  # `/..` is `/`
        parts.append(part)
    joined = "/".join(parts)
    return "/" + joined if absolute else joined


@lru_cache(maxsize=4096)
def path_pattern(pattern: str, home: str) -> PathPattern:
    """Compile a path pattern (see the module docstring)."""
    expanded = expand_home(pattern.strip(), home)
    directory = expanded.endswith("/") and expanded not in ("/", "")
    normalized = _normalize(expanded) or "."
    if normalized == "/" and not directory:
        body = "/"
    elif directory:
        body = _PATH.source(normalized) + "(?:/.*)?"
    elif normalized.endswith("/*") and not normalized.endswith("*/*"):
        # `dir/*` covers `dir` itself, as `git *` covers `git`.
        body = _PATH.source(normalized[:-2]) + "(?:/.*)?"
    else:
        body = _PATH.source(normalized)
    kind: PatternKind = "absolute" if posixpath.isabs(normalized) else "relative"
    return PathPattern(pattern, kind, re.compile(body, re.DOTALL))
