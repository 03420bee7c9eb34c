"""`FakeServer`: the fake model server in a background thread of this process."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Self

from pith.testing._endpoints import Endpoints, JsonObject
from pith.testing._http import FakeHttpServer
from pith.testing._process import FakeServerProcess
from pith.testing._script import ScriptSource, load_script
from pith.testing._state import ServerState

__all__ = ["FakeServer"]


class FakeServer(Endpoints):
    """The fake server in a background thread of this process, on a free port.

    `with FakeServer({"turns": [{"text": "hi"}]}) as server:` then point an SDK at
    `server.base_url` (OpenAI) or `server.anthropic_base_url` (Anthropic). `server.requests`
    holds the logged requests; `unused_turns()` and `problems()` should both be empty at the end.
    """

    def __init__(self, script: ScriptSource, *, log: str | os.PathLike[str] | None = None) -> None:
        self._state = ServerState(load_script(script), Path(log) if log is not None else None)
        self._server: FakeHttpServer | None = None
        self._thread: threading.Thread | None = None

    @staticmethod
    def subprocess(
        script: ScriptSource, *, log: str | os.PathLike[str] | None = None
    ) -> FakeServerProcess:
        """The same server as a child process (`python -m pith.testing.fake_server`)."""
        return FakeServerProcess(script, log=log)

    def start(self) -> Self:
        if self._server is None:
            self._server = FakeHttpServer(self._state, 0)
            self._thread = threading.Thread(
                target=self._server.serve_forever,
                kwargs={"poll_interval": 0.05},
                name=f"pith-fake-server-{self._server.port}",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.close_connections()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the fake server is not running; use it in a `with` block")
        return self._server.port

    @property
    def requests(self) -> list[JsonObject]:
        """Every logged request so far (as in the `--log` file), oldest first."""
        with self._state.lock:
            return list(self._state.requests)

    def timings(self) -> list[tuple[float, float]]:
        """(first byte received, last byte sent) wall-clock times of each answered request,
        in request order: for timing benchmarks."""
        with self._state.lock:
            return [self._state.timings[n] for n in sorted(self._state.timings)]

    def state(self) -> JsonObject:
        return self._state.snapshot()
