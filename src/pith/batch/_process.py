"""One child process in its own process group, waited on with a deadline and an abort flag."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

__all__ = ["Ended", "run_process"]

_POLL = 0.1
_GRACE = 5.0


@dataclass(frozen=True, slots=True)
class Ended:
    """How a child ended: its exit code, or that it was stopped (timeout / abort)."""

    exit: int | None
    pid: int
    timed_out: bool = False
    aborted: bool = False


def run_process(
    command: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdin: IO[bytes] | int,
    stdout: IO[bytes],
    stderr: IO[bytes] | int,
    deadline: float | None,
    abort: threading.Event,
    on_start: Callable[[int], None] | None = None,
) -> Ended:
    """Run `command` in a new session (its own process group) and wait for it. Past
    `deadline` (a time.monotonic() value) or once `abort` is set, the whole group gets SIGTERM,
    then SIGKILL after a grace period: nothing it started outlives it."""
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=dict(env),
        stdin=stdin,
        stdout=stdout,
        stderr=stderr,
        start_new_session=True,
    )
    if on_start is not None:
        on_start(process.pid)
    timed_out = aborted = False
    while True:
        try:
            code = process.wait(timeout=_POLL)
            break
        except subprocess.TimeoutExpired:
            pass
        if abort.is_set():
            aborted = True
        elif deadline is not None and time.monotonic() >= deadline:
            timed_out = True
        if timed_out or aborted:
            code = _stop_group(process)
            break
    _kill_group(process.pid, signal.SIGKILL)  # whatever the child left running behind it
    if timed_out or aborted:
        return Ended(None, process.pid, timed_out=timed_out, aborted=aborted)
    return Ended(code, process.pid)


def _stop_group(process: subprocess.Popen[bytes]) -> int:
    _kill_group(process.pid, signal.SIGTERM)
    try:
        return process.wait(timeout=_GRACE)
    except subprocess.TimeoutExpired:
        _kill_group(process.pid, signal.SIGKILL)
        return process.wait()


def _kill_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)
