"""`pith -p` on the openai-responses api, end to end against the fake model server: reasoning
replayed between turns and across `pith -c`, usage and cost in the session, retries."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pith.testing import FakeServer

MODEL = {
    "id": "fake-gpt",
    "reasoning": True,
    "contextWindow": 400000,
    "maxTokens": 8192,
    "cost": {"input": 1.25, "output": 10, "cacheRead": 0.125, "cacheWrite": 0},
}

REASONING_ITEM = {
    "id": "rs_fake_1",
    "type": "reasoning",
    "summary": [{"type": "summary_text", "text": "Check the notes first."}],
    "encrypted_content": "fake-encrypted-0",
}
FIRST_TURN = [
    REASONING_ITEM,
    {
        "type": "function_call",
        "id": "fc_fake_1_0",
        "call_id": "call_0_0",
        "name": "read",
        "arguments": '{"path":"notes.txt"}',
    },
    {"type": "function_call_output", "call_id": "call_0_0", "output": "Buy milk.\n"},
]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    directory = tmp_path / "work"
    directory.mkdir()
    (directory / "notes.txt").write_text("Buy milk.\n")
    return directory


def agent_dir(tmp_path: Path, server: FakeServer) -> Path:
    agent = tmp_path / "agent"
    agent.mkdir(exist_ok=True)
    provider = {
        "baseUrl": server.base_url,
        "api": "openai-responses",
        "apiKey": "fake-key",
        "models": [MODEL],
    }
    (agent / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
    return agent


def pith(tmp_path: Path, agent: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env = {k: v for k, v in env.items() if not k.startswith(("PITH_", "OPENAI_"))}
    env.update(PITH_AGENT_DIR=str(agent), HOME=str(tmp_path))
    return subprocess.run(
        [sys.executable, "-m", "pith", "--model", "fake/fake-gpt", "--no-context-files", *args],
        cwd=tmp_path / "work",
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def session_messages(agent: Path) -> list[dict[str, Any]]:
    [session] = (agent / "sessions").glob("*/*.jsonl")
    lines = [json.loads(line) for line in session.read_text().splitlines()]
    return [line["message"] for line in lines if line["type"] == "message"]


def input_items(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The request's input without the instructions and user messages."""
    return [item for item in request["body"]["input"] if "type" in item]


SCRIPT = {
    "turns": [
        {
            "thinking": "Check the notes first.",
            "tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}],
            "usage": {"input": 900, "output": 40, "cacheRead": 3000, "reasoning": 25},
            "expect": ['"include":["reasoning.encrypted_content"]', '"store":false'],
        },
        {"text": "They say: buy milk.", "expect": ["fake-encrypted-0", "fc_fake_1_0"]},
        {"text": "You're welcome.", "expect": ["fake-encrypted-0", "They say: buy milk."]},
    ]
}


def test_reasoning_and_tool_calls_are_replayed_in_the_next_request_and_after_resume(
    tmp_path: Path, work: Path
) -> None:
    with FakeServer(SCRIPT) as server:
        agent = agent_dir(tmp_path, server)
        first = pith(tmp_path, agent, "-p", "What do my notes say?")
        resumed = pith(tmp_path, agent, "-c", "-p", "Thanks.")
        assert server.problems() == []
        assert server.unused_turns() == []
        requests = server.requests
    assert first.returncode == 0, first.stderr
    assert first.stdout == "They say: buy milk.\n"
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == "You're welcome.\n"
    assert [r["path"] for r in requests] == ["/v1/responses"] * 3
    assert input_items(requests[1]) == FIRST_TURN
    answer = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "They say: buy milk.", "annotations": []}],
        "status": "completed",
        "id": "msg_fake_2",
    }
    # The resumed process reads them back from the session file, unchanged.
    assert input_items(requests[2]) == [*FIRST_TURN, answer]
    session_id = requests[0]["body"]["prompt_cache_key"]
    assert [r["body"]["prompt_cache_key"] for r in requests] == [session_id] * 3

    messages = session_messages(agent)
    assert [m["role"] for m in messages] == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "user",
        "assistant",
    ]
    thinking, call = messages[1]["content"]
    assert thinking["type"] == "thinking"
    assert thinking["thinking"] == "Check the notes first."
    assert json.loads(thinking["thinkingSignature"]) == REASONING_ITEM
    assert call["id"] == "call_0_0|fc_fake_1_0"
    assert messages[2]["toolCallId"] == "call_0_0|fc_fake_1_0"
    assert messages[1]["api"] == "openai-responses"
    assert messages[3]["content"][0]["textSignature"] == '{"v":1,"id":"msg_fake_2"}'
    usage = messages[1]["usage"]
    assert {k: usage[k] for k in ("input", "output", "cacheRead", "reasoning")} == {
        "input": 900,
        "output": 40,
        "cacheRead": 3000,
        "reasoning": 25,
    }
    assert usage["cost"]["total"] == pytest.approx((900 * 1.25 + 40 * 10 + 3000 * 0.125) / 1e6)


def test_json_mode_streams_the_reasoning_summary_as_thinking(tmp_path: Path, work: Path) -> None:
    script = {"turns": [{"thinking": "Two and two.", "text": "4"}]}
    with FakeServer(script) as server:
        agent = agent_dir(tmp_path, server)
        result = pith(tmp_path, agent, "--mode", "json", "2+2?")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [e["assistantMessageEvent"]["type"] for e in events if e["type"] == "message_update"]
    assert [k for k in kinds if not k.endswith("_delta")] == [
        "thinking_start",
        "thinking_end",
        "text_start",
        "text_end",
    ]
    final = [e for e in events if e["type"] == "message_end"][-1]["message"]
    assert final["stopReason"] == "stop"
    assert final["content"][0]["thinking"] == "Two and two."


@pytest.mark.parametrize(
    "fault",
    [
        {"status": 429, "retryAfter": 0.05, "message": "Rate limit reached"},
        {"status": 500, "retryAfter": 0.05},
        {"cutAfter": 5},
    ],
    ids=["rate-limit", "server-error", "cut-stream"],
)
def test_a_transient_failure_is_retried_and_then_succeeds(
    tmp_path: Path, work: Path, fault: dict[str, Any]
) -> None:
    script = {
        "turns": [
            {"text": "Partial reply that is lost.", "fault": fault},
            {"text": "Worked on the second try."},
        ]
    }
    with FakeServer(script) as server:
        agent = agent_dir(tmp_path, server)
        result = pith(tmp_path, agent, "--mode", "json", "hi")
        requests = server.requests
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    retry = [e for e in events if e["type"].startswith("auto_retry")]
    assert retry[0]["type"] == "auto_retry_start"
    assert retry[-1] == {"type": "auto_retry_end", "success": True, "attempt": 1}
    # The failed attempt is not sent back to the model.
    assert [item.get("role") for item in requests[1]["body"]["input"]] == ["developer", "user"]
    final = [e for e in events if e["type"] == "message_end"][-1]["message"]
    assert final["content"][-1]["text"] == "Worked on the second try."


def test_an_input_over_the_window_is_a_context_overflow(tmp_path: Path, work: Path) -> None:
    with FakeServer({"turns": [{"fault": {"overflow": True}}]}) as server:
        agent = agent_dir(tmp_path, server)
        result = pith(tmp_path, agent, "-p", "hi")
        assert len(server.requests) == 1  # never retried
    assert result.returncode == 1
    assert result.stderr.startswith("pith: Context overflow: the conversation no longer fits")
