"""The fake model server, driven over real HTTP by the official `openai` and `anthropic` SDKs."""

from __future__ import annotations

import asyncio
import json
import math
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import anthropic
import httpx2
import openai
import pytest
from anthropic.types import MessageParam
from openai.types.chat import ChatCompletionMessageParam

import pith.testing
from pith.testing import FakeServer, FakeServerProcess, ScriptError
from pith.testing.fake_server import main

OPENAI_USER: list[ChatCompletionMessageParam] = [{"role": "user", "content": "hi"}]
ANTHROPIC_USER: list[MessageParam] = [{"role": "user", "content": "hi"}]


_open_clients: list[openai.OpenAI | anthropic.Anthropic] = []


@pytest.fixture(autouse=True)
def _close_clients() -> Iterator[None]:
    yield
    while _open_clients:
        _open_clients.pop().close()


def openai_client(
    server: FakeServer, timeout: float = 10.0, base_url: str | None = None
) -> openai.OpenAI:
    """The official client, pointed at the fake server, never retrying; closed after the test."""
    client = openai.OpenAI(
        base_url=base_url or server.base_url, api_key="sk-secret", max_retries=0, timeout=timeout
    )
    _open_clients.append(client)
    return client


def anthropic_client(server: FakeServer | FakeServerProcess) -> anthropic.Anthropic:
    """The official client, pointed at the fake server, never retrying; closed after the test."""
    client = anthropic.Anthropic(
        base_url=server.anthropic_base_url, api_key="sk-ant-secret", max_retries=0, timeout=10.0
    )
    _open_clients.append(client)
    return client


TOOL_TURN = {
    "text": "Reading both.",
    "thinking": "The user wants two files.",
    "tool_calls": [
        {"name": "read", "arguments": {"path": "a.txt", "offset": 10}},
        {"name": "bash", "arguments": {"command": "ls -la | head"}},
    ],
    "chunk": 3,
}


# --- OpenAI chat completions ------------------------------------------------------------------


def test_openai_stream_reassembles_text_thinking_and_two_tool_calls() -> None:
    with FakeServer({"turns": [TOOL_TURN]}) as server:
        stream = openai_client(server).chat.completions.create(
            model="m", messages=OPENAI_USER, stream=True
        )
        chunks = list(stream)
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    text = "".join(d.content or "" for d in deltas)
    thinking = "".join(getattr(d, "reasoning_content", None) or "" for d in deltas)
    calls: dict[int, dict[str, str]] = {}
    for delta in deltas:
        for call in delta.tool_calls or []:
            entry = calls.setdefault(call.index, {"id": "", "name": "", "arguments": ""})
            entry["id"] += call.id or ""
            entry["name"] += (call.function and call.function.name) or ""
            entry["arguments"] += (call.function and call.function.arguments) or ""
    assert text == "Reading both."
    assert thinking == "The user wants two files."
    assert calls == {
        0: {"id": "call_0_0", "name": "read", "arguments": '{"path":"a.txt","offset":10}'},
        1: {"id": "call_0_1", "name": "bash", "arguments": '{"command":"ls -la | head"}'},
    }
    assert [c.choices[0].finish_reason for c in chunks][-1] == "tool_calls"


def test_openai_stream_splits_deltas_by_chunk_size() -> None:
    with FakeServer({"turns": [{"text": "abcdefgh", "chunk": 3}]}) as server:
        stream = openai_client(server).chat.completions.create(
            model="m", messages=OPENAI_USER, stream=True
        )
        pieces = [c.choices[0].delta.content for c in stream if c.choices]
    assert pieces == ["", "abc", "def", "gh", None]


