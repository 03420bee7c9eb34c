"""A handler that raises: pith carries on, the user is told once, the log has the details, and
a failing `tool_call` check blocks the call (fail closed)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pith.ai import AssistantMessage
from pith.extensions import ExtensionAPI, ExtensionContext
from pith.testing import FakeServer
from tests.extensions.harness import (
    RecordingUI,
    body,
    configure_agent_dir,
    drive,
    make_runner,
    make_session,
    messages_of,
    run_pith,
    session_entries,
    tool_message_text,
)

# Two prompts; the first runs a bash call (so tool events and updates fire) over two requests.
SCRIPT = {
    "turns": [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi > out.txt"}}]},
        {"text": "done"},
        {"text": "again"},
    ]
}
EVENTS_OF_A_RUN = [
    "session_start",
    "input",
    "before_agent_start",
    "agent_start",
    "turn_start",
    "message_start",
    "message_update",
    "message_end",
    "context",
    "before_provider_request",
    "tool_execution_start",
    "tool_execution_update",
    "tool_execution_end",
    "tool_result",
    "turn_end",
    "agent_end",
    "session_shutdown",
]


def raising_in(event_name: str, calls: list[str]) -> object:
    def register(api: ExtensionAPI) -> None:
        def handler(event: object, ctx: object) -> None:
            calls.append(event_name)
            raise RuntimeError(f"kaboom in {event_name}")

        api.on(event_name, handler)

    return register


@pytest.mark.parametrize("event_name", EVENTS_OF_A_RUN)
def test_a_raising_handler_is_reported_once_and_pith_carries_on(
    tmp_path: Path, event_name: str
) -> None:
    calls: list[str] = []
    ui = RecordingUI()
    with FakeServer(SCRIPT) as server:
        runner = make_runner(tmp_path, ("boom", raising_in(event_name, calls)))
        session = make_session(tmp_path, server, runner, ui=ui)
        first, second = drive(session, "run it", "and again")
        assert server.problems() == []
        assert server.unused_turns() == []
    assert isinstance(first, AssistantMessage)
    assert (first.text(), second.text()) == ("done", "again")  # type: ignore[union-attr]
    assert (tmp_path / "work" / "out.txt").read_text() == "hi\n"
    assert calls  # it really ran (and raised)
    [error] = ui.errors()
    assert error.startswith(f"extension boom failed in {event_name}: RuntimeError: kaboom")
    assert str(tmp_path / "extensions.log") in error
    log = (tmp_path / "extensions.log").read_text()
    assert log.count(f"boom (<test boom>) in {event_name}:") == len(calls)
    assert "Traceback" in log
    assert f"RuntimeError: kaboom in {event_name}" in log


def test_a_raising_handler_does_not_stop_the_next_extension(tmp_path: Path) -> None:
    after: list[str] = []

    def later(api: ExtensionAPI) -> None:
        api.on("turn_start", lambda event, ctx: after.append("turn_start"))

    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        runner = make_runner(tmp_path, ("boom", raising_in("turn_start", [])), ("later", later))
        asyncio.run(make_session(tmp_path, server, runner, ui=RecordingUI()).prompt("hi"))
    assert after == ["turn_start"]


def test_a_raising_tool_call_handler_blocks_the_call_naming_the_extension(
    tmp_path: Path,
) -> None:
    ui = RecordingUI()
    script = {
        "turns": [
            {"tool_calls": [{"name": "write", "arguments": {"path": "a.txt", "content": "x"}}]},
            {"text": "ok"},
        ]
    }
    with FakeServer(script) as server:
        runner = make_runner(tmp_path, ("checker", raising_in("tool_call", [])))
        session = make_session(tmp_path, server, runner, ui=ui)
        asyncio.run(session.prompt("write"))
        session.close()
        sent = tool_message_text(body(server, 1))
    assert not (tmp_path / "work" / "a.txt").exists()
    [result] = [m for m in messages_of(session_entries(session)) if m["role"] == "toolResult"]
    assert result["isError"] is True
    [text] = [part["text"] for part in result["content"]]  # type: ignore[union-attr]
    assert text == (
        "Blocked: extension checker failed while checking this call "
        "(RuntimeError: kaboom in tool_call)"
    )
    assert sent == text
    [error] = ui.errors()
    assert error.startswith("extension checker failed in tool_call")


def test_a_raising_command_is_reported_and_logged(tmp_path: Path) -> None:
    def commands(api: ExtensionAPI) -> None:
        def deploy(args: str, ctx: object) -> None:
            raise ValueError(f"cannot deploy {args}")

        api.register_command("deploy", deploy)

    ui = RecordingUI()
    with FakeServer({"turns": []}) as server:
        session = make_session(tmp_path, server, make_runner(tmp_path, ("ops", commands)), ui=ui)
        asyncio.run(session.prompt("/deploy prod"))
        assert server.requests == []
    assert ui.errors() == ["/deploy failed: ValueError: cannot deploy prod"]
    assert "ValueError: cannot deploy prod" in (tmp_path / "extensions.log").read_text()


# --- through the real CLI ---------------------------------------------------------------------

BOOM = """
def register(api):
    def fail(event, ctx):
        raise RuntimeError("turn_start exploded")
    api.on("turn_start", fail)
