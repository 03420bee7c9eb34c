"""Select a line range from a file of any size, keeping only what `truncate_head` can show.

The file is read in chunks and decoded incrementally. Lines before the range are skipped, lines
after it only counted, and within the range only the lines up to one past the caps are stored;
the rest are measured. The result equals splitting the whole text on `\\n`, slicing the range
and truncating it, which is what Pi's read tool computes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import BinaryIO

from pith.agent import AbortSignal, ToolError
from pith.tools._truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    truncate_head,
    utf8_len,
)

__all__ = ["LineSelection", "select_lines"]

CHUNK_SIZE = 1 << 20


@dataclass
class LineSelection:
    total_file_lines: int
    truncation: TruncationResult
    first_line_bytes: int
    invalid_utf8: bool


class _Utf8Stream:
    """Incremental UTF-8 decoding that notes whether any byte was invalid."""

    def __init__(self) -> None:
        self.pending = b""
        self.invalid = False

    def decode(self, chunk: bytes, final: bool = False) -> str:
        data = self.pending + chunk
        cut = len(data) if final else _complete_prefix(data)
        self.pending = data[cut:]
        body = data[:cut]
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError:
            self.invalid = True
            return body.decode("utf-8", "replace")


def _complete_prefix(data: bytes) -> int:
    """Length of `data` without a trailing, possibly incomplete UTF-8 sequence."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 != 0x80:  # a lead byte or ASCII
            need = (
                1 if byte < 0x80 else 2 if byte >> 5 == 0b110 else 3 if byte >> 4 == 0b1110 else 4
            )
            return len(data) - back if back < need and byte >= 0xC0 else len(data)
    return len(data)


class _Selector:
    def __init__(self, start_line: int, end_line: float) -> None:
        self.start = start_line
        self.end = end_line
        self.line = 0
        self.stored: list[str] = []
        self.stored_bytes = 0
        self.past_caps = False
        self.selected = 0
        self.content_bytes = 0
        self.first_line_bytes = 0
        self.last_line_empty = True
        self.pieces: list[str] | None = []
        self.line_bytes = 0
        self.line_has_text = False

    def _in_range(self) -> bool:
        return self.start <= self.line < self.end

    def _append(self, text: str, begin: int, end: int) -> None:
        self.line_has_text = True
        piece = text[begin:end]
        size = utf8_len(piece)
        self.content_bytes += size
        if self.pieces is None:
            return
        # A line over the byte cap is never shown: keep only enough of it to know that.
        if self.line_bytes <= DEFAULT_MAX_BYTES:
            self.pieces.append(piece)
        self.line_bytes += size

    def _finish_line(self) -> None:
        if self.pieces is not None:
            if self.selected == 0:
                self.first_line_bytes = self.line_bytes
            # Store one line past the caps: truncate_head ignores a trailing empty line.
            if len(self.stored) > DEFAULT_MAX_LINES or self.stored_bytes > DEFAULT_MAX_BYTES:
                self.past_caps = True
            text = "".join(self.pieces)
            self.stored_bytes += utf8_len(text) + (1 if self.stored else 0)
            self.stored.append(text)
        self.selected += 1
        self.last_line_empty = not self.line_has_text
        self.pieces = None if self.past_caps else []
        self.line_bytes = 0
        self.line_has_text = False

    def feed(self, text: str) -> None:
        position = 0
        while True:
            if self.line >= self.end:
                self.line += text.count("\n", position)
                return
            if self.line < self.start:
                while self.line < self.start:
                    newline = text.find("\n", position)
                    if newline == -1:
                        return
                    self.line += 1
                    position = newline + 1
                continue
            if self.pieces is None:
                position = self._consume_counted(text, position)
                if position == len(text):
                    return
                continue
            newline = text.find("\n", position)
            stop = len(text) if newline == -1 else newline
            if stop > position:
                self._append(text, position, stop)
            if newline == -1:
                return
            self._finish_line()
            self.line += 1
            position = newline + 1

    def _consume_counted(self, text: str, begin: int) -> int:
        """Measure (not store) range lines past the caps in bulk; returns the new position."""
        newlines = text.count("\n", begin)
        stop = len(text)
        if newlines >= self.end - self.line:  # the range ends inside this text
            newlines = int(self.end - self.line)
            stop = begin
            for _ in range(newlines):
                stop = text.find("\n", stop) + 1
        self.content_bytes += utf8_len(text[begin:stop]) - newlines
        if newlines == 0:
            self.line_has_text = self.line_has_text or stop > begin
            return stop
        last = text.rfind("\n", begin, stop)
        if newlines == 1:
            self.last_line_empty = not self.line_has_text and last == begin
        else:
            self.last_line_empty = text.rfind("\n", begin, last) == last - 1
        self.selected += newlines
        self.line += newlines
        self.line_has_text = last < stop - 1
        return stop

    def finish(self) -> None:
        if self._in_range():
            self._finish_line()


def select_lines(
    handle: BinaryIO, start_line: int, limit: int | None, signal: AbortSignal
) -> LineSelection:
    """Lines `[start_line, start_line + limit)` of the file, truncated by the head policy."""
    selector = _Selector(start_line, math.inf if limit is None else start_line + limit)
    stream = _Utf8Stream()
    while chunk := handle.read(CHUNK_SIZE):
        if signal.aborted:
            raise ToolError("Operation aborted")
        selector.feed(stream.decode(chunk))
    selector.feed(stream.decode(b"", final=True))
    selector.finish()

    truncation = truncate_head("\n".join(selector.stored))
    selected_bytes = selector.content_bytes + max(0, selector.selected - 1)
    truncation.total_bytes = selected_bytes
    truncation.total_lines = (
        0 if selected_bytes == 0 else selector.selected - (1 if selector.last_line_empty else 0)
    )
    return LineSelection(
        total_file_lines=selector.line + 1,
        truncation=truncation,
        first_line_bytes=selector.first_line_bytes,
        invalid_utf8=stream.invalid,
    )