def test_openai_stream_sends_usage_chunk_when_include_usage() -> None:
    usage = {"input": 100, "output": 20, "cacheRead": 30, "cacheWrite": 0, "reasoning": 5}
    with FakeServer({"turns": [{"text": "hi", "usage": usage}]}) as server:
        stream = openai_client(server).chat.completions.create(
            model="m", messages=OPENAI_USER, stream=True, stream_options={"include_usage": True}
        )
        chunks = list(stream)
    last = chunks[-1]
    assert last.choices == []
    assert last.usage is not None
    assert last.usage.prompt_tokens == 130
    assert last.usage.completion_tokens == 20
    assert last.usage.total_tokens == 150
    assert last.usage.prompt_tokens_details is not None
    assert last.usage.prompt_tokens_details.cached_tokens == 30
    assert last.usage.completion_tokens_details is not None
    assert last.usage.completion_tokens_details.reasoning_tokens == 5
    assert all(c.usage is None for c in chunks[:-1])


def test_openai_stream_has_no_usage_chunk_without_include_usage() -> None:
    with FakeServer({"turns": [{"text": "hi"}]}) as server:
        chunks = list(
            openai_client(server).chat.completions.create(
                model="m", messages=OPENAI_USER, stream=True
            )
        )
    assert all(c.choices and c.usage is None for c in chunks)


def test_openai_non_streaming_returns_chat_completion() -> None:
    with FakeServer({"model": "fake-model", "turns": [TOOL_TURN]}) as server:
        reply = openai_client(server).chat.completions.create(model="m", messages=OPENAI_USER)
    choice = reply.choices[0]
    assert reply.model == "fake-model"
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Reading both."
    assert getattr(choice.message, "reasoning_content", None) == "The user wants two files."
    calls = choice.message.tool_calls or []
    assert [(c.id, c.function.name, c.function.arguments) for c in calls] == [  # type: ignore[union-attr]
        ("call_0_0", "read", '{"path":"a.txt","offset":10}'),
        ("call_0_1", "bash", '{"command":"ls -la | head"}'),
    ]


def test_openai_stop_length_is_finish_reason_length() -> None:
    with FakeServer({"turns": [{"text": "cut", "stop": "length"}]}) as server:
        reply = openai_client(server).chat.completions.create(model="m", messages=OPENAI_USER)
    assert reply.choices[0].finish_reason == "length"


def test_usage_is_computed_from_sizes_when_not_scripted() -> None:
    with FakeServer({"turns": [{"text": "abcdefghi", "thinking": "abcde"}]}) as server:
        reply = openai_client(server).chat.completions.create(model="m", messages=OPENAI_USER)
        body_bytes = int(server.requests[0]["headers"]["content-length"])  # type: ignore[index]
    assert reply.usage is not None
    assert reply.usage.prompt_tokens == math.ceil(body_bytes / 4)
    assert reply.usage.completion_tokens == math.ceil(14 / 4)
    assert reply.usage.completion_tokens_details is not None
    assert reply.usage.completion_tokens_details.reasoning_tokens == 2


def test_raw_string_arguments_are_sent_verbatim() -> None:
    turn = {"tool_calls": [{"name": "read", "arguments": '{"path": "a.txt"', "id": "call_x"}]}
    with FakeServer({"turns": [turn]}) as server:
        reply = openai_client(server).chat.completions.create(model="m", messages=OPENAI_USER)
    call = (reply.choices[0].message.tool_calls or [])[0]
    assert call.id == "call_x"
    assert call.function.arguments == '{"path": "a.txt"'  # type: ignore[union-attr]


def test_model_is_echoed_when_script_names_none() -> None:
    with FakeServer({"turns": [{"text": "hi"}]}) as server:
        reply = openai_client(server).chat.completions.create(
            model="gpt-test", messages=OPENAI_USER
        )
    assert reply.model == "gpt-test"


def test_chat_completions_route_without_v1_is_accepted() -> None:
    with FakeServer({"turns": [{"text": "no v1"}]}) as server:
        client = openai_client(server, base_url=server.url)
        reply = client.chat.completions.create(model="m", messages=OPENAI_USER)
        assert server.requests[0]["path"] == "/chat/completions"
    assert reply.choices[0].message.content == "no v1"


