"""Applying the removed views to a command's full output: the projection, streamed.

The output is read from a seekable reader (the bash tool's full-output file, or its bytes when
they stayed in memory) and the projection is written to a file descriptor, so memory stays the
same whatever the output's size. Plain `head` / `tail` (the planner's `simple` views, with their
line count) are applied in-process: each narrows the byte range of the output that survives,
found by scanning blocks for newlines, as the tools cut lines (a last line without a newline is
a line). Anything else runs as `bash -c '<view> | <view> …'` in the working directory with that
range fed on **stdin** through a pipe — never interpolated into the command text — and its
stdout and stderr written straight to the projection, as in the original pipeline, whose output
the bash tool merged.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import signal as signals
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import BinaryIO, Literal, Protocol

from pith.agent import AbortSignal

__all__ = ["Projection", "ViewLike", "apply_views", "in_process_range", "in_process_view"]

BLOCK_SIZE = 1 << 20


@dataclass(frozen=True)
class Projection:
    exit_code: int
    milliseconds: float


class ViewLike(Protocol):
    """What the projection needs of a view (`_plan.View`)."""

    @property
    def text(self) -> str: ...
    @property
    def simple(self) -> Literal["head", "tail"] | None: ...
    @property
    def count(self) -> int | None: ...
    @property
    def from_start(self) -> bool: ...


def in_process_view(view: ViewLike, data: bytes) -> bytes | None:
    """A plain `head`/`tail` applied to `data`; None when the view must run as a program."""
    cut = in_process_range(view, io.BytesIO(data), 0, len(data))
    return None if cut is None else data[cut[0] : cut[1]]


def in_process_range(
    view: ViewLike, reader: BinaryIO, start: int, end: int, block: int = BLOCK_SIZE
) -> tuple[int, int] | None:
    """The part of `reader[start:end]` a plain `head`/`tail` prints, as a byte range; None
    when the view must run as a program.

    Lines end at `\\n` only, as head and tail count them (a progress bar's `\\r` ends none);
    a last line without a newline is a line. At most `block` bytes are held at a time."""
    if view.simple is None or view.count is None:
        return None
    count = view.count
    if view.simple == "head":
        return start, _after_lines(reader, start, end, count, block)
    if view.from_start:  # tail -n +N: from line N on (+0 is +1)
        return _after_lines(reader, start, end, max(count - 1, 0), block), end
    if count == 0:
        return end, end
    return _last_lines_start(reader, start, end, count, block), end


def _after_lines(reader: BinaryIO, start: int, end: int, count: int, block: int) -> int:
    """Where the first `count` lines of the range end (its end when it has fewer)."""
    if count <= 0:
        return start
    position = start
    while count > 0 and position < end:
        reader.seek(position)
        chunk = reader.read(min(block, end - position))
        if not chunk:
            return end
        found = -1
        while count > 0:
            found = chunk.find(b"\n", found + 1)
            if found < 0:
                break
            count -= 1
        if count == 0:
            return position + found + 1
        position += len(chunk)
    return end


def _last_lines_start(reader: BinaryIO, start: int, end: int, count: int, block: int) -> int:
    """Where the last `count` lines of the range start (its start when it has fewer)."""
    position = end
    if end > start:
        reader.seek(end - 1)
        if reader.read(1) == b"\n":
            position = end - 1  # the final newline ends the last line, it starts none
    while position > start:
        low = max(start, position - block)
        reader.seek(low)
        chunk = reader.read(position - low)
        found = len(chunk)
        while True:
            found = chunk.rfind(b"\n", 0, found)
            if found < 0:
                break
            count -= 1
            if count == 0:
                return low + found + 1
        position = low
    return start


async def apply_views(
    views: Sequence[ViewLike],
    reader: BinaryIO,
    out: int,
    cwd: str,
    shell: str,
    signal: AbortSignal | None = None,
) -> Projection:
    """Run `views` (in pipeline order) over everything `reader` holds, writing what they print
    to the descriptor `out`: in-process while they are plain head/tail, the rest through the
    shell, fed on stdin."""
    started = time.monotonic()
    start, end = 0, reader.seek(0, os.SEEK_END)
    remaining = list(views)
    while remaining:
        cut = await asyncio.to_thread(in_process_range, remaining[0], reader, start, end)
        if cut is None:
            break
        start, end = cut
        remaining.pop(0)
    if not remaining:
        await asyncio.to_thread(_copy, reader, start, end, out)
        return Projection(0, (time.monotonic() - started) * 1000)
    script = " | ".join(view.text for view in remaining)
    code = await _run_views(script, reader, (start, end), out, cwd, shell, signal)
    return Projection(code, (time.monotonic() - started) * 1000)


async def _run_views(
    script: str,
    reader: BinaryIO,
    part: tuple[int, int],
    out: int,
    cwd: str,
    shell: str,
    signal: AbortSignal | None,
) -> int:
    feed, stdin = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            shell,
            "-c",
            script,
            cwd=cwd,
            stdin=feed,
            stdout=out,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
    except BaseException:
        os.close(stdin)
        raise
    finally:
        os.close(feed)  # the views hold the only read end now
    unsubscribe = signal.on_abort(lambda: _kill(process)) if signal is not None else None
    try:
        # A thread writes the range into the pipe: a view that stops reading (`grep -m1`)
        # ends the copy with a broken pipe, a slow one slows it down; nothing piles up.
        feeder = asyncio.ensure_future(asyncio.to_thread(_feed, reader, *part, stdin))
        try:
            code = await process.wait()
        except BaseException:
            _kill(process)  # the copy then ends on a broken pipe
            raise
        finally:
            await feeder
    finally:
        if unsubscribe is not None:
            unsubscribe()
    return 128 - code if code < 0 else code


def _feed(reader: BinaryIO, start: int, end: int, descriptor: int) -> None:
    try:
        _copy(reader, start, end, descriptor)
    except BrokenPipeError:
        pass  # the views are done reading, as `head` may be in a real pipe
    finally:
        os.close(descriptor)


def _copy(reader: BinaryIO, start: int, end: int, descriptor: int) -> None:
    """Write `reader[start:end]` to `descriptor`, a block at a time."""
    position = start
    while position < end:
        reader.seek(position)
        chunk = reader.read(min(BLOCK_SIZE, end - position))
        if not chunk:
            return
        position += len(chunk)
        view = memoryview(chunk)
        while view:
            written = os.write(descriptor, view)
            view = view[written:]


def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signals.SIGKILL)
