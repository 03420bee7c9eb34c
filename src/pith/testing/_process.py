"""`FakeServerProcess`: the fake model server as a child process of this one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Self

from pith.testing._endpoints import Endpoints, JsonObject
from pith.testing._script import ScriptSource, load_script

__all__ = ["FakeServerProcess"]


class FakeServerProcess(Endpoints):
    """The fake server as a child process: `python -m pith.testing.fake_server ...`.

    A dict script is written to a temporary file; the request log goes to `log` or to a
    temporary file. State comes from `GET /_pith/state`; `requests` reads the log.
    """

    def __init__(
        self,
        script: ScriptSource,
        *,
        log: str | os.PathLike[str] | None = None,
        startup_timeout: float = 10.0,
    ) -> None:
        load_script(script)  # a bad script fails here, not in the child
        self._source = script
        self._log = Path(log) if log is not None else None
        self._startup_timeout = startup_timeout
        self._process: subprocess.Popen[bytes] | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._port: int | None = None
        self._final_requests: list[JsonObject] = []
        self.returncode: int | None = None
        """The child's exit status once stopped (0 after a clean SIGTERM shutdown)."""

    def start(self) -> Self:
        if self._process is not None:
            return self
        self._tmp = tempfile.TemporaryDirectory(prefix="pith-fake-server-")
        tmp = Path(self._tmp.name)
        if isinstance(self._source, Mapping):
            script_path = tmp / "script.json"
            script_path.write_text(json.dumps(self._source), encoding="utf-8")
        else:
            script_path = Path(self._source)
        self._log = self._log or tmp / "requests.jsonl"
        port_file = tmp / "port"
        command = [sys.executable, "-m", "pith.testing.fake_server", "--script", str(script_path)]
        command += ["--port", "0", "--port-file", str(port_file), "--log", str(self._log)]
        with (tmp / "stdout").open("wb") as out, (tmp / "stderr").open("wb") as err:
            self._process = subprocess.Popen(command, stdout=out, stderr=err)
        deadline = time.monotonic() + self._startup_timeout
        while not (port_file.exists() and port_file.read_text().strip()):
            if self._process.poll() is not None or time.monotonic() > deadline:
                stderr = (tmp / "stderr").read_text(errors="replace")
                self.stop()
                raise RuntimeError(f"the fake server did not start: {stderr.strip()}")
            time.sleep(0.02)
        self._port = int(port_file.read_text())
        return self

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.send_signal(signal.SIGTERM)
            try:
                self.returncode = process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                self.returncode = process.wait()
        if self._tmp is not None:
            self._final_requests = self._read_log()  # the log may be in the temporary directory
            self._tmp.cleanup()
            self._tmp = None

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("the fake server process is not running; use it in a `with` block")
        return self._port

    @property
    def requests(self) -> list[JsonObject]:
        """Every logged request so far, read from the log file."""
        return self._read_log() if self._tmp is not None else list(self._final_requests)

    def _read_log(self) -> list[JsonObject]:
        if self._log is None or not self._log.exists():
            return []
        lines = self._log.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def state(self) -> JsonObject:
        with urllib.request.urlopen(f"{self.url}/_pith/state", timeout=10) as response:
            state = json.load(response)
        assert isinstance(state, dict)
        return state
