"""`pith -p` and `--mode json` end to end: a real pith process against the fake model server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pith.testing import FakeServer


def setup_agent_dir(tmp_path: Path, server: FakeServer, api: str = "openai-completions") -> Path:
    agent = tmp_path / "agent"
    agent.mkdir(exist_ok=True)
    base = server.base_url if api == "openai-completions" else server.anthropic_base_url
    models = {
        "providers": {
            "fake": {
                "baseUrl": base,
                "api": api,
                "apiKey": "fake-key",
                "models": [{"id": "fake-model", "contextWindow": 128000, "maxTokens": 4096}],
            }
        }
    }
    (agent / "models.json").write_text(json.dumps(models))
    return agent


def run_pith(
    tmp_path: Path, agent: Path, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PITH_AGENT_DIR"] = str(agent)
    return subprocess.run(
        [sys.executable, "-m", "pith", "--model", "fake/fake-model", *args],
        cwd=tmp_path / "work",
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


@pytest.fixture
def work(tmp_path: Path) -> Path:
    directory = tmp_path / "work"
    directory.mkdir()
    (directory / "hello.txt").write_text("Hello from the workspace.\n")
    (directory / "app.py").write_text("print('helo')\n")
    return directory


READ_BASH_EDIT: dict[str, Any] = {
    "turns": [
        {
            "text": "Reading first.",
            "tool_calls": [{"name": "read", "arguments": {"path": "hello.txt"}}],
        },
        {
            "tool_calls": [{"name": "bash", "arguments": {"command": "ls"}}],
            "expect": ["Hello from the workspace."],
        },
        {
            "tool_calls": [
                {
                    "name": "edit",
                    "arguments": {
                        "path": "app.py",
                        "edits": [{"oldText": "helo", "newText": "hello"}],
                    },
                }
            ],
            "expect": ["app.py\\nhello.txt"],
        },
        {
            "text": "Fixed the typo in app.py.",
            "expect": ["Successfully replaced 1 block(s) in app.py."],
        },
    ]
}


@pytest.mark.parametrize("api", ["openai-completions", "anthropic-messages"])
def test_print_mode_reads_runs_and_edits(tmp_path: Path, work: Path, api: str) -> None:
    with FakeServer(READ_BASH_EDIT) as server:
        agent = setup_agent_dir(tmp_path, server, api)
        result = run_pith(tmp_path, agent, "-p", "Fix the typo in app.py")
        assert server.problems() == []
        assert server.unused_turns() == []
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Fixed the typo in app.py.\n"
    assert (work / "app.py").read_text() == "print('hello')\n"


def test_json_mode_streams_every_event_in_pis_shapes(tmp_path: Path, work: Path) -> None:
    with FakeServer(READ_BASH_EDIT) as server:
        agent = setup_agent_dir(tmp_path, server)
        result = run_pith(tmp_path, agent, "--mode", "json", "Fix the typo in app.py")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["type"] == "session"
    assert events[0]["version"] == 3
    types = [event["type"] for event in events[1:]]
    assert types[:4] == ["agent_start", "turn_start", "message_start", "message_end"]
    assert types[-2:] == ["agent_end", "agent_settled"]
    assert types.count("turn_end") == 4
    updates = [e for e in events if e["type"] == "message_update"]
    assert all(set(e) == {"type", "usage", "assistantMessageEvent"} for e in updates)
    starts = [
        e["assistantMessageEvent"]
        for e in updates
        if e["assistantMessageEvent"]["type"] == "toolcall_start"
    ]
    assert starts[0]["toolName"] == "read"
    ends = [e for e in events if e["type"] == "tool_execution_end"]
    assert [e["toolName"] for e in ends] == ["read", "bash", "edit"]
    assert ends[2]["result"]["content"][0]["text"] == "Successfully replaced 1 block(s) in app.py."
    assert "patch" in ends[2]["result"]["details"]
    final = [e for e in events if e["type"] == "message_end"][-1]["message"]
    assert final["role"] == "assistant"
    assert final["stopReason"] == "stop"


def block_events(stdout: str) -> list[str]:
    """The start and end events of the reply's blocks, in the order `--mode json` sent them."""
    kinds = [
        event["assistantMessageEvent"]["type"]
        for event in map(json.loads, stdout.splitlines())
        if event["type"] == "message_update"
    ]
    return [kind for kind in kinds if kind.endswith(("_start", "_end"))]


@pytest.mark.parametrize("api", ["openai-completions", "anthropic-messages"])
def test_json_mode_ends_the_thinking_block_before_the_text_starts(
    tmp_path: Path, work: Path, api: str
) -> None:
    script = {"turns": [{"thinking": "Let me think it over.", "text": "The answer is 4."}]}
    with FakeServer(script) as server:
        agent = setup_agent_dir(tmp_path, server, api=api)
        result = run_pith(tmp_path, agent, "--mode", "json", "2+2?")
    assert result.returncode == 0, result.stderr
    blocks = block_events(result.stdout)
    assert blocks == ["thinking_start", "thinking_end", "text_start", "text_end"], blocks


