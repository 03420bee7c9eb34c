"""Reading a session file's lines in fixed-size blocks, forwards or backwards from its end.

Sessions grow without bound, so nothing here reads a whole file at once: memory stays at a
block or two, plus the longest line asked for (a line is only ever held whole when it is
handed out).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import BinaryIO

__all__ = [
    "BLOCK_BYTES",
    "copy_range",
    "count_newlines",
    "end_of_last_line",
    "last_non_blank_byte",
    "line_blocks",
    "reverse_lines",
]

BLOCK_BYTES = 1 << 20
_BLANK = b" \t\r\n"


def end_of_last_line(handle: BinaryIO, size: int) -> int:
    """The offset just past the last newline in the first `size` bytes; 0 if there is none."""
    position = size
    while position > 0:
        start = max(0, position - BLOCK_BYTES)
        handle.seek(start)
        index = handle.read(position - start).rfind(b"\n")
        if index >= 0:
            return start + index + 1
        position = start
    return 0


def count_newlines(handle: BinaryIO, start: int, end: int) -> int:
    """How many newlines the bytes from `start` to `end` hold, read a block at a time beside
    the handle's own reading (its position does not move)."""
    descriptor = handle.fileno()
    count = 0
    while start < end:
        chunk = os.pread(descriptor, min(BLOCK_BYTES, end - start), start)
        if not chunk:
            break
        count += chunk.count(b"\n")
        start += len(chunk)
    return count


def line_blocks(handle: BinaryIO, start: int, end: int) -> Iterator[bytes]:
    """The bytes from `start` to `end` in blocks of whole lines, each ending in a newline.

    A line longer than a block comes in a block of its own. Bytes after the last newline
    before `end` come last, as they are.
    """
    handle.seek(start)
    remaining = end - start
    pending: list[bytes] = []
    while remaining > 0:
        chunk = handle.read(min(BLOCK_BYTES, remaining))
        if not chunk:
            break  # the file is shorter than it was
        remaining -= len(chunk)
        cut = chunk.rfind(b"\n") + 1
        if not cut:
            pending.append(chunk)
            continue
        pending.append(chunk[:cut])
        yield b"".join(pending)
        pending = [chunk[cut:]] if cut < len(chunk) else []
    rest = b"".join(pending)
    if rest:
        yield rest


def reverse_lines(handle: BinaryIO, size: int, budget: int) -> Iterator[bytes]:
    """The lines of the first `size` bytes, last first, without their newlines; the first one
    is what follows the last newline (empty when the file ends in one).

    Stops once `budget` bytes have been read; a line it was still putting together then is
    left out.
    """
    position = size
    read = 0
    later: list[bytes] = []  # the pieces of the line being put together, last piece first
    while position > 0:
        if read >= budget:
            return
        start = max(0, position - BLOCK_BYTES)
        handle.seek(start)
        chunk = handle.read(position - start)
        read += len(chunk)
        position = start
        parts = chunk.split(b"\n")
        if len(parts) == 1:
            later.append(chunk)
            continue
        later.append(parts[-1])
        yield b"".join(reversed(later))
        yield from reversed(parts[1:-1])
        later = [parts[0]]
    yield b"".join(reversed(later))


def last_non_blank_byte(handle: BinaryIO, start: int, end: int) -> int | None:
    """The last byte between `start` and `end` that is not JSON whitespace, or None."""
    position = end
    while position > start:
        begin = max(start, position - BLOCK_BYTES)
        handle.seek(begin)
        stripped = handle.read(position - begin).rstrip(_BLANK)
        if stripped:
            return stripped[-1]
        position = begin
    return None


def copy_range(handle: BinaryIO, start: int, end: int, target: BinaryIO) -> None:
    """Copy the bytes from `start` to `end` to `target`, a block at a time."""
    handle.seek(start)
    remaining = end - start
    while remaining > 0:
        chunk = handle.read(min(BLOCK_BYTES, remaining))
        if not chunk:
            break
        target.write(chunk)
        remaining -= len(chunk)