def test_models_list_names_the_script_model_for_both_sdks() -> None:
    with FakeServer({"model": "fake-model", "turns": []}) as server:
        openai_ids = [m.id for m in openai_client(server).models.list()]
        anthropic_ids = [m.id for m in anthropic_client(server).models.list()]
    assert openai_ids == anthropic_ids == ["fake-model"]


def test_async_openai_client_streams() -> None:
    async def run(server: FakeServer) -> str:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="x", max_retries=0)
        stream = await client.chat.completions.create(model="m", messages=OPENAI_USER, stream=True)
        text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
        await client.close()
        return text

    with FakeServer({"turns": [{"text": "async hello"}]}) as server:
        assert asyncio.run(run(server)) == "async hello"


# --- Anthropic messages ----------------------------------------------------------------------


def test_anthropic_stream_events_come_in_api_order() -> None:
    with FakeServer({"turns": [TOOL_TURN | {"chunk": 100}]}) as server:
        stream = anthropic_client(server).messages.create(
            model="m", max_tokens=100, messages=ANTHROPIC_USER, stream=True
        )
        events = [(e.type, getattr(getattr(e, "delta", None), "type", None)) for e in stream]
    assert events == [
        ("message_start", None),
        ("content_block_start", None),
        ("content_block_delta", "thinking_delta"),
        ("content_block_delta", "signature_delta"),
        ("content_block_stop", None),
        ("content_block_start", None),
        ("content_block_delta", "text_delta"),
        ("content_block_stop", None),
        ("content_block_start", None),
        ("content_block_delta", "input_json_delta"),
        ("content_block_stop", None),
        ("content_block_start", None),
        ("content_block_delta", "input_json_delta"),
        ("content_block_stop", None),
        ("message_delta", None),
        ("message_stop", None),
    ]


def test_anthropic_stream_accumulates_to_full_message() -> None:
    usage = {"input": 50, "output": 12, "cacheRead": 7, "cacheWrite": 3}
    with FakeServer({"turns": [TOOL_TURN | {"usage": usage}]}) as server:
        client = anthropic_client(server)
        with client.messages.stream(model="m", max_tokens=100, messages=ANTHROPIC_USER) as stream:
            message = stream.get_final_message()
    thinking, text, read, bash = message.content
    assert thinking.type == "thinking"
    assert thinking.thinking == "The user wants two files."
    assert thinking.signature == "fake-signature-0"
    assert text.type == "text"
    assert text.text == "Reading both."
    assert read.type == "tool_use"
    assert (read.id, read.name, read.input) == (
        "toolu_0_0",
        "read",
        {"path": "a.txt", "offset": 10},
    )
    assert bash.type == "tool_use"
    assert (bash.id, bash.name, bash.input) == ("toolu_0_1", "bash", {"command": "ls -la | head"})
    assert message.stop_reason == "tool_use"
    assert message.usage.input_tokens == 50
    assert message.usage.output_tokens == 12
    assert message.usage.cache_read_input_tokens == 7
    assert message.usage.cache_creation_input_tokens == 3


def test_anthropic_stream_splits_tool_input_json_into_pieces() -> None:
    turn = {"tool_calls": [{"name": "read", "arguments": {"path": "abcdef"}}], "chunk": 5}
    with FakeServer({"turns": [turn]}) as server:
        stream = anthropic_client(server).messages.create(
            model="m", max_tokens=100, messages=ANTHROPIC_USER, stream=True
        )
        pieces = [
            e.delta.partial_json
            for e in stream
            if e.type == "content_block_delta" and e.delta.type == "input_json_delta"
        ]
    assert pieces == ['{"pat', 'h":"a', "bcdef", '"}']


def test_anthropic_non_streaming_returns_message() -> None:
    with FakeServer({"model": "claude-fake", "turns": [TOOL_TURN]}) as server:
        message = anthropic_client(server).messages.create(
            model="m", max_tokens=100, messages=ANTHROPIC_USER
        )
    assert message.model == "claude-fake"
    assert [block.type for block in message.content] == ["thinking", "text", "tool_use", "tool_use"]
    assert message.content[2].input == {"path": "a.txt", "offset": 10}  # type: ignore[union-attr]
    assert message.stop_reason == "tool_use"


