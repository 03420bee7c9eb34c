"""What the model sees of a file of output: its text (invalid UTF-8 replaced), optionally with
trailing whitespace trimmed, cut to the tools' caps from the end — read from the file's end, so
its size does not matter.

A small file is read whole. A large one is read in a window before its last non-blank byte,
starting at a line boundary (`\\n` never occurs inside a UTF-8 sequence, so the window decodes
exactly as the whole file would there) — or, when the last line is longer than the window, at
the window's start, of which only the end is kept; the newlines before the window are counted
in blocks. The window is four times the byte cap: the kept lines fit in it, since decoding never
shrinks text.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import BinaryIO

from pith.tools import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, truncate_tail

__all__ = ["OutputTail", "count_newlines", "read_tail"]

_ASCII_SPACE = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"
"""The ASCII characters `str.rstrip()` removes."""
_BLOCK = 1 << 20


@dataclass(frozen=True)
class OutputTail:
    content: str
    """The end of the text, within the caps."""
    truncated: bool
    output_lines: int
    total_lines: int
    whole: str | None
    """All of the text, when the file was small enough to read whole."""


def read_tail(
    path: str,
    start: int = 0,
    *,
    strip: bool,
    max_lines: int = DEFAULT_MAX_LINES,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> OutputTail:
    """The text of `path` from byte `start` on, as `truncate_tail` would cut it (after
    `rstrip()` when `strip`)."""
    window = 4 * max_bytes
    with open(path, "rb") as handle:
        end = handle.seek(0, os.SEEK_END)
        if strip:
            end = _content_end(handle, start, end)
        low = max(start, end - window)
        handle.seek(low)
        raw = handle.read(end - low)
        if low > start:
            # Start at a line boundary, unless the last line fills the window (its end is cut)
            newline = raw.find(b"\n", 0, len(raw) - 1)
            if newline >= 0:
                low += newline + 1
                raw = raw[newline + 1 :]
        text = raw.decode("utf-8", "replace")
        if strip:
            text = text.rstrip()
        capped = truncate_tail(text, max_lines=max_lines, max_bytes=max_bytes)
        if low == start:
            return OutputTail(
                capped.content, capped.truncated, capped.output_lines, capped.total_lines, text
            )
        before = count_newlines(handle, start, low)
        total = before + text.count("\n") + (0 if text.endswith("\n") else 1)
        if not capped.truncated:
            # All the window's lines fit: the line before them (longer than the rest of the
            # window) is where the cut falls, and a cut tail drops the final newline.
            content = text[:-1] if text.endswith("\n") else text
            return OutputTail(content, True, capped.total_lines, total, None)
        return OutputTail(capped.content, True, capped.output_lines, total, None)


def count_newlines(handle: BinaryIO, start: int, end: int) -> int:
    """How many `\\n` bytes `handle[start:end]` holds, counted a block at a time."""
    handle.seek(start)
    count = 0
    position = start
    while position < end:
        block = handle.read(min(_BLOCK, end - position))
        if not block:
            break
        position += len(block)
        count += block.count(b"\n")
    return count


def _content_end(handle: BinaryIO, start: int, end: int) -> int:
    """Where the text ends once `rstrip()` has dropped its trailing whitespace: ASCII blanks
    skipped a block at a time, other whitespace (U+2028, NBSP, …) a character at a time."""
    while True:
        end = _ascii_content_end(handle, start, end)
        low = max(start, end - 4)
        handle.seek(low)
        tail = handle.read(end - low)
        first = len(tail) - 1
        while first > 0 and 0x80 <= tail[first] < 0xC0:  # back to the character's lead byte
            first -= 1
        try:
            last = tail[first:].decode("utf-8")  # a whole character decodes the same in place
        except UnicodeDecodeError:
            return end
        if not tail or not last.isspace():
            return end
        end = low + first


def _ascii_content_end(handle: BinaryIO, start: int, end: int) -> int:
    position = end
    while position > start:
        low = max(start, position - _BLOCK)
        handle.seek(low)
        block = handle.read(position - low)
        kept = len(block.rstrip(_ASCII_SPACE))
        if kept:
            return low + kept
        position = low
    return start