@pytest.mark.parametrize("api", ["openai-completions", "anthropic-messages"])
def test_json_mode_ends_the_text_block_before_a_tool_call_starts(
    tmp_path: Path, work: Path, api: str
) -> None:
    script = {
        "turns": [
            {
                "thinking": "Look first.",
                "text": "Reading it.",
                "tool_calls": [{"name": "read", "arguments": {"path": "hello.txt"}}],
            },
            {"text": "Done."},
        ]
    }
    with FakeServer(script) as server:
        agent = setup_agent_dir(tmp_path, server, api=api)
        result = run_pith(tmp_path, agent, "--mode", "json", "read it")
    assert result.returncode == 0, result.stderr
    blocks = block_events(result.stdout)
    assert blocks[:6] == [
        "thinking_start",
        "thinking_end",
        "text_start",
        "text_end",
        "toolcall_start",
        "toolcall_end",
    ], blocks


def test_a_rate_limit_is_retried_and_then_succeeds(tmp_path: Path, work: Path) -> None:
    script = {
        "turns": [
            {"fault": {"status": 429, "retryAfter": 0.05, "message": "Rate limit exceeded"}},
            {"text": "Worked on the second try."},
        ]
    }
    with FakeServer(script) as server:
        agent = setup_agent_dir(tmp_path, server)
        result = run_pith(tmp_path, agent, "--mode", "json", "hi")
        requests = server.requests
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    retry = [e for e in events if e["type"].startswith("auto_retry")]
    assert retry[0]["type"] == "auto_retry_start"
    assert retry[0]["attempt"] == 1
    assert retry[0]["maxAttempts"] == 3
    assert retry[0]["delayMs"] == 50
    assert retry[-1] == {"type": "auto_retry_end", "success": True, "attempt": 1}
    # The failed attempt is not sent back to the model.
    assert [m["role"] for m in requests[1]["body"]["messages"]] == ["system", "user"]


def test_quota_errors_are_not_retried(tmp_path: Path, work: Path) -> None:
    script = {
        "turns": [
            {
                "fault": {
                    "status": 429,
                    "message": "You exceeded your current quota (insufficient_quota)",
                }
            }
        ]
    }
    with FakeServer(script) as server:
        agent = setup_agent_dir(tmp_path, server)
        result = run_pith(tmp_path, agent, "-p", "hi")
        assert len(server.requests) == 1
    assert result.returncode == 1
    assert result.stderr.strip() == "pith: 429 You exceeded your current quota (insufficient_quota)"


def test_overflow_is_reported_as_overflow(tmp_path: Path, work: Path) -> None:
    with FakeServer({"turns": [{"fault": {"overflow": True}}]}) as server:
        agent = setup_agent_dir(tmp_path, server)
        result = run_pith(tmp_path, agent, "-p", "hi")
        assert len(server.requests) == 1  # never retried
    assert result.returncode == 1
    assert result.stderr.startswith("pith: Context overflow: the conversation no longer fits")
    assert len(result.stderr.strip().splitlines()) == 1


def test_length_stop_exits_1_after_printing_the_text(tmp_path: Path, work: Path) -> None:
    with FakeServer({"turns": [{"text": "A long answer that", "stop": "length"}]}) as server:
        agent = setup_agent_dir(tmp_path, server)
        result = run_pith(tmp_path, agent, "-p", "hi")
    assert result.returncode == 1
    assert result.stdout == "A long answer that\n"
    assert "Response was truncated" in result.stderr


def test_piped_stdin_and_file_attachments_form_the_first_prompt(tmp_path: Path, work: Path) -> None:
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        agent = setup_agent_dir(tmp_path, server)
        result = run_pith(
            tmp_path, agent, "-p", "@hello.txt", "Summarize.", stdin="diff --git a b\n"
        )
        body = server.requests[0]["body"]
    assert result.returncode == 0, result.stderr
    text = body["messages"][1]["content"][0]["text"]
    path = work / "hello.txt"
    assert (
        text
        == f'diff --git a b\n<file name="{path}">\nHello from the workspace.\n\n</file>\nSummarize.'
    )


def test_tools_flag_chooses_what_the_model_gets(tmp_path: Path, work: Path) -> None:
    with FakeServer({"turns": [{"text": "ok"}, {"text": "ok"}]}) as server:
        agent = setup_agent_dir(tmp_path, server)
        run_pith(tmp_path, agent, "-p", "--tools", "read,grep", "hi")
        run_pith(tmp_path, agent, "-p", "--no-tools", "hi")
        first, second = (request["body"] for request in server.requests)
    assert [tool["function"]["name"] for tool in first["tools"]] == ["read", "grep"]
    assert "tools" not in second


