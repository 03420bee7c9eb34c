"""The ripgrep glob: ignore-file lines and `--glob` overrides as ripgrep reads them (its
`ignore` and `globset` crates), for the pure-Python file walk of `find` and `grep`.

A line is one rule: `#` starts a comment, trailing whitespace is dropped unless escaped, a
leading `!` re-includes, a leading `/` anchors to the ignore file's folder, a trailing `/`
matches directories only; a pattern without `/` matches a name at any depth. In the glob,
`*` `?` and `[...]` stay within one segment, `**` crosses segments, `{a,b}` alternates and
`\\` escapes. Matching is case-sensitive, over the whole path, on its UTF-8 bytes.
`ripgrep_verdict` asks a file's rules: the last matching rule wins.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["GlobError", "RipgrepRule", "parse_ripgrep_rule", "ripgrep_verdict"]

_PREFIX, _SUFFIX, _MIDDLE = "(?:/?|.*/)", "/.*", "(?:/|/.*/)"
_ANY_NAME = "[^/]*"
# Rust's `char::is_whitespace`, which ripgrep trims from the end of ignore lines.
_WHITESPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B)))
_WHITESPACE += "\u2028\u2029\u202f\u205f\u3000"


class GlobError(ValueError):
    """A glob ripgrep would reject."""


@dataclass(frozen=True)
class RipgrepRule:
    """One ignore line or `--glob`: its regex over path bytes, and how a match counts."""

    regex: re.Pattern[bytes]
    whitelist: bool
    dir_only: bool


def parse_ripgrep_rule(line: str, *, unclosed_class_ok: bool = True) -> RipgrepRule | None:
    """One gitignore line as ripgrep reads it; None for blanks and comments.

    An unclosed `[` is literal in ignore files; in `--glob` it is an error."""
    if line.startswith("#"):
        return None
    if not line.endswith("\\ "):
        line = line.rstrip(_WHITESPACE)
    if not line:
        return None
    whitelist = absolute = False
    if line.startswith(("\\!", "\\#")):
        line = line[1:]
    else:
        if line.startswith("!"):
            whitelist, line = True, line[1:]
        if line.startswith("/"):
            absolute, line = True, line[1:]
    dir_only = line.endswith("/")
    if dir_only:
        line = line[:-1]
        if line.endswith("\\"):
            line = line[:-1]
    glob = line
    if not absolute and "/" not in line and not (glob.startswith("**/") or glob == "**"):
        glob = "**/" + glob
    if glob.endswith("/**"):
        glob += "/*"
    return RipgrepRule(_glob_regex(glob, unclosed_class_ok=unclosed_class_ok), whitelist, dir_only)


def _glob_regex(glob: str, *, unclosed_class_ok: bool = True) -> re.Pattern[bytes]:
    """globset's regex for `glob` (`*` stops at `/`, `\\` escapes); matches path bytes."""
    branches: list[list[str]] = [[]]
    opened: list[int] = []
    index, unclosed_class = 0, False
    while index < len(glob):
        char = glob[index]
        index += 1
        if char == "?":
            branches[-1].append("[^/]")
        elif char == "*":
            index = _star(glob, index, branches, bool(opened))
        elif char == "[" and not unclosed_class:
            end, token = _class(glob, index)
            unclosed_class = end < 0
            if unclosed_class and not unclosed_class_ok:
                raise GlobError(f"unclosed character class in {glob!r}")
            index = index if unclosed_class else end
            branches[-1].append(token)
        elif char == "{":
            opened.append(len(branches))
            branches.append([])
        elif char == "}":
            if not opened:
                raise GlobError(f"unopened alternate group in {glob!r}")
            start = opened.pop()
            parts = ["".join(branch) for branch in branches[start:] if "".join(branch)]
            del branches[start:]
            branches[-1].append("(?:" + "|".join(parts) + ")" if parts else "")
        elif char == "," and opened:
            branches.append([])
        elif char == "\\":
            if index == len(glob):
                raise GlobError(f"dangling '\\' in {glob!r}")
            branches[-1].append(_literal(glob[index]))
            index += 1
        else:
            branches[-1].append(_literal(char))
    if opened:
        raise GlobError(f"unclosed alternate group in {glob!r}")
    tokens = branches[0]
    body = ".*" if tokens == [_PREFIX] else "".join(tokens)
    return re.compile(body.encode("ascii"), re.DOTALL)


def _star(glob: str, index: int, branches: list[list[str]], in_group: bool) -> int:
    """Handle the `*` before `index`; returns where parsing continues."""
    tokens = branches[-1]
    if glob[index : index + 1] != "*":
        tokens.append(_ANY_NAME)
        return index
    prev = glob[index - 2] if index >= 2 else ""
    index += 1
    after = glob[index : index + 1]
    if not tokens:
        if after not in ("", "/"):
            tokens += [_ANY_NAME, _ANY_NAME]
            return index
        tokens.append(_PREFIX)
        return index + len(after)
    if prev != "/" or not (after == "" or after == "/" or (in_group and after in ",}")):
        tokens += [_ANY_NAME, _ANY_NAME]
        return index
    last = tokens.pop()
    if last in (_PREFIX, _SUFFIX):
        tokens.append(last)
    else:
        tokens.append(_MIDDLE if after == "/" else _SUFFIX)
    return index + (after == "/")


def _class(glob: str, index: int) -> tuple[int, str]:
    """A `[...]` class starting after `[` at `index`: (end, regex), or (-1, literal `[`)."""
    negated = glob[index : index + 1] in ("!", "^")
    index += negated
    ranges: list[list[str]] = []
    first, in_range = True, False
    while True:
        if index == len(glob):
            return -1, _literal("[")
        char = glob[index]
        index += 1
        if char == "]" and not first:
            break
        if char == "-" and not first and not in_range:
            in_range = True
        elif in_range:
            if char < ranges[-1][0]:
                raise GlobError(f"invalid range {ranges[-1][0]}-{char} in {glob!r}")
            ranges[-1][1], in_range = char, False
        else:
            ranges.append([char, char])
        first = False
    if in_range:
        ranges.append(["-", "-"])
    body = "".join(_literal(lo) + ("" if lo == hi else "-" + _literal(hi)) for lo, hi in ranges)
    return index, "[" + "^" * negated + body + "]"


def _literal(char: str) -> str:
    """`char` as its UTF-8 bytes in an ASCII regex, as globset's byte-oriented regex has it."""
    return "".join(
        re.escape(chr(byte)) if byte < 0x80 else f"\\x{byte:02x}" for byte in char.encode()
    )


def ripgrep_verdict(rules: Sequence[RipgrepRule], path: bytes, is_dir: bool) -> bool | None:
    """True to ignore, False for a whitelist (`!`) match, None when no rule matches."""
    for rule in reversed(rules):
        if (is_dir or not rule.dir_only) and rule.regex.fullmatch(path):
            return not rule.whitelist
    return None
