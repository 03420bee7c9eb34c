"""Streamable HTTP servers, one that wants authorization, and a real server nobody here wrote."""

from __future__ import annotations

import http.server
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pith.mcp import ServerConfig
from pith.mcp._manager import McpManager
from tests.mcp.helpers import TOOLBOX, WAIT, with_manager


@pytest.fixture
def http_toolbox(tmp_path: Path) -> Iterator[str]:
    port_file = tmp_path / "port"
    process = subprocess.Popen(
        [sys.executable, str(TOOLBOX), "--mode", "http", "--port-file", str(port_file)],
        stdin=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + WAIT
        while not (port_file.exists() and port_file.read_text()):
            assert process.poll() is None, "the HTTP test server exited"
            assert time.monotonic() < deadline, "the HTTP test server did not start"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port_file.read_text()}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=WAIT)


class _Unauthorized(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Bearer resource_metadata="http://127.0.0.1/meta"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def unauthorized_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Unauthorized)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()


def test_streamable_http_server(tmp_path: Path, http_toolbox: str) -> None:
    remote = ServerConfig(
        name="web", transport="http", source=None, url=http_toolbox, headers={"X-Test": "1"}
    )

    async def body(manager: McpManager) -> None:
        [state] = manager.states()
        assert state.status == "connected", state
        assert "mcp__web__echo" in {tool.full_name for tool in manager.tools()}
        assert (
            await manager.call_tool("mcp__web__echo", {"text": "over http"})
        ).text() == "over http"
        seen: list[float] = []
        done = await manager.call_tool(
            "mcp__web__progress",
            {"steps": 2, "pause": 0.01},
            on_progress=lambda p, t, m: seen.append(p),
        )
        assert done.text() == "done"
        assert seen == [1.0, 2.0]

    with_manager([remote], tmp_path, body)


def test_a_401_means_needs_auth(tmp_path: Path, unauthorized_url: str) -> None:
    remote = ServerConfig(name="locked", transport="http", source=None, url=unauthorized_url)

    async def body(manager: McpManager) -> None:
        [state] = manager.states()
        assert state.status == "needs-auth", state
        assert state.error is not None
        assert "'locked'" in state.error
        result = await manager.call_tool("mcp__locked__anything", {})
        assert result.is_error

    with_manager([remote], tmp_path, body)


def test_the_real_time_server(tmp_path: Path) -> None:
    time_server = ServerConfig(
        name="time",
        transport="stdio",
        source=None,
        command=sys.executable,
        args=("-m", "mcp_server_time", "--local-timezone", "UTC"),
    )

    async def body(manager: McpManager) -> None:
        [state] = manager.states()
        assert state.status == "connected", state
        names = {tool.full_name for tool in manager.tools()}
        assert {"mcp__time__get_current_time", "mcp__time__convert_time"} <= names
        result = await manager.call_tool("mcp__time__get_current_time", {"timezone": "Europe/Oslo"})
        assert not result.is_error, result
        assert "Europe/Oslo" in result.text()

    with_manager([time_server], tmp_path, body)