def test_a_missing_attachment_is_a_clear_error(tmp_path: Path, work: Path) -> None:
    with FakeServer({"turns": []}) as server:
        agent = setup_agent_dir(tmp_path, server)
        result = run_pith(tmp_path, agent, "-p", "@nope.txt", "hi")
    assert result.returncode == 2
    assert result.stderr.startswith("pith: @nope.txt: file not found")


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_ctrl_c_or_a_closed_terminal_aborts_the_stream_and_exits_1(
    tmp_path: Path, work: Path, signal_name: str
) -> None:
    import signal

    script = {"turns": [{"text": "x" * 200, "chunk": 1, "fault": {"chunkDelay": 0.05}}]}
    with FakeServer(script) as server:
        agent = setup_agent_dir(tmp_path, server)
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env["PITH_AGENT_DIR"] = str(agent)
        process = subprocess.Popen(
            [sys.executable, "-m", "pith", "--model", "fake/fake-model", "--mode", "json", "hi"],
            cwd=work,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None
        for line in process.stdout:  # wait until the reply is streaming
            if '"text_delta"' in line:
                break
        process.send_signal(getattr(signal, signal_name))
        out, err = process.communicate(timeout=30)
    assert process.returncode == 1
    assert err.strip() == "pith: Aborted."
    events = [json.loads(line) for line in out.splitlines()]
    final = [e for e in events if e["type"] == "message_end"][-1]["message"]
    assert final["stopReason"] == "aborted"
    assert events[-1] == {"type": "agent_settled", "aborted": True}


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_during_a_tool_aborts_the_run_and_exits_1(
    tmp_path: Path, work: Path, signal_name: str
) -> None:
    """Stopped while a tool runs, print mode must not report success (the turn was cut)."""
    import signal
    import time

    marker = work / "started"
    command = f"touch {marker}; sleep 30"
    script = {
        "turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]},
            {"text": "never reached"},
        ]
    }
    with FakeServer(script) as server:
        agent = setup_agent_dir(tmp_path, server)
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env["PITH_AGENT_DIR"] = str(agent)
        process = subprocess.Popen(
            [sys.executable, "-m", "pith", "--model", "fake/fake-model", "-p", "wait"],
            cwd=work,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while not marker.exists():  # the tool has started
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the bash tool never started"
            time.sleep(0.02)
        process.send_signal(getattr(signal, signal_name))
        out, err = process.communicate(timeout=60)
    assert process.returncode == 1, (out, err)
    assert err.strip() == "pith: Aborted."
    assert out == ""


def test_an_empty_session_file_is_started_in_place(tmp_path: Path, work: Path) -> None:
    """`--session empty.jsonl`: a zero-byte file gets a fresh header and the conversation."""
    empty = work / "empty.jsonl"
    empty.write_bytes(b"")
    with FakeServer({"turns": [{"text": "hi there"}]}) as server:
        agent = setup_agent_dir(tmp_path, server)
        result = run_pith(tmp_path, agent, "-p", "--session", str(empty), "hello")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hi there\n"
    lines = [json.loads(line) for line in empty.read_text().splitlines()]
    assert lines[0]["type"] == "session"
    assert lines[0]["cwd"] == str(work)
    assert [line["message"]["role"] for line in lines[1:] if line["type"] == "message"] == [
        "user",
        "assistant",
    ]


def test_a_session_file_that_is_not_a_session_still_stops(tmp_path: Path, work: Path) -> None:
    notes = work / "notes.jsonl"
    notes.write_text('{"hello": "world"}\n')
    with FakeServer({"turns": [{"text": "unused"}]}) as server:
        agent = setup_agent_dir(tmp_path, server)
        result = run_pith(tmp_path, agent, "-p", "--session", str(notes), "hello")
    assert result.returncode == 2
    assert "not a pith/Pi session" in result.stderr
    assert notes.read_text() == '{"hello": "world"}\n'


@pytest.mark.parametrize("api", ["openai-completions", "anthropic-messages"])
def test_tool_arguments_nested_too_deep_get_an_error_result_and_the_turn_is_kept(
    tmp_path: Path, work: Path, api: str
) -> None:
    deep = '{"path": ' + "[" * 100_000 + "]" * 100_000 + "}"
    script = {
        "chunk": 50_000,
        "turns": [
            {"tool_calls": [{"name": "read", "arguments": deep}]},
            {"text": "I will send flat arguments.", "expect": ["nested more than 100 levels"]},
        ],
    }
    with FakeServer(script) as server:
        agent = setup_agent_dir(tmp_path, server, api)
        result = run_pith(tmp_path, agent, "-p", "read it")
        assert server.state()["problems"] == []
    assert result.returncode == 0, result.stderr
    assert "I will send flat arguments." in result.stdout
    [session] = (agent / "sessions").glob("*/*.jsonl")
    messages = [
        line["message"]
        for line in map(json.loads, session.read_text().splitlines())
        if line["type"] == "message"
    ]
    assert [message["role"] for message in messages] == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
    ]
    assert messages[1]["content"][0]["type"] == "toolCall"
    assert messages[2]["isError"] is True
    assert "nested more than 100 levels deep" in messages[2]["content"][0]["text"]
