"""`pith --mode rpc` driven by a scripted client: prompts, the event stream, steering and
follow-ups while a run goes, abort, queues, bad input, and closing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.app.rpc.client import Record
from tests.app.rpc.conftest import Start


def slow_text(text: str, delay: float = 0.05) -> dict[str, Any]:
    return {"text": text, "chunk": 1, "fault": {"chunkDelay": delay}}


def bash_call(command: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}


def roles(messages: object) -> list[str]:
    assert isinstance(messages, list)
    return [message["role"] for message in messages]


def user_texts(messages: object) -> list[str]:
    assert isinstance(messages, list)
    return [
        "".join(block["text"] for block in message["content"] if block["type"] == "text")
        for message in messages
        if message["role"] == "user"
    ]


def data(response: Record) -> Any:
    assert response["success"] is True, response.get("error")
    return response.get("data")


def test_a_prompt_is_answered_at_once_and_its_run_streams_events(rpc: Start) -> None:
    client, server = rpc({"turns": [{"text": "Hello there"}]})
    request_id = client.command("prompt", message="hi")
    response = client.response(request_id)
    assert data(response) == {"disposition": "started"}
    # The response comes before the run's first event.
    assert client.records.index(response) < client.records.index(client.event("agent_start"))
    deltas = []
    while (record := client.wait_for(lambda r: r["type"] in ("message_update", "agent_settled")))[
        "type"
    ] == "message_update":
        deltas.append(record["assistantMessageEvent"].get("delta", ""))
    assert "".join(deltas) == "Hello there"
    assert record == {"type": "agent_settled", "aborted": False}
    assert data(client.request("get_last_assistant_text")) == {"text": "Hello there"}
    assert roles(data(client.request("get_messages"))["messages"]) == ["user", "assistant"]
    assert client.close() == 0
    assert server.problems() == []


def test_events_are_the_json_mode_shapes(rpc: Start) -> None:
    client, _ = rpc({"turns": [{"text": "ok"}]})
    client.request("prompt", message="hi")
    client.settled()
    kinds = [r["type"] for r in client.records if r["type"] != "response"]
    assert kinds[:4] == ["agent_start", "turn_start", "message_start", "message_end"]
    assert kinds[-3:] == ["turn_end", "agent_end", "agent_settled"]
    end = next(r for r in client.records if r["type"] == "agent_end")
    assert end["willRetry"] is False
    assert roles(end["messages"]) == ["user", "assistant"]


def test_steering_while_a_tool_runs_reaches_the_next_request(rpc: Start) -> None:
    script = {
        "turns": [
            bash_call("sleep 0.6; echo slow"),
            {"text": "changed course", "expect": ["use the other file"]},
        ]
    }
    client, server = rpc(script)
    client.request("prompt", message="start")
    client.event("tool_execution_start")
    assert data(client.request("steer", message="use the other file")) == {"disposition": "queued"}
    update = next(r for r in client.records if r["type"] == "queue_update")  # before the response
    assert update == {"type": "queue_update", "steering": ["use the other file"], "followUp": []}
    client.settled()
    emptied = [r for r in client.records if r["type"] == "queue_update"][-1]
    assert emptied["steering"] == []
    messages = data(client.request("get_messages"))["messages"]
    assert roles(messages) == ["user", "assistant", "toolResult", "user", "assistant"]
    assert user_texts(messages) == ["start", "use the other file"]
    assert server.problems() == []


def test_a_prompt_while_running_needs_a_streaming_behavior(rpc: Start) -> None:
    client, server = rpc(
        {"turns": [slow_text("one two three four"), {"text": "later", "expect": ["and then"]}]}
    )
    client.request("prompt", message="first")
    client.event("message_update")
    refused = client.request("prompt", message="second")
    assert refused["success"] is False
    assert "streamingBehavior" in str(refused["error"])
    queued = client.request("prompt", message="and then", streamingBehavior="followUp")
    assert data(queued) == {"disposition": "queued"}
    assert next(r for r in client.records if r["type"] == "queue_update")["followUp"] == [
        "and then"
    ]
    client.settled()
    assert user_texts(data(client.request("get_messages"))["messages"]) == ["first", "and then"]
    assert server.problems() == []


def test_follow_up_waits_for_the_run_to_finish(rpc: Start) -> None:
    client, server = rpc(
        {"turns": [bash_call("sleep 0.5"), {"text": "done"}, {"text": "also", "expect": ["P.S."]}]}
    )
    client.request("prompt", message="go")
    client.event("tool_execution_start")
    assert data(client.request("follow_up", message="P.S.")) == {"disposition": "queued"}
    client.settled()
    messages = data(client.request("get_messages"))["messages"]
    assert roles(messages) == ["user", "assistant", "toolResult", "assistant", "user", "assistant"]
    assert server.problems() == []


def test_abort_stops_the_stream_and_answers_once_idle(rpc: Start) -> None:
    client, _ = rpc({"turns": [slow_text("x" * 200)]})
    client.request("prompt", message="talk")
    client.event("message_update")
    assert client.request("abort") == {
        "id": "req-2",
        "type": "response",
        "command": "abort",
        "success": True,
    }
    ended = next(
        r
        for r in client.records
        if r["type"] == "message_end" and r["message"]["role"] == "assistant"
    )
    assert ended["message"]["stopReason"] == "aborted"
    assert next(r for r in client.records if r["type"] == "agent_settled")["aborted"] is True
    state = data(client.request("get_state"))
    assert state["isStreaming"] is False


def test_clear_queue_hands_back_the_queued_texts(rpc: Start) -> None:
    client, _ = rpc({"turns": [bash_call("sleep 0.6"), {"text": "done"}]})
    client.request("prompt", message="go")
    client.event("tool_execution_start")
    client.request("steer", message="s1")
    client.request("follow_up", message="f1")
    assert data(client.request("get_state"))["pendingMessageCount"] == 2
    assert data(client.request("clear_queue")) == {"steering": ["s1"], "followUp": ["f1"]}
    client.settled()
    assert user_texts(data(client.request("get_messages"))["messages"]) == ["go"]


def test_a_command_cannot_be_steered(rpc: Start) -> None:
    client, _ = rpc({"turns": []})
    refused = client.request("steer", message="/compact now")
    assert refused["success"] is False
    assert refused["error"] == "steer: /compact is a command; send it with prompt"


def test_malformed_lines_get_an_error_and_the_process_goes_on(rpc: Start) -> None:
    client, _ = rpc({"turns": []})
    client.send_raw(b"{not json\n")
    parse = client.wait_for(lambda r: r["type"] == "response")
    assert parse["command"] == "parse"
    assert parse["success"] is False
    assert str(parse["error"]).startswith("Failed to parse command: ")
    assert "id" not in parse
    client.send_raw(b"[1]\n")
    assert client.wait_for(lambda r: r["type"] == "response")["error"] == (
        "Failed to parse command: expected a JSON object, got a list"
    )
    unknown = client.request("warp_drive")
    assert unknown == {
        "id": unknown["id"],
        "type": "response",
        "command": "warp_drive",
        "success": False,
        "error": "Unknown command: warp_drive",
    }
    wrong = client.request("set_auto_retry", enabled="yes")
    assert wrong["error"] == (
        "set_auto_retry: 'enabled' must be true or false (got the string \"yes\")"
    )
    missing = client.request("prompt")
    assert missing["error"] == "prompt: 'message' must be a string (missing)"
    assert data(client.request("get_state"))["isStreaming"] is False  # still answering
    assert client.close() == 0
    assert "Traceback" not in client.stderr


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"[" * 100_000, "nested more than 128 levels deep at line 1 column 129"),
        (b'{"type":"get_state","id":' + b"9" * 5000 + b"}", "a number longer than 1000 digits"),
    ],
)
def test_a_line_too_deep_or_too_long_for_the_decoder_is_refused_alone(
    rpc: Start, line: bytes, reason: str
) -> None:
    client, _ = rpc({"turns": []})
    client.send_raw(line + b"\n")
    refused = client.wait_for(lambda r: r["type"] == "response")
    assert refused["success"] is False
    assert refused["error"].startswith(f"Failed to parse command: {reason}")
    assert data(client.request("get_state"))["isStreaming"] is False  # still answering
    assert client.close() == 0
    assert "Traceback" not in client.stderr


def test_unicode_separators_inside_strings_are_not_record_breaks(rpc: Start) -> None:
    client, server = rpc({"turns": [{"text": "seen", "expect": ["a\u2028b"]}]})
    line = json.dumps(
        {"id": "u", "type": "prompt", "message": "a\u2028b\u2029c"}, ensure_ascii=False
    )
    client.send_raw(line.encode() + b"\r\n")
    assert data(client.response("u")) == {"disposition": "started"}
    client.settled()
    assert user_texts(data(client.request("get_messages"))["messages"]) == ["a\u2028b\u2029c"]
    assert server.problems() == []
