"""Servers that misbehave: each fault ends in a state or an error result, never in pith."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

import pith.mcp._connection as connection
from pith.agent import AbortController
from pith.mcp import ServerConfig
from pith.mcp._manager import McpManager
from tests.mcp.helpers import process_gone, toolbox, until, with_manager


def test_a_server_that_exits_at_start_fails_alone(tmp_path: Path) -> None:
    async def body(manager: McpManager) -> None:
        states = {state.name: state for state in manager.states()}
        assert states["good"].status == "connected"
        bad = states["bad"]
        assert bad.status == "failed"
        assert bad.error is not None
        assert "'bad'" in bad.error
        assert "exit code 3" in bad.error
        assert "missing TOKEN" in bad.error
        assert "missing TOKEN" in bad.stderr_tail
        assert "\n" not in bad.error
        assert {tool.server for tool in manager.tools()} == {"good"}
        result = await manager.call_tool("mcp__good__echo", {"text": "still here"})
        assert result.text() == "still here"

    with_manager([toolbox("bad", "--mode", "exit"), toolbox("good")], tmp_path, body)


def test_a_command_that_does_not_exist_fails_with_its_name(tmp_path: Path) -> None:
    missing = ServerConfig(
        name="ghost", transport="stdio", source=None, command="no-such-mcp-server"
    )

    async def body(manager: McpManager) -> None:
        [state] = manager.states()
        assert state.status == "failed"
        assert state.error is not None
        assert "no-such-mcp-server" in state.error

    with_manager([missing], tmp_path, body)


def test_a_crash_mid_call_is_an_error_and_the_next_call_reconnects(tmp_path: Path) -> None:
    async def body(manager: McpManager) -> None:
        crashed = await manager.call_tool("mcp__box__crash", {})
        assert crashed.is_error
        assert "exit code 7" in crashed.text()
        assert "crashing on purpose" in crashed.text()
        assert manager.states()[0].status == "failed"
        again = await manager.call_tool("mcp__box__echo", {"text": "back"})
        assert not again.is_error, again
        assert again.text() == "back"
        assert manager.states()[0].status == "connected"

    with_manager([toolbox()], tmp_path, body)


def test_a_hung_call_times_out_and_the_process_group_is_killed(tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()

    async def body(manager: McpManager) -> None:
        child = int((await manager.call_tool("mcp__box__spawn_child", {})).text())
        assert not process_gone(child)
        hung = await manager.call_tool("mcp__box__hang", {})
        assert hung.is_error
        assert "did not answer within 1 s" in hung.text()
        assert hung.details["reason"] == "timeout"
        assert await until(lambda: process_gone(child))
        again = await manager.call_tool("mcp__box__echo", {"text": "fresh"})
        assert again.text() == "fresh"

    with_manager([toolbox("box", "--marks", str(marks), timeout=1.0)], tmp_path, body)


def test_close_leaves_no_process_behind(tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    pids: list[int] = []

    async def body(manager: McpManager) -> None:
        pids.append(int((await manager.call_tool("mcp__box__spawn_child", {})).text()))
        pids.extend(
            c._stdio.pid for c in manager._connections.values() if c._stdio and c._stdio.pid
        )

    with_manager([toolbox("box", "--marks", str(marks))], tmp_path, body)
    assert len(pids) == 2
    assert asyncio.run(until(lambda: all(process_gone(pid) for pid in pids)))


def test_lines_that_are_not_messages_are_logged_and_skipped(tmp_path: Path) -> None:
    async def body(manager: McpManager) -> None:
        [state] = manager.states()
        assert state.status == "connected"
        result = await manager.call_tool("mcp__box__scribble", {})
        assert result.text() == "scribbled"
        assert (await manager.call_tool("mcp__box__echo", {"text": "ok"})).text() == "ok"

    with_manager([toolbox("box", "--mode", "garbage")], tmp_path, body)
    log = (tmp_path / "agent" / "mcp.log").read_text()
    assert "not an MCP message: Starting toolbox server v1.0..." in log
    assert "not an MCP message: this is not json" in log


def test_a_server_that_only_prints_garbage_fails_with_a_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "noise.py"
    script.write_text(
        "import sys, time\nprint('hello, I am not MCP', flush=True)\ntime.sleep(3600)\n"
    )
    noisy = ServerConfig(
        name="noise",
        transport="stdio",
        source=None,
        command=sys.executable,
        args=(str(script),),
        timeout=1.0,
    )

    async def body(manager: McpManager) -> None:
        [state] = manager.states()
        assert state.status == "failed"
        assert state.error is not None
        assert "not MCP messages" in state.error
        assert "hello, I am not MCP" in state.error

    monkeypatch.setattr(connection, "CONNECT_SECONDS", 2.0)
    with_manager([noisy], tmp_path, body)


def test_a_changed_tool_list_is_listed_again(tmp_path: Path) -> None:
    changes: list[str] = []

    async def body(manager: McpManager) -> None:
        assert "mcp__box__extra" not in {tool.full_name for tool in manager.tools()}
        before = len(changes)
        await manager.call_tool("mcp__box__grow", {})
        assert await until(lambda: "mcp__box__extra" in {t.full_name for t in manager.tools()})
        assert len(changes) > before
        assert set(changes) == {"box"}
        assert (await manager.call_tool("mcp__box__extra", {})).text() == "extra"

    with_manager([toolbox()], tmp_path, body, on_change=changes.append)


def test_an_abort_cancels_the_call_on_the_server(tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()

    async def body(manager: McpManager) -> None:
        controller = AbortController()
        call = asyncio.ensure_future(
            manager.call_tool("mcp__box__hang", {}, signal=controller.signal)
        )
        await asyncio.sleep(0.5)
        controller.abort()
        result = await asyncio.wait_for(call, 30)
        assert result.is_error
        assert "cancelled" in result.text()
        assert result.details["reason"] == "aborted"
        assert await until(lambda: (marks / "cancelled").exists())
        assert (await manager.call_tool("mcp__box__echo", {"text": "alive"})).text() == "alive"

    with_manager([toolbox("box", "--marks", str(marks))], tmp_path, body)


def test_a_thousand_calls_leak_no_file_descriptors(tmp_path: Path) -> None:
    async def body(manager: McpManager) -> None:
        await manager.call_tool("mcp__box__echo", {"text": "warm up"})
        before = len(os.listdir("/proc/self/fd"))
        for index in range(1000):
            result = await manager.call_tool("mcp__box__echo", {"text": str(index)})
            assert result.text() == str(index)
        after = len(os.listdir("/proc/self/fd"))
        assert after <= before + 2

    with_manager([toolbox()], tmp_path, body)


EXIT_WITHOUT_CLOSE = """
import asyncio, sys
from pathlib import Path
from pith.mcp._manager import McpManager
from tests.mcp.helpers import toolbox