def test_anthropic_stop_reasons_use_anthropic_names() -> None:
    script = {"turns": [{"text": "a"}, {"text": "b", "stop": "length"}]}
    with FakeServer(script) as server:
        client = anthropic_client(server)
        first = client.messages.create(model="m", max_tokens=10, messages=ANTHROPIC_USER)
        second = client.messages.create(model="m", max_tokens=10, messages=ANTHROPIC_USER)
    assert (first.stop_reason, second.stop_reason) == ("end_turn", "max_tokens")


def test_async_anthropic_client_streams() -> None:
    async def run(server: FakeServer) -> str:
        client = anthropic.AsyncAnthropic(
            base_url=server.anthropic_base_url, api_key="x", max_retries=0
        )
        async with client.messages.stream(
            model="m", max_tokens=10, messages=ANTHROPIC_USER
        ) as stream:
            text = await stream.get_final_text()
        await client.close()
        return text

    with FakeServer({"turns": [{"text": "async hello"}]}) as server:
        assert asyncio.run(run(server)) == "async hello"


# --- faults --------------------------------------------------------------------------------------


def test_rate_limit_fault_is_rate_limit_error_with_retry_after_openai() -> None:
    fault = {"status": 429, "retryAfter": 1.5, "message": "Rate limit exceeded"}
    with FakeServer({"turns": [{"fault": fault}, {"text": "ok"}]}) as server:
        client = openai_client(server)
        with pytest.raises(openai.RateLimitError) as caught:
            client.chat.completions.create(model="m", messages=OPENAI_USER)
        after = client.chat.completions.create(model="m", messages=OPENAI_USER)
    assert caught.value.response.headers["retry-after"] == "1.5"
    assert caught.value.response.headers["retry-after-ms"] == "1500"
    assert caught.value.body == {
        "message": "Rate limit exceeded",
        "type": "requests",
        "param": None,
        "code": "rate_limit_exceeded",
    }
    assert after.choices[0].message.content == "ok"


def test_rate_limit_fault_is_rate_limit_error_with_retry_after_anthropic() -> None:
    with (
        FakeServer({"turns": [{"fault": {"status": 429, "retryAfter": 2}}]}) as server,
        pytest.raises(anthropic.RateLimitError) as caught,
    ):
        anthropic_client(server).messages.create(model="m", max_tokens=10, messages=ANTHROPIC_USER)
    assert caught.value.response.headers["retry-after"] == "2"
    assert caught.value.body == {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "Rate limit exceeded"},
        "request_id": "req_fake_1",
    }


@pytest.mark.parametrize(("status", "kind"), [(500, "server_error"), (503, "server_error")])
def test_server_error_fault_is_internal_server_error(status: int, kind: str) -> None:
    with (
        FakeServer({"turns": [{"fault": {"status": status, "message": "boom"}}]}) as server,
        pytest.raises(openai.InternalServerError) as caught,
    ):
        openai_client(server).chat.completions.create(model="m", messages=OPENAI_USER)
    assert caught.value.status_code == status
    assert caught.value.body == {"message": "boom", "type": kind, "param": None, "code": None}


def test_overflow_fault_uses_openai_wording() -> None:
    with (
        FakeServer({"turns": [{"fault": {"overflow": True}}]}) as server,
        pytest.raises(openai.BadRequestError) as caught,
    ):
        openai_client(server).chat.completions.create(model="m", messages=OPENAI_USER)
    assert caught.value.code == "context_length_exceeded"
    assert "maximum context length is 128000 tokens" in caught.value.message
    assert "your messages resulted in 130000 tokens" in caught.value.message


