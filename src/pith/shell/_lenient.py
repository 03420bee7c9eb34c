"""Parsing a command the way bash runs it: `parse_bash`, plus what the parser refuses and bash
accepts.

The parser refuses an array element assigned before a command (`a[$(cmd)]=1 ls`: "inline
variables cannot be arrays"), which bash accepts. Such a command is parsed with the blank
after that assignment read as `;` — the same commands, in the same order, so an analysis sees every
one of them — and the tree keeps the command's own text (the byte offsets do not move). The
permission system parses this way; the guard, which rewrites commands, refuses what the parser
refuses.
"""

from __future__ import annotations

import re

from pith.shell._parse import ShellSyntaxError, ShellTree, parse_bash

__all__ = ["parse_bash_leniently"]

_INLINE_ARRAY = re.compile(r"(\d+):(\d+): inline variables cannot be arrays")
_MAX_REPAIRS = 16
_ENDS_WORD = frozenset(" \t\n|&;()<>")


def parse_bash_leniently(text: str) -> ShellTree:
    """`parse_bash(text)`, also for array elements assigned before a command."""
    try:
        return parse_bash(text)
    except ShellSyntaxError as error:
        first = error
    data = text.encode("utf-8", "surrogatepass")
    message = str(first)
    for _ in range(_MAX_REPAIRS):
        match = _INLINE_ARRAY.match(message)
        if match is None:
            break
        start = _offset(data, int(match.group(1)), int(match.group(2)))
        end = None if start is None else _assignment_end(data, start)
        if end is None or data[end : end + 1] not in (b" ", b"\t"):
            break
        data = data[:end] + b";" + data[end + 1 :]
        try:
            tree = parse_bash(data.decode("utf-8", "surrogatepass"))
        except ShellSyntaxError as error:
            message = str(error)
            continue
        return ShellTree(text, text.encode("utf-8", "surrogatepass"), tree.root)
    raise first


def _offset(data: bytes, line: int, column: int) -> int | None:
    """The byte offset of the parser's `line:column` (both from 1, the column in bytes)."""
    start = 0
    for _ in range(line - 1):
        start = data.find(b"\n", start) + 1
        if start == 0:
            return None
    offset = start + column - 1
    return offset if offset < len(data) else None


def _assignment_end(data: bytes, start: int) -> int | None:
    """Where the assignment word `name[subscript]=value` starting at `start` ends: the first
    blank or operator outside quotes, substitutions and the subscript; None when unclear."""
    text = data.decode("utf-8", "surrogatepass")
    prefix = len(data[:start].decode("utf-8", "surrogatepass"))
    end = _word_end(text, prefix)
    return None if end is None else len(text[:end].encode("utf-8", "surrogatepass"))


def _word_end(text: str, i: int) -> int | None:
    brackets = 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char == "'":
            close = text.find("'", i + 1)
            if close < 0:
                return None
            i = close + 1
            continue
        if char in '"`':
            found = _closing(text, i + 1, char)
            if found is None:
                return None
            i = found
            continue
        if char == "$" and text[i + 1 : i + 2] in ("(", "{"):
            found = _closing(text, i + 2, ")" if text[i + 1] == "(" else "}")
            if found is None:
                return None
            i = found
            continue
        if char == "[":
            brackets += 1
        elif char == "]":
            brackets -= 1
        elif brackets <= 0 and char in _ENDS_WORD:
            return i
        i += 1
    return i


def _closing(text: str, i: int, close: str) -> int | None:
    """The index after the `close` ending a group opened just before `i` (quotes, nested
    groups and escapes skipped); None when it is not found."""
    opening = {")": "(", "}": "{"}.get(close)
    depth = 1
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char == close and (opening is None or depth == 1):
            return i + 1
        if char == "'" and close != '"':
            quote_end = text.find("'", i + 1)
            if quote_end < 0:
                return None
            i = quote_end + 1
            continue
        if char == '"' and close != '"':
            found = _closing(text, i + 1, '"')
            if found is None:
                return None
            i = found
            continue
        if char == "$" and text[i + 1 : i + 2] in ("(", "{"):
            found = _closing(text, i + 2, ")" if text[i + 1] == "(" else "}")
            if found is None:
                return None
            i = found
            continue
        if opening is not None and char == opening:
            depth += 1
        elif opening is not None and char == close:
            depth -= 1
        i += 1
    return None
