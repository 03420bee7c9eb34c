"""`pith -p` and `--mode json` against the fake server's Gemini routes, end to end."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pith.testing import FakeServer, subprocess_env

SIG = base64.b64encode(b"thought-of-turn-one").decode()
SIG_OF_TURN_1 = base64.b64encode(b"fake-thought-1").decode()
"""The fake server's own signature for script turn 1 (on its reply's last part)."""
MODEL = {"contextWindow": 1_048_576, "maxTokens": 8192, "reasoning": True}
COST = {"input": 0.3, "output": 2.5, "cacheRead": 0.03, "cacheWrite": 0}


def write_agent_dir(agent: Path, server: FakeServer) -> Path:
    """Provider `gem` with two Gemini models, so a session can change model."""
    agent.mkdir(parents=True, exist_ok=True)
    models = [
        {"id": "gemini-2.5-flash", **MODEL, "cost": COST},
        {"id": "gemini-2.5-pro", **MODEL},
    ]
    provider = {
        "baseUrl": server.gemini_base_url,
        "api": "google-generative-ai",
        "apiKey": "fake-key",
        "models": models,
    }
    (agent / "models.json").write_text(json.dumps({"providers": {"gem": provider}}))
    settings = {"retry": {"maxRetries": 2, "baseDelayMs": 10}}
    (agent / "settings.json").write_text(json.dumps(settings))
    return agent


def run_pith(
    tmp_path: Path, *args: str, model: str = "gem/gemini-2.5-flash"
) -> subprocess.CompletedProcess[str]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "hello.txt").write_text("Hello from the workspace.\n")
    return subprocess.run(
        [sys.executable, "-m", "pith", "--model", model, *args],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
        env=subprocess_env(tmp_path / "agent"),
    )


def session_entries(tmp_path: Path) -> list[dict[str, Any]]:
    (path,) = (tmp_path / "agent" / "sessions").rglob("*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def model_parts(request: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """The parts of each `model` turn in a logged request."""
    return [c["parts"] for c in request["body"]["contents"] if c["role"] == "model"]


THINK_READ_ANSWER: dict[str, Any] = {
    "turns": [
        {
            "thinking": "The file will tell.",
            "text": "Reading it.",
            "tool_calls": [{"name": "read", "arguments": {"path": "hello.txt"}}],
            "signature": SIG,
            "usage": {"input": 1000, "output": 120, "cacheRead": 2000, "reasoning": 40},
        },
        {"text": "It says hello.", "expect": ["Hello from the workspace."]},
    ]
}


def test_a_thinking_tool_turn_then_an_answer_with_the_signature_sent_back(
    tmp_path: Path,
) -> None:
    with FakeServer(THINK_READ_ANSWER) as server:
        write_agent_dir(tmp_path / "agent", server)
        result = run_pith(tmp_path, "--mode", "json", "What does hello.txt say?")
        assert server.problems() == []
        requests = server.requests
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [
        e["assistantMessageEvent"]["type"]
        for e in events
        if e["type"] == "message_update"
        and e["assistantMessageEvent"]["type"].endswith(("_start", "_end"))
    ]
    assert kinds[:6] == [
        "thinking_start",
        "thinking_end",
        "text_start",
        "text_end",
        "toolcall_start",
        "toolcall_end",
    ]
    assert [e["toolName"] for e in events if e["type"] == "tool_execution_end"] == ["read"]
    # The second request carries the first reply's parts, the signature on the call's part.
    assert model_parts(requests[1]) == [
        [
            {"thought": True, "text": "The file will tell."},
            {"text": "Reading it."},
            {
                "functionCall": {"name": "read", "args": {"path": "hello.txt"}},
                "thoughtSignature": SIG,
            },
        ]
    ]
    response = requests[1]["body"]["contents"][2]
    assert response["role"] == "user"
    (part,) = response["parts"]
    assert part["functionResponse"]["name"] == "read"
    assert "Hello from the workspace." in part["functionResponse"]["response"]["output"]
    # The session holds the blocks in Pi's fields, with usage and cost.
    messages = [e["message"] for e in session_entries(tmp_path) if e["type"] == "message"]
    first = next(m for m in messages if m["role"] == "assistant")
    assert [b["type"] for b in first["content"]] == ["thinking", "text", "toolCall"]
    assert first["content"][2]["thoughtSignature"] == SIG
    assert first["api"] == "google-generative-ai"
    assert first["stopReason"] == "toolUse"
    usage = first["usage"]
    assert (usage["input"], usage["output"], usage["cacheRead"]) == (1000, 120, 2000)
    assert usage["cost"]["total"] == pytest.approx((1000 * 0.3 + 120 * 2.5 + 2000 * 0.03) / 1e6)
    assert messages[-1]["content"] == [
        {"type": "text", "text": "It says hello.", "textSignature": SIG_OF_TURN_1}
    ]


def test_resume_replays_the_signed_parts_and_another_model_gets_none(tmp_path: Path) -> None:
    script = {
        "turns": [
            *THINK_READ_ANSWER["turns"],
            {"text": "Still hello.", "expect": [SIG, SIG_OF_TURN_1]},
            {"text": "Hello, says Pro.", "unless": ["thoughtSignature"]},
        ]
    }
    with FakeServer(script) as server:
        write_agent_dir(tmp_path / "agent", server)
        first = run_pith(tmp_path, "-p", "What does hello.txt say?")
        again = run_pith(tmp_path, "-c", "-p", "And now?")
        other = run_pith(tmp_path, "-c", "-p", "You, Pro?", model="gem/gemini-2.5-pro")
        assert server.problems() == []
        assert server.unused_turns() == []
        requests = server.requests
    assert (first.returncode, again.returncode, other.returncode) == (0, 0, 0), other.stderr
    assert again.stdout == "Still hello.\n"
    assert other.stdout == "Hello, says Pro.\n"
    assert model_parts(requests[2]) == [
        *model_parts(requests[1]),
        [{"text": "It says hello.", "thoughtSignature": SIG_OF_TURN_1}],
    ]
    # To another model the thinking is plain text and no signature goes along.
    assert model_parts(requests[3])[0] == [
        {"text": "The file will tell."},
        {"text": "Reading it."},
        {"functionCall": {"name": "read", "args": {"path": "hello.txt"}}},
    ]
    assert requests[3]["path"].startswith("/v1beta/models/gemini-2.5-pro:")


def test_rate_limit_server_error_and_cut_stream_are_retried(tmp_path: Path) -> None:
    script = {
        "turns": [
            {"fault": {"status": 429, "retryAfter": 0.01}},
            {"fault": {"status": 503}},
            {"text": "Hello there, friend", "fault": {"cutAfter": 2}},
            {"text": "Third time lucky."},
        ]
    }
    with FakeServer(script) as server:
        agent = write_agent_dir(tmp_path / "agent", server)
        retry = {"retry": {"maxRetries": 3, "baseDelayMs": 10}}
        (agent / "settings.json").write_text(json.dumps(retry))
        result = run_pith(tmp_path, "--mode", "json", "hi")
        assert server.unused_turns() == []
        requests = server.requests
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    retries = [e for e in events if e["type"] == "auto_retry_start"]
    assert [e["attempt"] for e in retries] == [1, 2, 3]
    assert "429" in retries[0]["errorMessage"]
    assert "503" in retries[1]["errorMessage"]
    assert retries[2]["errorMessage"].startswith("Stream ended unexpectedly")
    answer = [e for e in events if e["type"] == "message_end"][-1]["message"]
    assert (answer["role"], answer["stopReason"]) == ("assistant", "stop")
    assert answer["content"][0]["text"] == "Third time lucky."
    # Failed attempts are never sent back.
    assert model_parts(requests[-1]) == []


def test_overflow_is_reported_as_overflow_and_not_retried(tmp_path: Path) -> None:
    with FakeServer({"turns": [{"fault": {"overflow": True}}]}) as server:
        write_agent_dir(tmp_path / "agent", server)
        result = run_pith(tmp_path, "-p", "hi")
        assert len(server.requests) == 1
    assert result.returncode == 1
    assert result.stderr.startswith("pith: Context overflow: the conversation no longer fits")


def test_a_safety_stop_fails_the_run_with_the_reason(tmp_path: Path) -> None:
    script = {"turns": [{"text": "Well", "fault": {"finishReason": "SAFETY"}}]}
    with FakeServer(script) as server:
        write_agent_dir(tmp_path / "agent", server)
        result = run_pith(tmp_path, "-p", "hi")
        assert len(server.requests) == 1  # not worth retrying
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "pith: Gemini stopped the reply for safety reasons (finishReason SAFETY)"
    )