def test_overflow_fault_uses_anthropic_wording() -> None:
    with (
        FakeServer({"turns": [{"fault": {"overflow": True}}]}) as server,
        pytest.raises(anthropic.BadRequestError) as caught,
    ):
        anthropic_client(server).messages.create(model="m", max_tokens=10, messages=ANTHROPIC_USER)
    assert caught.value.status_code == 400
    assert caught.value.body == {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "prompt is too long: 210000 tokens > 200000 maximum",
        },
        "request_id": "req_fake_1",
    }


def test_cut_stream_raises_in_openai_sdk_without_finish() -> None:
    with FakeServer({"turns": [{"text": "a long reply", "fault": {"cutAfter": 3}}]}) as server:
        stream = openai_client(server).chat.completions.create(
            model="m", messages=OPENAI_USER, stream=True
        )
        received: list[openai.types.chat.ChatCompletionChunk] = []
        with pytest.raises(openai.APIConnectionError):
            received.extend(stream)
    assert len(received) == 3
    assert all(c.choices[0].finish_reason is None for c in received)


def test_cut_stream_raises_in_anthropic_sdk_without_message_stop() -> None:
    with FakeServer({"turns": [{"text": "a long reply", "fault": {"cutAfter": 4}}]}) as server:
        stream = anthropic_client(server).messages.create(
            model="m", max_tokens=10, messages=ANTHROPIC_USER, stream=True
        )
        received: list[anthropic.types.RawMessageStreamEvent] = []
        # The anthropic SDK lets the transport's error through unwrapped.
        with pytest.raises(httpx2.RemoteProtocolError, match=r"incomplete chunked read"):
            received.extend(stream)
    # message_start, ping (skipped by the SDK), content_block_start, one text delta
    assert [e.type for e in received] == [
        "message_start",
        "content_block_start",
        "content_block_delta",
    ]


def test_cut_non_streaming_reply_raises() -> None:
    with (
        FakeServer({"turns": [{"text": "hello", "fault": {"cutAfter": 10}}]}) as server,
        pytest.raises(openai.APIConnectionError),
    ):
        openai_client(server).chat.completions.create(model="m", messages=OPENAI_USER)


def test_first_byte_delay_trips_a_shorter_client_timeout() -> None:
    script = {"turns": [{"text": "late", "fault": {"firstByteDelay": 1.0}}, {"text": "on time"}]}
    with FakeServer(script) as server:
        with pytest.raises(openai.APITimeoutError):
            openai_client(server, timeout=0.2).chat.completions.create(
                model="m", messages=OPENAI_USER
            )
        reply = openai_client(server).chat.completions.create(model="m", messages=OPENAI_USER)
    assert reply.choices[0].message.content == "on time"


def test_first_byte_delay_still_delivers_the_reply() -> None:
    script = {"turns": [{"text": "late", "fault": {"firstByteDelay": 0.3}}]}
    with FakeServer(script) as server:
        started = time.monotonic()
        reply = openai_client(server).chat.completions.create(model="m", messages=OPENAI_USER)
        elapsed = time.monotonic() - started
    assert reply.choices[0].message.content == "late"
    assert elapsed >= 0.3


def test_chunk_delay_allows_abort_mid_stream() -> None:
    script = {
        "turns": [{"text": "x" * 40, "chunk": 1, "fault": {"chunkDelay": 0.2}}, {"text": "next"}]
    }
    with FakeServer(script) as server:
        client = openai_client(server)
        stream = client.chat.completions.create(model="m", messages=OPENAI_USER, stream=True)
        first, second, third = next(stream), next(stream), next(stream)
        stream.close()  # the abort: 40 more chunks would take 8 s
        reply = client.chat.completions.create(model="m", messages=OPENAI_USER)
    assert [c.choices[0].delta.content for c in (first, second, third)] == ["", "x", "x"]
    assert reply.choices[0].message.content == "next"


# --- routing, expectations, the log ------------------------------------------------------------


