"""`pith mcp login` and `pith mcp logout` as a user runs them: a real `pith` subprocess, a
local OAuth-protected server, and the test as the browser (no display, so none is opened)."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx2
import pytest

from pith.testing import subprocess_env
from tests.mcp.oauth_helpers import AuthServer, approve, auth_server

WAIT = 120.0


@pytest.fixture
def server(tmp_path: Path) -> Iterator[AuthServer]:
    with auth_server(tmp_path) as running:
        yield running


def setup(tmp_path: Path, server: AuthServer) -> tuple[Path, dict[str, str]]:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "mcp.json").write_text(json.dumps({"mcpServers": {"guarded": {"url": server.url}}}))
    env = subprocess_env(agent, HOME=str(tmp_path))
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
        env.pop(name, None)
    return agent, env


def run_login(
    tmp_path: Path, env: dict[str, str], deliver: Callable[[subprocess.Popen[str], str], None]
) -> tuple[int, str, str]:
    """Start `pith mcp login guarded`, read the URL it prints, approve it, hand the redirect over
    with `deliver(process, location)`; the exit code and output."""
    process = subprocess.Popen(
        [sys.executable, "-m", "pith", "mcp", "login", "guarded"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        seen = []
        for line in process.stdout:
            seen.append(line)
            if line.strip().startswith("http://"):
                deliver(process, approve(line.strip()))
                break
        else:
            raise AssertionError("".join(seen) + (process.stderr.read() if process.stderr else ""))
        # Read through the same buffered file: `communicate` would skip what it already holds.
        out = process.stdout.read()
        err = process.stderr.read() if process.stderr is not None else ""
        return process.wait(WAIT), "".join(seen) + out, err
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def by_loopback(process: subprocess.Popen[str], location: str) -> None:
    httpx2.get(location, timeout=WAIT)


def by_paste(process: subprocess.Popen[str], location: str) -> None:
    assert process.stdin is not None
    process.stdin.write(location + "\n")
    process.stdin.flush()


def test_login_through_the_loopback_and_logout(tmp_path: Path, server: AuthServer) -> None:
    agent, env = setup(tmp_path, server)
    code, out, err = run_login(tmp_path, env, by_loopback)
    assert code == 0, (out, err)
    assert "Sign in to MCP server 'guarded'" in out
    assert "Signed in to MCP server 'guarded'" in out
    auth_file = agent / "mcp-auth.json"
    assert stat.S_IMODE(auth_file.stat().st_mode) == 0o600
    assert f"mcp__guarded|{server.url}" in json.loads(auth_file.read_text())

    logout = subprocess.run(
        [sys.executable, "-m", "pith", "mcp", "logout", "guarded"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert logout.returncode == 0, logout
    assert "Signed out of MCP server 'guarded'" in logout.stdout
    assert json.loads(auth_file.read_text()) == {}


def test_login_with_the_pasted_address(tmp_path: Path, server: AuthServer) -> None:
    agent, env = setup(tmp_path, server)
    code, out, err = run_login(tmp_path, env, by_paste)
    assert code == 0, (out, err)
    assert "paste the address" in out
    assert (agent / "mcp-auth.json").exists()


def test_a_wrong_state_fails_with_one_line(tmp_path: Path, server: AuthServer) -> None:
    _, env = setup(tmp_path, server)

    def tampered(process: subprocess.Popen[str], location: str) -> None:
        by_paste(process, location.replace("state=", "state=forged"))

    code, _, err = run_login(tmp_path, env, tampered)
    assert code == 1
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert "state does not match" in err
    assert server.state()["exchanges"] == 0


def test_login_to_an_unknown_server_is_one_line(tmp_path: Path, server: AuthServer) -> None:
    _, env = setup(tmp_path, server)
    result = subprocess.run(
        [sys.executable, "-m", "pith", "mcp", "login", "nope"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "no MCP server 'nope'" in result.stderr
