"""`pith --mode rpc` fed by a pipe or a file: every command read is answered, in order, as if
typed one after another, and pith exits 0 once the last run has finished."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from pith.testing import FakeServer, configure_agent_dir, subprocess_env
from tests.app.rpc.conftest import Start
from tests.app.rpc.test_rpc_prompting import data, roles, slow_text


def run_piped(tmp_path: Path, commands: list[dict[str, object]]) -> tuple[int, list[Any], str]:
    """`pith --mode rpc < commands.jsonl`: the exit code, the records written, stderr."""
    (tmp_path / "work").mkdir(exist_ok=True)
    source = tmp_path / "commands.jsonl"
    source.write_text("".join(json.dumps(command) + "\n" for command in commands))
    with source.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "pith", "--mode", "rpc", "--model", "fake/m"],
            cwd=tmp_path / "work",
            env=subprocess_env(tmp_path / "agent"),
            stdin=stdin,
            capture_output=True,
            timeout=120,
        )
    records = [json.loads(line) for line in done.stdout.splitlines()]
    return done.returncode, records, done.stderr.decode("utf-8", "replace")


def responses(records: list[Any]) -> dict[str, Any]:
    return {r["id"]: r for r in records if r["type"] == "response" and "id" in r}


def test_piped_commands_are_all_carried_out_in_order_and_see_each_reply(
    tmp_path: Path,
) -> None:
    script = {"turns": [{"text": "first answer"}, {"text": "second answer"}]}
    commands: list[dict[str, object]] = [
        {"id": "1", "type": "get_state"},
        {"id": "2", "type": "prompt", "message": "first question"},
        {"id": "3", "type": "get_messages"},
        {"id": "4", "type": "prompt", "message": "second question"},
        {"id": "5", "type": "get_state"},
        {"id": "6", "type": "get_messages"},
        {"id": "7", "type": "get_last_assistant_text"},
    ]
    with FakeServer(script) as server:
        configure_agent_dir(tmp_path / "agent", server)
        code, records, stderr = run_piped(tmp_path, commands)
        assert server.problems() == []
        assert len(server.requests) == 2
    assert code == 0, stderr
    answered = responses(records)
    assert sorted(answered) == ["1", "2", "3", "4", "5", "6", "7"]
    order = [r["id"] for r in records if r["type"] == "response"]
    assert order == ["1", "2", "3", "4", "5", "6", "7"]
    assert data(answered["2"]) == {"disposition": "started"}
    assert roles(data(answered["3"])["messages"]) == ["user", "assistant"]
    assert data(answered["4"]) == {"disposition": "started"}
    assert data(answered["5"])["isStreaming"] is False
    assert roles(data(answered["6"])["messages"]) == ["user", "assistant"] * 2
    assert data(answered["7"]) == {"text": "second answer"}
    assert [r["type"] for r in records].count("agent_settled") == 2
    assert "Traceback" not in stderr


def test_end_of_input_lets_the_run_finish_before_pith_exits(rpc: Start) -> None:
    client, _ = rpc({"turns": [slow_text("y" * 40)]})
    session_file = data(client.request("get_state"))["sessionFile"]
    client.request("prompt", message="long story")
    client.event("message_update")
    assert client.close() == 0
    assert any(r["type"] == "agent_settled" and not r["aborted"] for r in client.records)
    lines = [json.loads(line) for line in Path(session_file).read_text().splitlines()]
    messages = [e["message"] for e in lines if e.get("type") == "message"]
    assert roles(messages) == ["user", "assistant"]
    assert messages[-1]["stopReason"] == "stop"
    assert messages[-1]["content"][0]["text"] == "y" * 40


def test_a_signal_aborts_the_run_and_keeps_the_session(rpc: Start) -> None:
    client, _ = rpc({"turns": [slow_text("y" * 400)]})
    session_file = data(client.request("get_state"))["sessionFile"]
    client.request("prompt", message="long story")
    client.event("message_update")
    client.process.send_signal(signal.SIGTERM)
    assert client.close() == 0
    assert any(r["type"] == "agent_settled" and r["aborted"] for r in client.records)
    lines = [json.loads(line) for line in Path(session_file).read_text().splitlines()]
    messages = [e["message"] for e in lines if e.get("type") == "message"]
    assert roles(messages) == ["user", "assistant"]
    assert messages[-1]["stopReason"] == "aborted"
    assert "Traceback" not in client.stderr
