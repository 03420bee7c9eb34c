"""`local_ray_cluster`: a one-machine Ray cluster on loopback, for tests and benchmarks."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = ["RAY_LOOPBACK", "RayStartError", "local_ray_cluster"]

RAY_LOOPBACK = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}
"""Variables that keep every Ray socket on 127.0.0.1 (Ray otherwise swaps in the machine's
outward address) and its usage report off; the driver (`pith batch --ray`) needs them too."""


class RayStartError(Exception):
    """`ray start` exited or did not come up in time; the message holds its output."""


@contextlib.contextmanager
def local_ray_cluster(num_cpus: int, *, startup_timeout: float = 180.0) -> Iterator[str]:
    """Start `ray start --head` on 127.0.0.1 with `num_cpus` CPUs (the `ray` command beside this
    interpreter, from the `ray` extra), yield its address `127.0.0.1:PORT`, and stop it and
    everything it started afterwards."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    # Not under a test's tmp_path: Ray's Unix socket paths under it pass the 107-byte limit.
    temp = tempfile.mkdtemp(prefix="pith-ray-")
    log = Path(temp) / "start.log"
    command = [str(Path(sys.executable).parent / "ray"), "start", "--head", "--block"]
    command += ["--node-ip-address", "127.0.0.1", "--port", str(port), "--temp-dir", temp]
    command += ["--include-dashboard=false", "--disable-usage-stats", "--num-cpus", str(num_cpus)]
    command += ["--object-store-memory", "100000000"]
    try:
        with log.open("wb") as out:
            head = subprocess.Popen(
                command,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, **RAY_LOOPBACK},
                start_new_session=True,
            )
        try:
            deadline = time.monotonic() + startup_timeout
            while "Ray runtime started" not in log.read_text(errors="replace"):
                if head.poll() is not None or time.monotonic() > deadline:
                    raise RayStartError(f"ray start failed:\n{log.read_text(errors='replace')}")
                time.sleep(0.2)
            yield f"127.0.0.1:{port}"
        finally:
            # The head and everything it started share its process group: stop exactly those.
            head.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                head.wait(timeout=30)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(head.pid, signal.SIGKILL)
            head.wait()
    finally:
        shutil.rmtree(temp, ignore_errors=True)
