"""The OpenAI Responses provider over real HTTP against pith's fake model server."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pith.agent import AbortController
from pith.ai import (
    AssistantMessage,
    Context,
    DoneEvent,
    ErrorEvent,
    ImageContent,
    MessageBuilder,
    Model,
    ModelCost,
    StreamEvent,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
    builtin_models,
    default_api_for,
    is_context_overflow,
    provider_for,
)
from pith.ai._openai_responses import _EventState
from pith.ai._reply_stream import StreamFailure
from pith.ai._responses_convert import build_request, convert_input, reasoning_effort
from pith.testing import FakeServer

PNG = "iVBORw0KGgo="
SESSION = "0f4e5f9a-1111-4222-8333-444455556666"
READ = ToolSpec("read", "Read a file", {"type": "object", "properties": {}})

TOOL_TURN = {
    "thinking": "The notes are in notes.txt.",
    "text": "Reading.",
    "tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}],
    "usage": {"input": 100, "output": 30, "cacheRead": 400, "reasoning": 12},
}


def gpt(server: FakeServer | None = None, **fields: Any) -> Model:
    values: dict[str, Any] = {
        "id": "gpt-5",
        "provider": "openai",
        "api": "openai-responses",
        "base_url": server.base_url if server is not None else "",
        "reasoning": True,
        "input": ["text", "image"],
        "cost": ModelCost(input=1.25, output=10, cache_read=0.125),
        "context_window": 400_000,
        "max_tokens": 128_000,
    }
    values.update(fields)
    return Model(**values)


def run(
    server: FakeServer, context: Context, options: StreamOptions | None = None, **fields: Any
) -> tuple[list[StreamEvent], AssistantMessage]:
    chosen = gpt(server, **fields)

    async def go() -> list[StreamEvent]:
        opts = options or StreamOptions(api_key="sk-test", session_id=SESSION, thinking="medium")
        return [event async for event in provider_for(chosen).stream(chosen, context, opts)]

    events = asyncio.run(go())
    assert sum(isinstance(e, DoneEvent | ErrorEvent) for e in events) == 1
    final = events[-1]
    assert isinstance(final, DoneEvent | ErrorEvent)
    return events, final.message


def ask(text: str = "What do my notes say?") -> Context:
    return Context("Be brief.", [UserMessage(content=text)], [READ])


def body(server: FakeServer, n: int = -1) -> dict[str, Any]:
    request = server.requests[n]["body"]
    assert isinstance(request, dict)
    return request


# --- a reply streamed over HTTP -------------------------------------------------------------


def test_reasoning_text_and_a_tool_call_become_blocks_with_their_replay_fields() -> None:
    with FakeServer({"turns": [TOOL_TURN]}) as server:
        events, message = run(server, ask())
        sent = body(server)
        headers = server.requests[-1]["headers"]
    assert [e.type for e in events if not e.type.endswith("_delta")] == [
        "start",
        "thinking_start",
        "thinking_end",
        "text_start",
        "text_end",
        "toolcall_start",
        "toolcall_end",
        "done",
    ]
    thinking, text, call = message.content
    assert isinstance(thinking, ThinkingContent)
    assert thinking.thinking == "The notes are in notes.txt."
    assert isinstance(thinking.thinking_signature, str)
    assert json.loads(thinking.thinking_signature) == {
        "id": "rs_fake_1",
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "The notes are in notes.txt."}],
        "encrypted_content": "fake-encrypted-0",
    }
    assert isinstance(text, TextContent)
    assert text.text == "Reading."
    assert text.text_signature == '{"v":1,"id":"msg_fake_1"}'
    assert isinstance(call, ToolCall)
    assert (call.id, call.name, call.arguments) == (
        "call_0_0|fc_fake_1_0",
        "read",
        {"path": "notes.txt"},
    )
    assert message.stop_reason == "toolUse"
    assert message.raw_stop_reason == "completed"
    assert message.response_id == "resp_fake_1"
    usage = message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.reasoning) == (100, 30, 400, 12)
    assert usage.total_tokens == 530
    assert usage.cost.total == pytest.approx((100 * 1.25 + 30 * 10 + 400 * 0.125) / 1e6)
    assert sent["store"] is False
    assert sent["stream"] is True
    assert sent["include"] == ["reasoning.encrypted_content"]
    assert sent["reasoning"] == {"effort": "medium", "summary": "auto"}
    assert sent["prompt_cache_key"] == SESSION
    assert sent["tools"] == [
        {
            "type": "function",
            "name": "read",
            "description": "Read a file",
            "parameters": {"type": "object", "properties": {}},
        }
    ]
    assert sent["input"] == [
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": [{"type": "input_text", "text": "What do my notes say?"}]},
    ]
    assert "authorization" not in headers  # the fake server's log leaves keys out
    assert headers["session-id"] == headers["x-client-request-id"] == SESSION
    assert server.requests[-1]["path"] == "/v1/responses"


def test_the_next_request_replays_reasoning_call_and_result_in_order() -> None:
    script = {"turns": [TOOL_TURN, {"text": "Buy milk.", "expect": ["fake-encrypted-0"]}]}
    with FakeServer(script) as server:
        _, first = run(server, ask())
        result = ToolResultMessage(
            tool_call_id=first.content[2].id,  # type: ignore[union-attr]
            tool_name="read",
            content=[TextContent(text="Buy milk.")],
        )
        context = ask()
        context.messages += [first, result]
        _, second = run(server, context)
        sent = body(server)
        assert server.problems() == []
    assert second.text() == "Buy milk."
    assert sent["input"][2:] == [
        {
            "id": "rs_fake_1",
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "The notes are in notes.txt."}],
            "encrypted_content": "fake-encrypted-0",
        },
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Reading.", "annotations": []}],
            "status": "completed",
            "id": "msg_fake_1",
        },
        {
            "type": "function_call",
            "id": "fc_fake_1_0",
            "call_id": "call_0_0",
            "name": "read",
            "arguments": '{"path":"notes.txt"}',
        },
        {"type": "function_call_output", "call_id": "call_0_0", "output": "Buy milk."},
    ]


def test_an_incomplete_response_at_the_output_cap_stops_with_length() -> None:
    with FakeServer({"turns": [{"text": "Half an ans", "stop": "length"}]}) as server:
        _, message = run(server, ask())
    assert message.stop_reason == "length"
    assert message.raw_stop_reason == "incomplete.max_output_tokens"
    assert message.text() == "Half an ans"


def test_a_rate_limit_reports_status_message_and_retry_after() -> None:
    fault = {"status": 429, "retryAfter": 3, "message": "Rate limit reached for gpt-5"}
    with FakeServer({"turns": [{"fault": fault}]}) as server:
        events, message = run(server, ask())
    assert message.stop_reason == "error"
    assert message.error_message == "429 Rate limit reached for gpt-5"
    last = events[-1]
    assert isinstance(last, ErrorEvent)
    assert last.retry_after_seconds == 3


def test_a_server_error_is_an_error_reply() -> None:
    with FakeServer({"turns": [{"fault": {"status": 503}}]}) as server:
        _, message = run(server, ask())
    assert message.stop_reason == "error"
    assert message.error_message == "503 Service Unavailable"


def test_an_input_over_the_window_is_a_context_overflow() -> None:
    with FakeServer({"turns": [{"fault": {"overflow": True}}]}) as server:
        _, message = run(server, ask())
    assert message.stop_reason == "error"
    assert "exceeds the context window" in str(message.error_message)
    assert is_context_overflow(message)


def test_a_stream_cut_mid_reply_is_an_error_keeping_the_partial_text() -> None:
    turn = {"text": "A long reply that is cut.", "fault": {"cutAfter": 6}}
    with FakeServer({"turns": [turn]}) as server:
        _, message = run(server, ask())
    assert message.stop_reason == "error"
    assert message.text() == "A long r"  # two 4-character deltas arrived
    assert "Stream ended" in str(message.error_message)


def test_on_payload_sees_and_replaces_the_body() -> None:
    seen: list[dict[str, object]] = []

    def hook(payload: dict[str, object]) -> dict[str, object]:
        seen.append(payload)
        return {**payload, "service_tier": "flex"}

    options = StreamOptions(api_key="k", on_payload=hook)
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        run(server, ask(), options)
        sent = body(server)
    assert seen[0]["model"] == "gpt-5"
    assert sent["service_tier"] == "flex"


def test_an_unreachable_server_is_a_connection_error_naming_the_endpoint() -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # free once closed: nothing listens there
    chosen = gpt(base_url=f"http://127.0.0.1:{port}/v1")

    async def go() -> list[StreamEvent]:
        stream = provider_for(chosen).stream(chosen, ask(), StreamOptions(api_key="k"))
        return [event async for event in stream]

    final = asyncio.run(go())[-1]
    assert isinstance(final, ErrorEvent)
    error = str(final.message.error_message)
    assert error.startswith("Connection error: could not reach provider openai at ")
    assert f"http://127.0.0.1:{port}/v1/responses" in error


def test_an_abort_mid_stream_ends_the_reply_as_aborted_keeping_what_came() -> None:
    controller = AbortController()
    options = StreamOptions(api_key="k", signal=controller.signal)
    turn = {"text": "A reply streamed slowly.", "fault": {"chunkDelay": 0.5}}
    with FakeServer({"turns": [turn]}) as server:
        chosen = gpt(server)

        async def go() -> list[StreamEvent]:
            events: list[StreamEvent] = []
            async for event in provider_for(chosen).stream(chosen, ask(), options):
                events.append(event)
                if event.type == "text_delta":
                    controller.abort()
            return events

        events = asyncio.run(go())
    final = events[-1]
    assert isinstance(final, ErrorEvent)
    assert final.message.stop_reason == "aborted"
    assert final.message.text() == "A re"


def test_a_request_never_loads_the_openai_sdk() -> None:
    code = (
        "import sys\n"
        "from pith.testing import FakeServer\n"
        "from tests.ai.test_openai_responses import run, ask\n"
        "with FakeServer({'turns': [{'text': 'ok'}]}) as server:\n"
        "    assert run(server, ask())[1].text() == 'ok'\n"
        "print('openai' in sys.modules)\n"
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    assert result.stdout.strip() == "False"


# --- the stream's events, one by one ----------------------------------------------------------


def feed(*events: dict[str, Any]) -> tuple[list[StreamEvent], AssistantMessage]:
    builder = MessageBuilder(gpt())
    state = _EventState(builder)
    out: list[StreamEvent] = []
    try:
        for event in events:
            out += state.take(event)
        out += state.finish()
    except StreamFailure as failure:
        out += builder.fail(str(failure))
    final = out[-1]
    assert isinstance(final, DoneEvent | ErrorEvent)
    return out, final.message


def completed(status: str = "completed", **fields: Any) -> dict[str, Any]:
    return {"type": f"response.{status}", "response": {"status": status, **fields}}


def test_a_refusal_is_shown_as_the_reply_text() -> None:
    item = {"type": "message", "id": "msg_1", "content": []}
    refused = {"type": "refusal", "refusal": "I can't help with that."}
    _, message = feed(
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.refusal.delta", "output_index": 0, "delta": "I can't"},
        {"type": "response.refusal.delta", "output_index": 0, "delta": " help with that."},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {**item, "content": [refused]},
        },
        completed(),
    )
    assert message.stop_reason == "stop"
    assert message.text() == "I can't help with that."


def test_a_content_filter_cut_is_an_error() -> None:
    _, message = feed(completed("incomplete", incomplete_details={"reason": "content_filter"}))
    assert message.stop_reason == "error"
    assert message.error_message == "Response incomplete: content_filter"
    assert message.raw_stop_reason == "incomplete.content_filter"


def test_a_failed_response_and_an_error_event_name_their_code() -> None:
    error = {"code": "server_error", "message": "The server had an error"}
    _, failed = feed({"type": "response.failed", "response": {"status": "failed", "error": error}})
    assert failed.error_message == "server_error: The server had an error"
    _, errored = feed({"type": "error", "code": "rate_limit_exceeded", "message": "Slow down"})
    assert errored.error_message == "Error Code rate_limit_exceeded: Slow down"


def test_encrypted_content_sent_only_in_the_final_response_is_kept() -> None:
    item = {"type": "reasoning", "id": "rs_9", "summary": []}
    _, message = feed(
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        completed(output=[{**item, "encrypted_content": "late"}]),
    )
    block = message.content[0]
    assert isinstance(block, ThinkingContent)
    assert json.loads(str(block.thinking_signature))["encrypted_content"] == "late"


def test_a_tool_call_whose_item_never_finished_is_an_error() -> None:
    item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read"}
    _, message = feed(
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": '{"pa'},
        completed(),
    )
    assert message.stop_reason == "error"
    assert "unfinished tool call: read" in str(message.error_message)


def test_the_complete_arguments_win_over_the_pieces() -> None:
    item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read"}
    _, message = feed(
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": '{"x'},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {**item, "arguments": '{"path":"a"}'},
        },
        completed(),
    )
    assert message.stop_reason == "toolUse"
    assert message.tool_calls()[0].arguments == {"path": "a"}


def test_two_summary_parts_are_one_thinking_block_with_a_blank_line() -> None:
    item = {"type": "reasoning", "id": "rs_1", "summary": []}
    parts = [{"type": "summary_text", "text": "One."}, {"type": "summary_text", "text": "Two."}]
    events, message = feed(
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.reasoning_summary_part.added", "output_index": 0, "summary_index": 0},
        {"type": "response.reasoning_summary_text.delta", "output_index": 0, "delta": "One."},
        {"type": "response.reasoning_summary_part.added", "output_index": 0, "summary_index": 1},
        {"type": "response.reasoning_summary_text.delta", "output_index": 0, "delta": "Two."},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {**item, "summary": parts},
        },
        completed(),
    )
    deltas = "".join(e.delta for e in events if e.type == "thinking_delta")  # type: ignore[union-attr]
    assert deltas == "One.\n\nTwo."
    block = message.content[0]
    assert isinstance(block, ThinkingContent)
    assert block.thinking == "One.\n\nTwo."


# --- the request ------------------------------------------------------------------------------


def replied(
    model: str = "gpt-5", provider: str = "openai", api: str = "openai-responses"
) -> AssistantMessage:
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "e"}
    return AssistantMessage(
        content=[
            ThinkingContent(thinking="hmm", thinking_signature=json.dumps(reasoning)),
            TextContent(text="Looking.", text_signature='{"v":1,"id":"msg_1"}'),
            ToolCall(id="call_1|fc_1", name="read", arguments={"path": "a"}),
        ],
        api=api,
        provider=provider,
        model=model,
        stop_reason="toolUse",
    )


def result(call_id: str = "call_1|fc_1") -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call_id, tool_name="read", content=[TextContent(text="A")]
    )


@pytest.mark.parametrize(
    ("source", "label"),
    [
        (replied(model="gpt-5-mini"), "another model"),
        (replied(provider="azure"), "another provider"),
        (replied(api="openai-completions"), "another api"),
    ],
)
def test_reasoning_of_another_model_is_not_sent(source: AssistantMessage, label: str) -> None:
    items = convert_input(gpt(), "", [UserMessage(content="hi"), source, result()])
    assert [item.get("type") for item in items[1:]] == [
        "message",
        "function_call",
        "function_call_output",
    ], label
    assert items[1]["id"] == "msg_pith_1"
    assert "id" not in items[2]
    assert items[2]["call_id"] == items[3]["call_id"] == "call_1"


def test_anthropic_tool_calls_replay_with_their_ids_as_call_ids() -> None:
    source = AssistantMessage(
        content=[
            ThinkingContent(thinking="hmm", thinking_signature="sig"),
            ToolCall(id="toolu_01AB", name="read", arguments={}),
        ],
        api="anthropic-messages",
        provider="anthropic",
        model="claude-sonnet-4-5",
        stop_reason="toolUse",
    )
    items = convert_input(gpt(), "", [UserMessage(content="hi"), source, result("toolu_01AB")])
    assert items[1:] == [
        {"type": "function_call", "call_id": "toolu_01AB", "name": "read", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "toolu_01AB", "output": "A"},
    ]


def test_failed_replies_are_left_out_and_unanswered_calls_get_a_result() -> None:
    failed = AssistantMessage(
        content=[TextContent(text="half")], provider="openai", api="openai-responses",
        model="gpt-5", stop_reason="error",
    )  # fmt: skip
    items = convert_input(gpt(), "", [UserMessage(content="hi"), failed, replied()])
    assert [item.get("type", item.get("role")) for item in items] == [
        "user",
        "reasoning",
        "message",
        "function_call",
        "function_call_output",
    ]
    assert items[-1]["output"] == "No result provided"


def test_images_are_input_images_as_data_urls() -> None:
    image = ImageContent(data=PNG, mime_type="image/png")
    user = UserMessage(content=[TextContent(text="look"), image])
    shot = ToolResultMessage(
        tool_call_id="call_1|fc_1", tool_name="read", content=[TextContent(text="shot"), image]
    )
    items = convert_input(gpt(), "", [user, replied(), shot])
    url = f"data:image/png;base64,{PNG}"
    assert items[0]["content"] == [
        {"type": "input_text", "text": "look"},
        {"type": "input_image", "detail": "auto", "image_url": url},
    ]
    assert items[-1]["output"] == [
        {"type": "input_text", "text": "shot"},
        {"type": "input_image", "detail": "auto", "image_url": url},
    ]
    text_only = convert_input(gpt(input=["text"]), "", [user])
    assert text_only[0]["content"][1]["text"] == "(image omitted: model does not support images)"


@pytest.mark.parametrize(
    ("model_id", "expected"),
    [
        ("gpt-5", ["minimal", "minimal", "low", "medium", "high", "high", "high"]),
        ("gpt-5.1", ["none", "low", "low", "medium", "high", "high", "high"]),
        ("o3", ["low", "low", "low", "medium", "high", "high", "high"]),
        ("my-reasoner", ["none", "minimal", "low", "medium", "high", "high", "high"]),
    ],
)
def test_reasoning_effort_per_thinking_level(model_id: str, expected: list[str]) -> None:
    levels = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
    assert [reasoning_effort(model_id, level) for level in levels] == expected  # type: ignore[arg-type]


def test_thinking_off_sends_effort_none_without_summary_where_the_model_allows_it() -> None:
    def request(model: Model) -> dict[str, object]:
        return build_request(
            model, ask(), max_tokens=None, thinking="off", temperature=None, session_id=None
        )

    assert request(gpt(id="gpt-5.1"))["reasoning"] == {"effort": "none"}
    assert "include" not in request(gpt(id="gpt-5.1"))
    assert request(gpt())["reasoning"] == {"effort": "minimal", "summary": "auto"}
    plain = request(gpt(id="gpt-4.1", reasoning=False))
    assert "reasoning" not in plain
    assert "include" not in plain
    assert "prompt_cache_key" not in plain


def test_the_output_cap_is_never_below_sixteen_and_the_cache_key_at_most_64_chars() -> None:
    sent = build_request(
        gpt(), ask(), max_tokens=3, thinking="low", temperature=0.5, session_id="s" * 80
    )
    assert sent["max_output_tokens"] == 16
    assert sent["prompt_cache_key"] == "s" * 64
    assert sent["temperature"] == 0.5


# --- which models use it ----------------------------------------------------------------------


def test_openai_reasoning_models_default_to_the_responses_api() -> None:
    apis = {model.key: model.api for model in builtin_models()}
    assert apis["openai/gpt-5"] == apis["openai/o3"] == apis["openai/o4-mini"] == "openai-responses"
    assert apis["openai/gpt-4.1"] == apis["openai/gpt-4o"] == "openai-completions"
    assert apis["deepseek/deepseek-reasoner"] == "openai-completions"
    assert default_api_for("openai", "gpt-5.1-codex") == "openai-responses"
    assert default_api_for("openai", "gpt-4o-mini") == "openai-completions"
    assert default_api_for("openrouter", "openai/gpt-5") == "openai-completions"
