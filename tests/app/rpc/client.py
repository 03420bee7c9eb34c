"""A scripted RPC client: runs the real `pith --mode rpc` in a subprocess and talks JSON lines
to it, as an editor would."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from pith.testing import subprocess_env

Record = dict[str, Any]
TIMEOUT = 30.0


class RpcClient:
    def __init__(self, work: Path, agent: Path, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pith", "--mode", "rpc", "--model", "fake/m", *args],
            cwd=work,
            env=subprocess_env(agent),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.records: list[Record] = []
        """Everything read from standard output so far, in order."""
        self.raw_lines: list[bytes] = []
        self._inbox: queue.Queue[Record | None] = queue.Queue()
        self._stderr: list[bytes] = []
        self._next_id = 0
        assert self.process.stdout is not None
        assert self.process.stderr is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()
        threading.Thread(target=self._drain, args=(self.process.stderr,), daemon=True).start()

    def _read(self, stream: IO[bytes]) -> None:
        for line in iter(stream.readline, b""):
            self.raw_lines.append(line)
            self._inbox.put(json.loads(line))
        self._inbox.put(None)

    def _drain(self, stream: IO[bytes]) -> None:
        for line in iter(stream.readline, b""):
            self._stderr.append(line)

    @property
    def stderr(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")

    # --- sending ------------------------------------------------------------------------------

    def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, record: Record) -> None:
        self.send_raw(json.dumps(record).encode() + b"\n")

    def command(self, kind: str, **fields: object) -> str:
        """Send a command with a fresh id; the id."""
        self._next_id += 1
        request_id = f"req-{self._next_id}"
        self.send({"id": request_id, "type": kind, **fields})
        return request_id

    def request(self, kind: str, **fields: object) -> Record:
        """Send a command and wait for its response."""
        request_id = self.command(kind, **fields)
        return self.response(request_id)

    # --- receiving ----------------------------------------------------------------------------

    def response(self, request_id: str) -> Record:
        return self.wait_for(
            lambda r: r.get("type") == "response" and r.get("id") == request_id,
            f"the response to {request_id}",
        )

    def wait_for(self, match: Callable[[Record], bool], what: str = "a record") -> Record:
        """The first record read from now on (or already read and not yet seen) that matches."""
        for record in self.records[self._seen :]:
            self._seen += 1
            if match(record):
                return record
        deadline = time.monotonic() + TIMEOUT
        while True:
            left = deadline - time.monotonic()
            try:
                got = self._inbox.get(timeout=max(left, 0.01))
            except queue.Empty:
                raise AssertionError(
                    f"timed out waiting for {what}; stderr:\n{self.stderr}"
                ) from None
            if got is None:
                raise AssertionError(f"pith exited before {what}; stderr:\n{self.stderr}")
            record = got
            self.records.append(record)
            self._seen = len(self.records)
            if match(record):
                return record

    _seen = 0

    def event(self, kind: str) -> Record:
        return self.wait_for(lambda r: r.get("type") == kind, f"a {kind} event")

    def settled(self) -> Record:
        return self.event("agent_settled")

    def close(self) -> int:
        """Close standard input; the exit code once pith has ended."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        code = self.process.wait(timeout=TIMEOUT)
        while True:  # collect what was written before the end
            try:
                record = self._inbox.get(timeout=5)
            except queue.Empty:
                break
            if record is None:
                break
            self.records.append(record)
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
