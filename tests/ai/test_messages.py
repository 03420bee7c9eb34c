"""Messages read and write Pi's JSON exactly, unknown fields included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    TextContent,
    ToolCall,
    UserMessage,
    WireError,
    convert,
    decode_json,
    encode_json,
    to_builtins,
)

FIXTURES = Path(__file__).resolve().parents[1] / "conformance" / "pi_sessions"


def _recorded_messages() -> list[dict[str, object]]:
    messages: list[dict[str, object]] = []
    for path in sorted(FIXTURES.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if entry.get("type") == "message":
                messages.append(entry["message"])
            if isinstance(entry.get("systemMessage"), dict):
                messages.append(entry["systemMessage"])
    return messages


RECORDED = _recorded_messages()


def test_recorded_pi_sessions_are_present() -> None:
    roles = {message["role"] for message in RECORDED}
    assert {"user", "assistant", "toolResult", "system"} <= roles


@pytest.mark.parametrize("message", RECORDED, ids=lambda m: str(m.get("role")))
def test_every_recorded_pi_message_round_trips_to_the_same_json(message: dict[str, object]) -> None:
    decoded = convert(message, AgentMessage)
    assert to_builtins(decoded) == message
    assert json.loads(encode_json(decoded)) == message
    assert to_builtins(decode_json(json.dumps(message), AgentMessage)) == message


def test_unknown_fields_survive_a_round_trip_at_every_level() -> None:
    raw = {
        "role": "assistant",
        "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {}, "x": 1}],
        "api": "openai-completions",
        "provider": "p",
        "model": "m",
        "usage": {
            "input": 1,
            "output": 2,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 3,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0, "y": 2},
            "z": 3,
        },
        "stopReason": "toolUse",
        "timestamp": 1,
        "futureField": {"nested": [1, 2]},
    }
    message = convert(raw, AgentMessage)
    assert isinstance(message, AssistantMessage)
    assert message.tool_calls()[0].name == "read"
    assert to_builtins(message) == raw
    assert json.loads(encode_json(message)) == raw


def test_python_attributes_are_snake_case_and_wire_names_camel_case() -> None:
    message = UserMessage(content=[TextContent(text="hi")], timestamp=5)
    assert to_builtins(message) == {
        "role": "user",
        "content": [{"type": "text", "text": "hi"}],
        "timestamp": 5,
    }
    call = ToolCall(id="1", name="bash", arguments={"command": "ls"})
    assert to_builtins(call) == {
        "type": "toolCall",
        "id": "1",
        "name": "bash",
        "arguments": {"command": "ls"},
    }


def test_a_bad_field_is_reported_with_its_path() -> None:
    with pytest.raises(WireError, match=r"content\[0\]\.text"):
        convert(
            {"role": "user", "content": [{"type": "text", "text": 3}], "timestamp": 1, "q": 1},
            AgentMessage,
        )


def test_an_unknown_role_is_reported_with_the_allowed_ones() -> None:
    with pytest.raises(WireError, match="expected one of"):
        convert({"role": "robot", "content": "x"}, AgentMessage)


def test_invalid_json_is_a_wire_error() -> None:
    with pytest.raises(WireError, match="invalid JSON"):
        decode_json("{nope", AgentMessage)
