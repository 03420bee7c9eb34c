"""Ending the background loops tests start, without ever hitting someone else's processes."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path


def stop_loop(pid_file: Path) -> None:
    """Kill the process group of the loop whose pid a test's command wrote to `pid_file`.

    Only while that pid is still the loop — its command line names the test's own folder — so a
    pid the system has since reused for another process is left alone, and never the group
    this test run itself belongs to."""
    try:
        pid = int(pid_file.read_text())
        command = Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace")
        group = os.getpgid(pid)
    except (OSError, ValueError):
        return
    if str(pid_file.parent) not in command or group == os.getpgrp():
        return
    with contextlib.suppress(OSError):
        os.killpg(group, signal.SIGKILL)
