"""The gitignore rules of resource folders, matched the way the `ignore` package Pi uses
matches them.

Paths are relative, `/`-separated; a directory is asked about with a trailing `/`. A path is
ignored when one of its parent directories is, or else when the last rule that matches it is
not a `!` rule. Matching is case-insensitive (that package's default).

`ignore_file_patterns` is Pi's reading of one ignore file found in a scanned folder: blank and
`#` lines dropped, a leading `/` removed, and each pattern prefixed with the folder's path
below the scan root, so `/x` in `group/.ignore` becomes `group/x`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pith.glob._translate import segment_source

__all__ = ["IgnoreRules", "ignore_file_patterns"]


def ignore_file_patterns(content: str, prefix: str) -> list[str]:
    """The patterns of an ignore file in the folder `prefix` (`""` at the scan root, else
    `"a/b/"`), as Pi feeds them to its matcher."""
    patterns: list[str] = []
    for line in re.split(r"\r?\n", content):
        trimmed = line.strip()
        if not trimmed or (trimmed.startswith("#") and not trimmed.startswith("\\#")):
            continue
        pattern = line
        negated = False
        if pattern.startswith("!"):
            negated = True
            pattern = pattern[1:]
        elif pattern.startswith("\\!"):
            pattern = pattern[1:]
        if pattern.startswith("/"):
            pattern = pattern[1:]
        prefixed = prefix + pattern
        patterns.append("!" + prefixed if negated else prefixed)
    return patterns


@dataclass(frozen=True)
class _Rule:
    regex: re.Pattern[str] | None
    """None: a pattern that can never match (an unterminated bracket expression)."""
    negative: bool


class IgnoreRules:
    """An ordered set of ignore rules; `add` appends, `ignores` asks."""

    def __init__(self) -> None:
        self._rules: list[_Rule] = []
        self._cache: dict[str, bool] = {}

    def add(self, patterns: list[str]) -> None:
        for pattern in patterns:
            rule = _compile(pattern)
            if rule is not None:
                self._rules.append(rule)
                self._cache.clear()

    def ignores(self, path: str) -> bool:
        """Whether `path` (relative; a directory ends with `/`) is ignored."""
        if not self._rules:
            return False
        cached = self._cache.get(path)
        if cached is not None:
            return cached
        parent = _parent_of(path)
        result = (parent != "" and self.ignores(parent)) or self._test(path)
        self._cache[path] = result
        return result

    def _test(self, path: str) -> bool:
        ignored = False
        for rule in self._rules:
            if rule.negative != ignored:
                continue  # a rule that could not change the answer
            if rule.regex is not None and rule.regex.search(path):
                ignored = not rule.negative
        return ignored


def _parent_of(path: str) -> str:
    """`a/b/c` -> `a/b/`, `a/b/` -> `a/`, `a` -> ``."""
    end = len(path) - 1 if path.endswith("/") else len(path)
    cut = path.rfind("/", 0, end)
    return "" if cut < 0 else path[: cut + 1]


def _valid(pattern: str) -> bool:
    if not pattern or re.fullmatch(r" +", pattern) or pattern.startswith("#"):
        return False
    # A pattern ending in a single (unescaped) backslash is invalid.
    return not re.search(r"(?:[^\\]|^)\\$", pattern)


def _compile(pattern: str) -> _Rule | None:
    if not _valid(pattern):
        return None
    negative = pattern.startswith("!")
    body = pattern[1:] if negative else pattern
    if body.startswith("\\!") or body.startswith("\\#"):
        body = body[1:]
    body = _trim_trailing_spaces(body)
    if not body:
        return None
    source = _translate(body)
    regex = None if source is None else re.compile(source, re.IGNORECASE)
    return _Rule(regex, negative)


def _trim_trailing_spaces(body: str) -> str:
    """Trailing spaces are dropped unless the last one is escaped (`a\\ ` keeps one)."""
    stripped = body.rstrip(" ")
    if stripped == body:
        return body
    if stripped.endswith("\\") and (len(stripped) - len(stripped.rstrip("\\"))) % 2 == 1:
        return stripped[:-1] + " "
    return stripped


def _translate(body: str) -> str | None:
    """The regular expression for one pattern, or None when it can never match."""
    anchored = re.search(r"/(?!$)", body) is not None
    dir_only = body.endswith("/")
    core = body[:-1] if dir_only else body
    if core.startswith("/"):
        core = core[1:]

    parts: list[str] = []
    prefix = "^" if anchored else "(?:^|/)"
    segments = core.split("/")
    # A leading `**/` matches at any depth (and is never anchored).
    if len(segments) > 1 and segments[0] == "**":
        while len(segments) > 1 and segments[0] == "**":
            segments.pop(0)
        prefix = "^(?:.*/)?"
    last = len(segments) - 1
    for index, segment in enumerate(segments):
        if segment == "**" and index > 0:
            if index == last:
                # `a/**` matches everything inside `a` (not `a` itself); `a/**/` only dirs.
                parts.append("/.+" if not dir_only else "(?:/[^/]+)+")
            else:
                parts.append("(?:/[^/]+)*")
            continue
        if index == last and index > 0 and not dir_only and set(segment) == {"*"}:
            # `a/*` needs at least one character after the slash (it does not match `a/`).
            parts.append("/[^/]+")
            continue
        translated = segment_source(segment, _bracket)
        if translated is None:
            return None
        parts.append(("/" if index > 0 else "") + translated)
    source = prefix + "".join(parts)
    return source + ("/$" if dir_only else "(?=$|/$)")


_POSIX_CLASSES = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-.0-~",
    "lower": "a-z",
    "print": " -.0-~",
    "punct": "!-.:-@\\[-`{-~",
    "space": " \\t\\n\\r",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
}


def _bracket(segment: str, start: int) -> tuple[str, int] | None:
    """A `[...]` expression at `start`: (regex class, index after it), or None when it is
    never closed (git then gives up on the whole pattern)."""
    index = start + 1
    negated = False
    if index < len(segment) and segment[index] in "!^":
        negated = True
        index += 1
    members: list[str] = []
    first = True
    while index < len(segment):
        char = segment[index]
        if char == "]" and not first:
            body = "".join(members)
            source = f"[^/{body}]" if negated else f"(?!/)[{body}]"
            return source, index + 1
        first = False
        if char == "\\" and index + 1 < len(segment):
            members.append(re.escape(segment[index + 1]))
            index += 2
        elif char == "[" and segment.startswith("[:", index):
            close = segment.find(":]", index + 2)
            if close < 0:
                members.append("\\[")
                index += 1
                continue
            name = segment[index + 2 : close]
            if name not in _POSIX_CLASSES:
                return None
            members.append(_POSIX_CLASSES[name])
            index = close + 2
        elif char == "-" and members and index + 1 < len(segment) and segment[index + 1] != "]":
            low = segment[index - 1]
            high = segment[index + 1]
            if low <= high:
                members.append("-" + re.escape(high))
            index += 2
        else:
            members.append(re.escape(char))
            index += 1
    return None