def test_match_and_unless_route_requests_to_turns() -> None:
    script = {
        "turns": [
            {"match": ["summarize"], "text": "summary"},
            {"unless": ["summarize"], "text": "normal"},
        ]
    }
    with FakeServer(script) as server:
        client = openai_client(server)
        normal = client.chat.completions.create(model="m", messages=OPENAI_USER)
        summary = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "please summarize"}]
        )
        turns = [r["turn"] for r in server.requests]
        assert server.unused_turns() == []
    assert normal.choices[0].message.content == "normal"
    assert summary.choices[0].message.content == "summary"
    assert turns == [1, 0]


def test_match_also_sees_compact_json_of_the_body() -> None:
    script = {"turns": [{"match": ['"role":"user","content":"é"'], "text": "matched"}]}
    # Spaced and ASCII-escaped, unlike the needle: only the compact re-serialisation matches.
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "é"}]})
    assert '"role":"user"' not in body
    with FakeServer(script) as server:
        request = urllib.request.Request(
            f"{server.base_url}/chat/completions",
            data=body.encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request) as response:
            reply = json.load(response)
        assert server.problems() == []
    assert reply["choices"][0]["message"]["content"] == "matched"


def test_unused_turns_lists_turns_never_served() -> None:
    with FakeServer({"turns": [{"text": "a"}, {"text": "b"}, {"text": "c"}]}) as server:
        openai_client(server).chat.completions.create(model="m", messages=OPENAI_USER)
        assert server.unused_turns() == [1, 2]


def test_expectation_miss_is_recorded_as_problem() -> None:
    script = {"turns": [{"text": "ok", "expect": ["hi", "system prompt"]}]}
    with FakeServer(script) as server:
        reply = openai_client(server).chat.completions.create(model="m", messages=OPENAI_USER)
        problems = server.problems()
        logged = server.requests[0]["problems"]
    assert reply.choices[0].message.content == "ok"
    assert problems == ["request 1: turn 0: expected 'system prompt' in the request body"]
    assert logged == ["turn 0: expected 'system prompt' in the request body"]


def test_exhausted_script_answers_500_and_records_problem() -> None:
    with FakeServer({"turns": [{"text": "only"}]}) as server:
        client = anthropic_client(server)
        client.messages.create(model="m", max_tokens=10, messages=ANTHROPIC_USER)
        with pytest.raises(anthropic.InternalServerError) as caught:
            client.messages.create(model="m", max_tokens=10, messages=ANTHROPIC_USER)
        problems = server.problems()
    assert caught.value.status_code == 500
    assert caught.value.body == {
        "type": "error",
        "error": {"type": "api_error", "message": "fake server: script exhausted"},
        "request_id": "req_fake_2",
    }
    assert problems == ["request 2: script exhausted (POST /v1/messages)"]


def test_unknown_path_answers_404_and_records_problem() -> None:
    with FakeServer({"turns": []}) as server:
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(f"{server.url}/v1/embeddings", data=b"{}")
        assert server.problems() == ["request 1: no route for POST /v1/embeddings"]
    caught.value.close()
    assert caught.value.code == 404