async def main():
    marks = sys.argv[1]
    servers = {"box": toolbox("box", "--marks", marks)}
    manager = McpManager(servers, agent_dir=Path(marks), cwd=Path.cwd())
    manager.start()
    await manager.wait_for(None, 60)
    child = (await manager.call_tool("mcp__box__spawn_child", {})).text()
    server = manager._connections["box"]._stdio.pid
    print(server, child, flush=True)

loop = asyncio.new_event_loop()
loop.run_until_complete(main())
# No close(), no loop shutdown: only the exit-time safety net is left to stop the server.
"""


def test_no_server_outlives_a_pith_that_never_closed(tmp_path: Path) -> None:
    import subprocess

    marks = tmp_path / "marks"
    marks.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", EXIT_WITHOUT_CLOSE, str(marks)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parents[2],
    )
    assert done.returncode == 0, done.stderr
    server, child = (int(pid) for pid in done.stdout.split())
    assert asyncio.run(until(lambda: process_gone(server) and process_gone(child)))


def _raw() -> ServerConfig:
    script = Path(__file__).parent / "servers" / "raw.py"
    return ServerConfig(
        name="raw", transport="stdio", source=None, command=sys.executable, args=(str(script),)
    )


def test_every_page_of_tools_is_listed(tmp_path: Path) -> None:
    async def body(manager: McpManager) -> None:
        assert [tool.name for tool in manager.tools()] == ["first", "second", "bad"]
        assert (await manager.call_tool("mcp__raw__second", {})).text() == "second"

    with_manager([_raw()], tmp_path, body)


def test_an_answer_that_is_not_a_valid_result_is_an_error_result(tmp_path: Path) -> None:
    async def body(manager: McpManager) -> None:
        result = await manager.call_tool("mcp__raw__bad", {})
        assert result.is_error
        assert "'raw'" in result.text()
        assert "tools/call" in result.text()
        assert "\n" not in result.text()
        assert (await manager.call_tool("mcp__raw__first", {})).text() == "first"

    with_manager([_raw()], tmp_path, body)


def test_stopping_a_server_that_never_finishes_connecting_ends_its_task_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that never answers `initialize` must not hold up pith's exit: the stop ends
    the handshake at once instead of waiting out the stop budget (made endless here, so the
    old wait would trip the hang guard)."""
    monkeypatch.setattr(connection, "STOP_SECONDS", 24 * 3600.0)
    silent = ServerConfig(
        name="silent",
        transport="stdio",
        source=None,
        command=sys.executable,
        args=("-c", "import sys\nfor _ in sys.stdin: pass\n"),
    )

    async def main() -> tuple[bool, str]:
        manager = McpManager({"silent": silent}, agent_dir=tmp_path / "agent", cwd=tmp_path)
        manager.start()
        conn = manager._connections["silent"]
        await until(lambda: conn._stdio is not None and conn._stdio.pid is not None)
        task = conn._task
        assert task is not None
        await asyncio.wait_for(manager.close(), 60)  # a hang guard, never a measure
        return task.cancelled(), conn.status

    cancelled, status = asyncio.run(main())
    assert not cancelled
    assert status == "closed"
