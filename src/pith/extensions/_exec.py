"""`api.exec`: run a program (no shell) with a timeout, an abort signal and a size cap."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal as signals
from dataclasses import dataclass

from pith.agent import AbortSignal

__all__ = ["DEFAULT_MAX_BUFFER", "ExecResult", "run_program"]

DEFAULT_MAX_BUFFER = 256 * 1024 * 1024
KILL_GRACE_SECONDS = 5.0


@dataclass(frozen=True)
class ExecResult:
    stdout: str
    stderr: str
    code: int
    """The exit status; 128 + n when a signal ended the program."""
    killed: bool
    """Stopped by the timeout or the abort signal."""
    truncated: bool
    """Output past `max_buffer` bytes (per stream) was dropped."""


async def run_program(
    command: str,
    args: list[str],
    *,
    cwd: str,
    timeout: float | None = None,
    signal: AbortSignal | None = None,
    max_buffer: int = DEFAULT_MAX_BUFFER,
) -> ExecResult:
    """Run `command` with `args` in `cwd`; SIGTERM on timeout or abort, SIGKILL 5 s later.

    Raises `FileNotFoundError` / `PermissionError` when the program cannot start.
    """
    process = await asyncio.create_subprocess_exec(
        command,
        *args,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    killed = False
    stop = asyncio.Event()

    def kill() -> None:
        nonlocal killed
        killed = True
        stop.set()

    unsubscribe = signal.on_abort(kill) if signal is not None else None
    timer = asyncio.get_running_loop().call_later(timeout, kill) if timeout is not None else None
    out_task = asyncio.ensure_future(_read_capped(process.stdout, max_buffer))
    err_task = asyncio.ensure_future(_read_capped(process.stderr, max_buffer))
    waiter = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({out_task, err_task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        while not (out_task.done() and err_task.done()) and not killed:
            await asyncio.wait({out_task, err_task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if killed:
            await _terminate(process)
        stdout, out_cut = await out_task
        stderr, err_cut = await err_task
        code = await process.wait()
    finally:
        waiter.cancel()
        if timer is not None:
            timer.cancel()
        if unsubscribe is not None:
            unsubscribe()
        if process.returncode is None:
            _signal_group(process.pid, signals.SIGKILL)
            await process.wait()
    return ExecResult(
        stdout=stdout.decode("utf-8", "replace"),
        stderr=stderr.decode("utf-8", "replace"),
        code=128 - code if code < 0 else code,
        killed=killed,
        truncated=out_cut or err_cut,
    )


async def _read_capped(stream: asyncio.StreamReader, limit: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    cut = False
    while chunk := await stream.read(1 << 16):
        room = limit - size
        if room > 0:
            chunks.append(chunk[:room])
            size += min(room, len(chunk))
        if len(chunk) > room:
            cut = True  # keep draining so the program never blocks on a full pipe
    return b"".join(chunks), cut


async def _terminate(process: asyncio.subprocess.Process) -> None:
    _signal_group(process.pid, signals.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), KILL_GRACE_SECONDS)
    except TimeoutError:
        _signal_group(process.pid, signals.SIGKILL)


def _signal_group(pid: int, which: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, which)