def test_request_log_holds_method_path_headers_body_and_turn(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with FakeServer({"turns": [{"text": "a"}, {"text": "b"}]}, log=log) as server:
        openai_client(server).chat.completions.create(model="m", messages=OPENAI_USER)
        anthropic_client(server).messages.create(
            model="claude", max_tokens=5, messages=ANTHROPIC_USER
        )
        in_memory = server.requests
    on_disk = [json.loads(line) for line in log.read_text().splitlines()]
    assert on_disk == in_memory
    first, second = on_disk
    assert (first["n"], first["method"], first["path"], first["turn"]) == (
        1,
        "POST",
        "/v1/chat/completions",
        0,
    )
    assert first["body"] == {"model": "m", "messages": OPENAI_USER}
    assert second["path"] == "/v1/messages"
    assert second["body"] == {"model": "claude", "max_tokens": 5, "messages": OPENAI_USER}
    assert first["problems"] == second["problems"] == []
    for entry in on_disk:
        assert "authorization" not in entry["headers"]
        assert "x-api-key" not in entry["headers"]
        assert "secret" not in json.dumps(entry)
        assert entry["headers"]["content-type"] == "application/json"


def test_state_endpoint_reports_requests_unused_turns_and_problems() -> None:
    with FakeServer({"turns": [{"text": "a", "expect": ["nope"]}, {"text": "b"}]}) as server:
        openai_client(server).chat.completions.create(model="m", messages=OPENAI_USER)
        with urllib.request.urlopen(f"{server.url}/_pith/state") as response:
            state = json.load(response)
        assert len(server.requests) == 1  # the state request is not logged
    assert state == {
        "requests": 1,
        "unused_turns": [1],
        "problems": ["request 1: turn 0: expected 'nope' in the request body"],
    }


# --- the script and the process ----------------------------------------------------------------


def test_bad_script_is_rejected_with_turn_and_key() -> None:
    with pytest.raises(ScriptError, match=r"script turn 1: unknown key 'txt'"):
        FakeServer({"turns": [{"text": "ok"}, {"txt": "typo"}]})


def test_bad_fault_value_is_rejected() -> None:
    with pytest.raises(ScriptError, match=r"script turn 0 fault: 'status' must be int"):
        FakeServer({"turns": [{"fault": {"status": "429"}}]})


def test_script_can_be_a_file(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": [{"text": "from a file"}]}))
    with FakeServer(path) as server:
        reply = openai_client(server).chat.completions.create(model="m", messages=OPENAI_USER)
    assert reply.choices[0].message.content == "from a file"


def test_public_surface() -> None:
    assert pith.testing.__all__ == [
        "RAY_LOOPBACK",
        "FakeServer",
        "FakeServerProcess",
        "RayStartError",
        "ScriptError",
        "configure_agent_dir",
        "local_ray_cluster",
        "subprocess_env",
    ]


def test_non_loopback_host_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "script.json"
    path.write_text('{"turns": []}')
    assert main(["--script", str(path), "--host", "0.0.0.0"]) == 2
    assert "127.0.0.1 only" in capsys.readouterr().err


def test_module_runs_as_a_process_and_stops_on_sigterm(tmp_path: Path) -> None:
    script, port_file, log = tmp_path / "s.json", tmp_path / "port", tmp_path / "log.jsonl"
    script.write_text(json.dumps({"model": "fake-model", "turns": [{"text": "from a process"}]}))
    command = [sys.executable, "-m", "pith.testing.fake_server", "--script", str(script)]
    command += ["--port", "0", "--port-file", str(port_file), "--log", str(log)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        port = int(port_file.read_text())
        assert line == f"listening on http://127.0.0.1:{port}"
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="x", max_retries=0)
        reply = client.chat.completions.create(model="m", messages=OPENAI_USER, stream=True)
        text = "".join(c.choices[0].delta.content or "" for c in reply if c.choices)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_pith/state") as response:
            state = json.load(response)
        client.close()
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=10)
    assert text == "from a process"
    assert state == {"requests": 1, "unused_turns": [], "problems": []}
    assert process.returncode == 0
    assert stderr == ""
    assert [json.loads(x)["turn"] for x in log.read_text().splitlines()] == [0]


def test_subprocess_helper_serves_the_anthropic_sdk() -> None:
    script = {"turns": [{"text": "child", "expect": ["absent"]}, {"text": "unused"}]}
    with FakeServer.subprocess(script) as server:
        message = anthropic_client(server).messages.create(
            model="m", max_tokens=10, messages=ANTHROPIC_USER
        )
        assert server.unused_turns() == [1]
        assert server.problems() == ["request 1: turn 0: expected 'absent' in the request body"]
    assert message.content[0].text == "child"  # type: ignore[union-attr]
    assert [r["turn"] for r in server.requests] == [0]
    assert server.returncode == 0
