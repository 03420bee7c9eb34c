"""Applying the removed views to a command's full output: the projection.

Plain `head` / `tail` (the planner's `simple` views, with their line count) are applied
in-process on lines, as the tools cut them (a last line without a newline is a line).
Anything else runs as `bash -c '<view> | <view> …'` in the working directory with the output
fed on **stdin** — never interpolated into the command text — and its stderr merged into its
stdout, as in the original pipeline, whose output the bash tool merged.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal as signals
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from pith.agent import AbortSignal

__all__ = ["Projection", "ViewLike", "apply_views", "in_process_view"]


@dataclass(frozen=True)
class Projection:
    output: bytes
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
    """A plain `head`/`tail` applied to `data`; None when the view must run as a program.

    Lines end at `\n` only, as head and tail count them (a progress bar's `\r` ends none);
    a last line without a newline is a line. The cut is found with `find`/`rfind`, never by
    splitting: the output of a long build can hold millions of lines."""
    if view.simple is None or view.count is None:
        return None
    count = view.count
    if view.simple == "head":
        return data[: _after_lines(data, count)]
    if view.from_start:  # tail -n +N: from line N on (+0 is +1)
        return data[_after_lines(data, max(count - 1, 0)) :]
    if count == 0:
        return b""
    position = len(data) - 1 if data.endswith(b"\n") else len(data)
    for _ in range(count):
        position = data.rfind(b"\n", 0, position)
        if position < 0:
            return data
    return data[position + 1 :]


def _after_lines(data: bytes, count: int) -> int:
    """Where the first `count` lines of `data` end (its end when it has fewer)."""
    position = 0
    for _ in range(count):
        found = data.find(b"\n", position)
        if found < 0:
            return len(data)
        position = found + 1
    return position


async def apply_views(
    views: Sequence[ViewLike],
    data: bytes,
    cwd: str,
    shell: str,
    signal: AbortSignal | None = None,
) -> Projection:
    """Run `views` (in pipeline order) over `data`: in-process while they are plain
    head/tail, the rest through the shell, fed on stdin."""
    started = time.monotonic()
    remaining = list(views)
    while remaining:
        cut = in_process_view(remaining[0], data)
        if cut is None:
            break
        data = cut
        remaining.pop(0)
    if not remaining:
        return Projection(data, 0, (time.monotonic() - started) * 1000)
    script = " | ".join(view.text for view in remaining)
    process = await asyncio.create_subprocess_exec(
        shell,
        "-c",
        script,
        cwd=cwd,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    unsubscribe = signal.on_abort(lambda: _kill(process)) if signal is not None else None
    try:
        output, _ = await process.communicate(data)
    finally:
        if unsubscribe is not None:
            unsubscribe()
    code = process.returncode if process.returncode is not None else 1
    if code < 0:
        code = 128 - code
    return Projection(output, code, (time.monotonic() - started) * 1000)


def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signals.SIGKILL)