"""


def test_pith_print_mode_reports_a_failing_handler_on_one_stderr_line(tmp_path: Path) -> None:
    (tmp_path / "boom.py").write_text(BOOM)
    with FakeServer(SCRIPT) as server:
        configure_agent_dir(tmp_path / "agent", server)
        result = run_pith(
            tmp_path, "-p", "--model", "fake/m", "-e", str(tmp_path / "boom.py"), "run it"
        )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "done\n"
    log = tmp_path / "agent" / "logs" / "extensions.log"
    lines = [line for line in result.stderr.splitlines() if "boom" in line]
    assert lines == [
        "pith: error: extension boom failed in turn_start: RuntimeError: turn_start exploded "
        f"(reported once; pith carries on without it; details in {log})"
    ]
    text = log.read_text()
    assert text.count("boom (") == 2  # both turns failed; both are logged
    assert "Traceback" in text


# --- events reached through ctx and api from a command ----------------------------------------


def operator(outcomes: list[object]) -> object:
    """`/op new|fork|tree|model`: the operation's outcome goes to `outcomes`."""

    def register(api: ExtensionAPI) -> None:
        async def op(args: str, ctx: ExtensionContext) -> None:
            assert ctx.session is not None
            first = ctx.session.entries[0].id
            if args == "new":
                outcomes.append(await ctx.new_session())
            elif args == "fork":
                outcomes.append(await ctx.fork(first))
            elif args == "tree":
                outcomes.append(await ctx.navigate_tree(first))
            else:
                assert ctx.model is not None
                outcomes.append(await api.set_model(ctx.model))

        api.register_command("op", op)

    return register


@pytest.mark.parametrize(
    ("operation", "event_name"),
    [
        ("new", "session_before_switch"),
        ("fork", "session_before_fork"),
        ("tree", "session_before_tree"),
        ("tree", "session_tree"),
        ("model", "model_select"),
    ],
)
def test_a_raising_handler_never_stops_a_session_operation(
    tmp_path: Path, operation: str, event_name: str
) -> None:
    outcomes: list[object] = []
    calls: list[str] = []
    ui = RecordingUI()
    runner = make_runner(
        tmp_path, ("boom", raising_in(event_name, calls)), ("op", operator(outcomes))
    )
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        drive(make_session(tmp_path, server, runner, ui=ui), "hello", f"/op {operation}")
    assert outcomes == [True]
    assert calls == [event_name]
    [error] = ui.errors()
    assert error.startswith(f"extension boom failed in {event_name}: RuntimeError: kaboom")
