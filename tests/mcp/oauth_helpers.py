"""The OAuth test server, and a browser the tests play themselves."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx2

from tests.mcp.helpers import SERVERS, WAIT

OAUTH_SERVER = SERVERS / "oauth_server.py"


@dataclass(frozen=True)
class AuthServer:
    base: str

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    def state(self) -> dict[str, object]:
        data: dict[str, object] = httpx2.get(f"{self.base}/test/state", timeout=WAIT).json()
        return data

    def control(self, path: str, **params: str) -> None:
        httpx2.post(f"{self.base}/test/{path}", params=params, timeout=WAIT).raise_for_status()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def auth_server(tmp_path: Path, *args: str) -> Iterator[AuthServer]:
    port_file = tmp_path / f"oauth-port-{len(list(tmp_path.glob('oauth-port-*')))}"
    process = subprocess.Popen(
        [sys.executable, str(OAUTH_SERVER), str(port_file), *args],
        stderr=subprocess.PIPE,
    )
    try:
        deadline = WAIT * 10
        while not (port_file.exists() and port_file.read_text()):
            if process.poll() is not None:
                raise AssertionError(process.stderr.read().decode() if process.stderr else "")
            deadline -= 1
            assert deadline > 0, "the OAuth test server did not start"
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(0.1)
        yield AuthServer(f"http://127.0.0.1:{port_file.read_text()}")
    finally:
        process.terminate()
        try:
            process.wait(WAIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def approve(authorization_url: str) -> str:
    """What a browser does: open the authorization URL; the redirect's address, not followed."""
    response = httpx2.get(authorization_url, timeout=WAIT)
    assert response.status_code in (302, 303, 307), (response.status_code, response.text)
    return response.headers["location"]


@dataclass
class Browser:
    """A `SignInPrompt` that plays the browser: it approves, then delivers the redirect to the
    loopback callback (`paste=False`) or pastes it (`paste=True`), changed by `tamper`."""

    paste: bool = False
    tamper: Callable[[str], str] = lambda url: url
    shown: list[str] = field(default_factory=list)
    _pastes: asyncio.Queue[str] | None = None
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def show_url(self, url: str) -> None:
        self.shown.append(url)
        self._tasks.append(asyncio.get_running_loop().create_task(self._visit(url)))

    async def _visit(self, url: str) -> None:
        location = self.tamper(await asyncio.to_thread(approve, url))
        if self.paste:
            await self._queue().put(location)
        else:
            async with httpx2.AsyncClient(timeout=WAIT) as client:
                await client.get(location)

    def _queue(self) -> asyncio.Queue[str]:
        if self._pastes is None:
            self._pastes = asyncio.Queue()
        return self._pastes

    async def pasted(self) -> str | None:
        if not self.paste:
            return None
        return await self._queue().get()
