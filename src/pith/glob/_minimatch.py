"""The minimatch glob: the patterns in settings `skills` / `prompts` lists, following the
`minimatch` rules Pi applies to them: `*`, `?` and `[...]` stay within one path segment, a
`**` segment matches any number of segments, `{a,b}` and `{1..3}` expand, a leading `.` in a
path segment is matched only by a pattern segment that starts with `.`, matching is
case-sensitive, and a leading `!` negates. (Extended globs such as `+(a|b)` are not supported:
they match literally.)"""

from __future__ import annotations

import re
from functools import lru_cache

from pith.glob._translate import segment_source

__all__ = ["minimatch"]


def minimatch(path: str, pattern: str) -> bool:
    """Whether the `/`-separated `path` matches `pattern`."""
    negated = False
    while pattern.startswith("!"):
        negated = not negated
        pattern = pattern[1:]
    if pattern.startswith("#"):
        return negated
    matched = any(
        _match_segments(path.split("/"), _compile(expanded)) for expanded in _expand_braces(pattern)
    )
    return matched != negated


@lru_cache(maxsize=256)
def _compile(pattern: str) -> tuple[re.Pattern[str] | None, ...]:
    """One compiled regex per pattern segment; None for a `**` segment."""
    return tuple(None if part == "**" else _segment_regex(part) for part in pattern.split("/"))


def _match_segments(
    parts: list[str], pattern: tuple[re.Pattern[str] | None, ...], *, at_start: bool = True
) -> bool:
    if not pattern:
        return not parts
    head, rest = pattern[0], pattern[1:]
    if head is None:
        # `**`: zero or more segments, none of them hidden, `.` or `..`; a final `**` after
        # other segments takes at least one (`a/**` does not match `a`).
        least = 1 if not rest and not at_start else 0
        for taken in range(least, len(parts) + 1):
            if taken and parts[taken - 1].startswith("."):
                return False
            if _match_segments(parts[taken:], rest, at_start=False):
                return True
        return False
    return (
        bool(parts)
        and head.fullmatch(parts[0]) is not None
        and _match_segments(parts[1:], rest, at_start=False)
    )


def _segment_regex(segment: str) -> re.Pattern[str]:
    source = segment_source(segment, _bracket) or ""  # `_bracket` never gives up
    if not segment.startswith("."):
        # `*`, `?` and classes never match a leading dot; `.` and `..` never match at all.
        source = "(?!\\.)" + source
    return re.compile(source)


def _bracket(segment: str, start: int) -> tuple[str, int]:
    """The `[...]` at `start`, or a literal `[` when it is never closed."""
    close = _class_end(segment, start)
    if close < 0:
        return "\\[", start + 1
    body = segment[start + 1 : close]
    negated = body[:1] in ("!", "^")
    if negated:
        body = body[1:]
    members = _class_members(body)
    if not members:  # every member was a reversed range: the class matches no character
        return ("[^/]" if negated else "(?!)"), close + 1
    return (f"[^/{members}]" if negated else f"[{members}]"), close + 1


def _class_members(body: str) -> str:
    """A class body as regex class members, reversed ranges (`z-a`) left out: such a range
    names no character, so it matches nothing instead of making the pattern an error."""
    atoms = list(body)  # a backslash inside a class is a literal character here
    out: list[str] = []
    index = 0
    while index < len(atoms):
        if index + 2 < len(atoms) and atoms[index + 1] == "-":
            low, high = atoms[index], atoms[index + 2]
            if low <= high:
                out.append(f"{_member(low)}-{_member(high)}")
            index += 3
            continue
        out.append(_member(atoms[index]))
        index += 1
    return "".join(out)


def _member(char: str) -> str:
    return "\\" + char if char in "\\]" else char


def _class_end(segment: str, start: int) -> int:
    index = start + 1
    if index < len(segment) and segment[index] in "!^":
        index += 1
    if index < len(segment) and segment[index] == "]":
        index += 1
    while index < len(segment):
        if segment[index] == "]":
            return index
        index += 2 if segment[index] == "\\" else 1
    return -1


_RANGE = re.compile(r"^(-?\d+)\.\.(-?\d+)$|^([a-zA-Z])\.\.([a-zA-Z])$")


def _expand_braces(pattern: str) -> list[str]:
    """`a{b,c}d` -> `abd`, `acd`; `{1..3}` -> 1, 2, 3. A brace pair without a comma or range
    is literal."""
    start = _find_unescaped(pattern, "{", 0)
    while start >= 0:
        close, commas = _brace_end(pattern, start)
        if close < 0:
            return [pattern]
        inner = pattern[start + 1 : close]
        head, tail = pattern[:start], pattern[close + 1 :]
        options: list[str] | None = None
        if commas:
            starts = [0, *(comma + 1 for comma in commas)]
            ends = [*commas, len(inner)]
            options = [inner[a:b] for a, b in zip(starts, ends, strict=True)]
        else:
            found = _RANGE.match(inner)
            if found:
                options = _range(found)
        if options is not None:
            return [
                expanded for option in options for expanded in _expand_braces(head + option + tail)
            ]
        start = _find_unescaped(pattern, "{", start + 1)
    return [pattern]


def _range(found: re.Match[str]) -> list[str]:
    if found.group(1) is not None:
        low, high = int(found.group(1)), int(found.group(2))
        step = 1 if low <= high else -1
        return [str(number) for number in range(low, high + step, step)]
    low_char, high_char = ord(found.group(3)), ord(found.group(4))
    step = 1 if low_char <= high_char else -1
    return [chr(code) for code in range(low_char, high_char + step, step)]


def _find_unescaped(text: str, char: str, start: int) -> int:
    index = start
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        if text[index] == char:
            return index
        index += 1
    return -1


def _brace_end(text: str, start: int) -> tuple[int, list[int]]:
    """(index of the matching `}`, offsets of top-level commas inside), or (-1, [])."""
    depth = 0
    commas: list[int] = []
    index = start
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index, commas
        elif char == "," and depth == 1:
            commas.append(index - start - 1)
        index += 1
    return -1, []
