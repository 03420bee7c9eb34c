"""`pith.create_session` and `pith.Session`, against the fake model server over HTTP."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

import pith
from pith.testing import FakeServer, subprocess_env
from tests.sdk.helpers import WAIT_FOR_GO, body_text, place


def run(coroutine: object) -> object:
    assert asyncio.iscoroutine(coroutine)
    return asyncio.run(coroutine)


def test_a_prompt_returns_the_reply_and_keeps_it_as_the_last_one(tmp_path: Path) -> None:
    with FakeServer({"turns": [{"text": "Hello from the model."}]}) as server:
        where = place(tmp_path, server)

        async def main() -> None:
            async with await pith.create_session(
                cwd=where.work, agent_dir=where.agent, session="memory"
            ) as session:
                reply = await session.prompt("say hello")
                assert isinstance(reply, pith.AssistantMessage)
                assert session.last_reply is reply
                assert session.last_text == "Hello from the model."
                assert session.path is None
                assert session.model.key == "fake/m"
                assert [m.role for m in session.messages] == ["user", "assistant"]

        run(main())
        assert "say hello" in body_text(server.requests[0])


def test_stream_yields_the_prompts_events_in_order_then_ends(tmp_path: Path) -> None:
    script = {
        "turns": [
            {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
            {"text": "Two lines."},
        ]
    }
    with FakeServer(script) as server:
        where = place(tmp_path, server)

        async def main() -> list[object]:
            async with await pith.create_session(
                cwd=where.work, agent_dir=where.agent, session="memory"
            ) as session:
                return [event async for event in session.stream("count the lines")]

        events = run(main())
    assert isinstance(events, list)
    kinds = [type(event) for event in events]
    assert kinds[0] is pith.AgentStart
    assert pith.ToolExecutionStart in kinds
    ended = [e for e in events if isinstance(e, pith.ToolExecutionEnd)]
    assert [e.tool_name for e in ended] == ["read"]
    assert kinds.index(pith.ToolExecutionStart) < kinds.index(pith.ToolExecutionEnd)
    assert pith.AgentEnd in kinds
    text = "".join(
        e.event.delta
        for e in events
        if isinstance(e, pith.MessageUpdate) and isinstance(e.event, pith.TextDelta)
    )
    assert text == "Two lines."


def test_an_event_stream_holds_every_event_until_read_and_ends_with_the_session(
    tmp_path: Path,
) -> None:
    with FakeServer({"turns": [{"text": "one"}, {"text": "two"}]}) as server:
        where = place(tmp_path, server)

        async def main() -> list[str]:
            session = await pith.create_session(
                cwd=where.work, agent_dir=where.agent, session="memory"
            )
            events = session.events()
            await session.prompt("first")
            await session.prompt("second")
            await session.close()
            return [event.type async for event in events]

        types = run(main())
    assert isinstance(types, list)
    assert types.count("agent_start") == 2
    assert types.count("agent_end") == 2
    assert types[-1] in ("agent_end", "agent_settled")


def test_steering_reaches_the_model_after_the_running_tool(tmp_path: Path) -> None:
    script = {
        "turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": WAIT_FOR_GO}}]},
            {"match": ["also count the words"], "text": "Steered."},
        ]
    }
    with FakeServer(script) as server:
        where = place(tmp_path, server)

        async def main() -> str:
            async with await pith.create_session(
                cwd=where.work, agent_dir=where.agent, session="memory"
            ) as session:
                async for event in session.stream("count the lines"):
                    if isinstance(event, pith.ToolExecutionStart):
                        session.steer("also count the words")
                        where.go()
                return session.last_text

        assert run(main()) == "Steered."
        assert server.state()["problems"] == []
        assert len(server.requests) == 2


def test_a_follow_up_runs_when_the_prompt_would_end(tmp_path: Path) -> None:
    script = {
        "turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": WAIT_FOR_GO}}]},
            {"unless": ["and then the words"], "text": "Lines done."},
            {"match": ["and then the words"], "text": "Words done."},
        ]
    }
    with FakeServer(script) as server:
        where = place(tmp_path, server)

        async def main() -> str:
            async with await pith.create_session(
                cwd=where.work, agent_dir=where.agent, session="memory"
            ) as session:
                async for event in session.stream("count the lines"):
                    if isinstance(event, pith.ToolExecutionStart):
                        session.follow_up("and then the words")
                        where.go()
                return session.last_text

        assert run(main()) == "Words done."
        assert len(server.requests) == 3


def test_abort_stops_the_run_and_its_tool(tmp_path: Path) -> None:
    script = {
        "turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": WAIT_FOR_GO}}]},
            {"text": "never asked for"},
        ]
    }
    with FakeServer(script) as server:
        where = place(tmp_path, server)

        async def main() -> object:
            async with await pith.create_session(
                cwd=where.work, agent_dir=where.agent, session="memory"
            ) as session:
                async for event in session.stream("wait"):
                    if isinstance(event, pith.ToolExecutionStart):
                        session.abort()
                assert not session.is_running
                return session.messages[-1]

        last = run(main())
        assert len(server.requests) == 1
    assert isinstance(last, pith.ToolResultMessage)
    assert last.is_error
    assert "aborted" in str(last.content)


def test_a_second_prompt_while_one_runs_is_refused(tmp_path: Path) -> None:
    script = {
        "turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": WAIT_FOR_GO}}]},
            {"text": "done"},
        ]
    }
    with FakeServer(script) as server:
        where = place(tmp_path, server)

        async def main() -> str:
            async with await pith.create_session(
                cwd=where.work, agent_dir=where.agent, session="memory"
            ) as session:
                with pytest.raises(pith.InputError, match="no prompt is running"):
                    session.steer("too early")
                async for event in session.stream("wait"):
                    if isinstance(event, pith.ToolExecutionStart):
                        with pytest.raises(pith.InputError, match="a prompt is running"):
                            await session.prompt("another")
                        where.go()
                return session.last_text

        assert run(main()) == "done"


def test_a_session_is_resumed_by_file_or_id_and_forked(tmp_path: Path) -> None:
    turns = [{"text": "first answer"}, {"text": "second answer"}, {"text": "third answer"}]
    with FakeServer({"turns": turns}) as server:
        where = place(tmp_path, server)

        async def main() -> None:
            async with await pith.create_session(cwd=where.work, agent_dir=where.agent) as first:
                await first.prompt("question one")
                path, session_id = first.path, first.id
            assert path is not None
            assert path.exists()
            async with await pith.open_session(
                path, cwd=where.work, agent_dir=where.agent
            ) as again:
                assert again.id == session_id
                await again.prompt("question two")
            async with await pith.open_session(
                session_id, cwd=where.work, agent_dir=where.agent
            ) as resumed:
                assert [m.role for m in resumed.messages] == ["user", "assistant"] * 2
                points = resumed.fork_points()
                assert [text for _, text in points] == ["question one", "question two"]
                outcome = await resumed.fork(points[1][0])
                assert isinstance(outcome, pith.ForkOutcome)
                assert outcome.selected_text == "question two"
                assert resumed.id != session_id
                assert resumed.last_text == "first answer"
                await resumed.prompt("question two, again")
            copy = await pith.open_session(
                path, fork=True, cwd=where.work, agent_dir=where.agent, on_warning=print
            )
            async with copy:
                assert copy.id not in (session_id, resumed.id)
                assert len(copy.messages) == 4

        run(main())
        assert "question one" in body_text(server.requests[1])


def test_the_context_report_is_the_one_pith_context_shows(tmp_path: Path) -> None:
    with FakeServer({"turns": [{"text": "An answer."}]}) as server:
        where = place(tmp_path, server)

        async def main() -> tuple[pith.ContextReport, Path]:
            async with await pith.create_session(
                cwd=where.work, agent_dir=where.agent, tools=["read", "ls"]
            ) as session:
                await session.prompt("a question")
                report = await session.context()
                assert session.path is not None
                return report, session.path

        report, path = run(main())
    assert isinstance(report, pith.ContextReport)
    assert sorted(report.tool_tokens) == ["ls", "read"]
    assert [line.role for line in report.messages] == ["user", "assistant"]
    from pith.app.session import report_to_json

    shown = subprocess.run(
        [
            sys.executable,
            "-m",
            "pith",
            "context",
            "--session",
            str(path),
            "--json",
            "-t",
            "read,ls",
        ],
        cwd=where.work,
        env=subprocess_env(where.agent),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr
    shown_report = json.loads(shown.stdout)
    mine = json.loads(json.dumps(report_to_json(report)))
    # `pith context` looks at an in-memory copy of the file, the live session at the file.
    assert mine["session"].pop("path") == str(path)
    assert shown_report["session"].pop("path") is None
    assert shown_report == mine


def test_tools_settings_and_models_are_chosen_by_the_caller(tmp_path: Path) -> None:
    with FakeServer({"turns": []}) as server:
        where = place(tmp_path, server)
        assert "fake/m" in [model.key for model in pith.list_models(agent_dir=where.agent)]
        assert [m.key for m in pith.list_models(agent_dir=where.agent, usable=True)] == ["fake/m"]

        async def tools(**choice: object) -> list[str]:
            async with await pith.create_session(
                cwd=where.work, agent_dir=where.agent, session="memory", **choice
            ) as session:  # type: ignore[arg-type]
                return sorted((await session.context()).tool_tokens)

        assert run(tools(tools=[])) == []
        assert run(tools(tools="read,-read,+grep")) == ["grep"]
        assert run(tools(settings={"defaultTools": ["find"]})) == ["find"]


def test_bad_choices_are_one_line_errors(tmp_path: Path) -> None:
    with FakeServer({"turns": []}) as server:
        where = place(tmp_path, server)

        async def create(**choice: object) -> None:
            session = await pith.create_session(
                agent_dir=where.agent,
                **{"cwd": where.work, "session": "memory", **choice},  # type: ignore[arg-type]
            )
            await session.close()

        cases: list[tuple[dict[str, object], type[pith.PithError], str]] = [
            ({"cwd": where.work / "missing"}, pith.InputError, "not a directory"),
            ({"model": "elsewhere/nope"}, pith.InputError, "nope"),
            ({"settings": {"retry": {"enabled": "yes"}}}, pith.ConfigError, "retry.enabled"),
            (
                {"session": where.work / "none.jsonl", "fork": True},
                pith.PithError,
                "no session file",
            ),
            ({"fork": True}, pith.InputError, "fork=True needs"),
        ]
        for choice, error, words in cases:
            with pytest.raises(error, match=words) as raised:
                run(create(**choice))
            assert "\n" not in str(raised.value), choice


def test_a_closed_session_refuses_prompts_and_a_second_close_is_harmless(tmp_path: Path) -> None:
    with FakeServer({"turns": []}) as server:
        where = place(tmp_path, server)

        async def main() -> None:
            session = await pith.create_session(
                cwd=where.work, agent_dir=where.agent, session="memory"
            )
            await session.close()
            await session.close()
            with pytest.raises(pith.InputError, match="closed"):
                await session.prompt("hello")

        run(main())


def test_a_session_exports_to_html(tmp_path: Path) -> None:
    with FakeServer({"turns": [{"text": "Exported answer."}]}) as server:
        where = place(tmp_path, server)

        async def main() -> tuple[Path, str]:
            async with await pith.create_session(cwd=where.work, agent_dir=where.agent) as session:
                await session.prompt("a question")
                return session.export_html(tmp_path / "page.html"), session.id

        page, session_id = run(main())
    assert page == tmp_path / "page.html"
    html = page.read_text(encoding="utf-8")
    assert session_id in html
    assert "Exported answer." in html


def test_an_unusable_place_warns_through_on_warning(tmp_path: Path) -> None:
    with FakeServer({"turns": []}) as server:
        where = place(tmp_path, server)
        (where.agent / "settings.json").write_text(json.dumps({"retyr": {}}))
        warnings: list[str] = []

        async def main() -> None:
            session = await pith.create_session(
                cwd=where.work, agent_dir=where.agent, session="memory", on_warning=warnings.append
            )
            await session.close()

        run(main())
    assert len(warnings) == 1
    assert "did you mean 'retry'" in warnings[0]
