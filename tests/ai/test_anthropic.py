"""The Anthropic Messages provider, over real HTTP against the fake model server."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from pith.agent import AbortController
from pith.ai import (
    AssistantMessage,
    Context,
    DoneEvent,
    ErrorEvent,
    ImageContent,
    Message,
    MessageBuilder,
    Model,
    ModelCost,
    StreamEvent,
    StreamOptions,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolCallEnd,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
    is_context_overflow,
)
from pith.ai._anthropic import AnthropicProvider, _EventState, map_stop_reason
from pith.ai._anthropic_convert import build_request, convert_messages, thinking_budget
from pith.testing import FakeServer

EPHEMERAL = {"type": "ephemeral"}
PNG = "iVBORw0KGgo="


def claude(server: FakeServer | None = None, **fields: object) -> Model:
    settings: dict[str, object] = {
        "base_url": server.anthropic_base_url if server is not None else "",
        "reasoning": True,
        "input": ["text", "image"],
        "cost": ModelCost(input=3, output=15, cache_read=0.3, cache_write=3.75),
        "context_window": 200_000,
        "max_tokens": 32_000,
    }
    settings.update(fields)
    return Model(id="fake-claude", provider="fake", api="anthropic-messages", **settings)  # type: ignore[arg-type]


def run(model: Model, context: Context, options: StreamOptions | None = None) -> list[StreamEvent]:
    async def collect() -> list[StreamEvent]:
        stream = AnthropicProvider().stream(model, context, options or StreamOptions(api_key="k"))
        return [event async for event in stream]

    return asyncio.run(collect())


def final(events: list[StreamEvent]) -> AssistantMessage:
    assert isinstance(events[-1], DoneEvent | ErrorEvent)
    assert sum(isinstance(e, DoneEvent | ErrorEvent) for e in events) == 1
    return events[-1].message


def ask(text: str) -> Context:
    return Context(system_prompt="You are terse.", messages=[UserMessage(content=text)])


def body(server: FakeServer, n: int = -1) -> dict[str, object]:
    request = server.requests[n]["body"]
    assert isinstance(request, dict)
    return request


def assistant(
    *content: TextContent | ThinkingContent | ToolCall, **fields: object
) -> AssistantMessage:
    return AssistantMessage(
        content=list(content),
        api="anthropic-messages",
        provider="fake",
        model="fake-claude",
        **fields,  # type: ignore[arg-type]
    )


# --- streaming over HTTP ------------------------------------------------------------------------


def test_text_reply_reports_usage_cost_and_request_shape() -> None:
    usage = {"input": 100, "output": 20, "cacheRead": 1000, "cacheWrite": 200}
    with FakeServer({"turns": [{"text": "Hello there", "usage": usage}]}) as server:
        events = run(claude(server), ask("hi"))
        sent = body(server)
        headers = server.requests[-1]["headers"]
    message = final(events)
    assert [e.type for e in events] == [
        "start",
        "text_start",
        "text_delta",
        "text_delta",
        "text_delta",
        "text_end",
        "done",
    ]
    assert message.text() == "Hello there"
    assert message.stop_reason == "stop"
    assert message.raw_stop_reason == "end_turn"
    assert message.response_id == "msg_fake_1"
    assert (message.usage.input, message.usage.output) == (100, 20)
    assert (message.usage.cache_read, message.usage.cache_write) == (1000, 200)
    assert message.usage.total_tokens == 1320
    expected_cost = (100 * 3 + 20 * 15 + 1000 * 0.3 + 200 * 3.75) / 1_000_000
    assert message.usage.cost.total == pytest.approx(expected_cost)
    assert sent == {
        "model": "fake-claude",
        "system": [{"type": "text", "text": "You are terse.", "cache_control": EPHEMERAL}],
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "hi", "cache_control": EPHEMERAL}],
            }
        ],
        "max_tokens": 32_000,
        "stream": True,
    }
    assert isinstance(headers, dict)
    assert headers["anthropic-version"]
    assert "anthropic-beta" not in headers


def test_thinking_signature_is_sent_back_in_the_next_request() -> None:
    turns = [
        {"thinking": "Two plus two.", "signature": "sig-abc", "text": "4"},
        {"text": "ok", "match": ["sig-abc"]},
    ]
    options = StreamOptions(api_key="k", thinking="medium")
    with FakeServer({"turns": turns}) as server:
        model = claude(server)
        events = run(model, ask("2+2?"), options)
        reply = final(events)
        follow_up = Context(
            system_prompt="",
            messages=[UserMessage(content="2+2?"), reply, UserMessage(content="thanks")],
        )
        second = final(run(model, follow_up, options))
        first_body, second_body = body(server, 0), body(server, 1)
        headers = server.requests[0]["headers"]
    assert [e.type for e in events[:3]] == ["start", "thinking_start", "thinking_delta"]
    thinking = reply.content[0]
    assert isinstance(thinking, ThinkingContent)
    assert (thinking.thinking, thinking.thinking_signature) == ("Two plus two.", "sig-abc")
    assert reply.text() == "4"
    assert second.text() == "ok"
    assert first_body["thinking"] == {"type": "enabled", "budget_tokens": 8192}
    assert first_body["max_tokens"] == 32_000
    assert isinstance(headers, dict)
    assert headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"
    assert second_body["messages"] == [
        {"role": "user", "content": "2+2?"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Two plus two.", "signature": "sig-abc"},
                {"type": "text", "text": "4"},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "text", "text": "thanks", "cache_control": EPHEMERAL}],
        },
    ]
    assert "system" not in second_body


def test_two_tool_calls_are_reassembled_from_argument_pieces() -> None:
    turn = {
        "text": "Reading both.",
        "tool_calls": [
            {"name": "read", "arguments": {"path": "a.txt", "offset": 10}},
            {"name": "bash", "arguments": {"command": "ls -la | head"}},
        ],
        "chunk": 3,
    }
    tools = [
        ToolSpec("read", "Read a file", {"type": "object", "properties": {"path": {}}}),
        ToolSpec("bash", "Run a command", {"type": "object", "properties": {"command": {}}}),
    ]
    with FakeServer({"turns": [turn]}) as server:
        context = ask("look")
        context.tools = tools
        events = run(claude(server), context)
        sent = body(server)
    message = final(events)
    assert message.stop_reason == "toolUse"
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [(e.content_index, e.tool_call.id, e.tool_call.name) for e in ends] == [
        (1, "toolu_0_0", "read"),
        (2, "toolu_0_1", "bash"),
    ]
    assert message.tool_calls()[0].arguments == {"path": "a.txt", "offset": 10}
    assert message.tool_calls()[1].arguments == {"command": "ls -la | head"}
    assert sent["tools"] == [
        {
            "name": "read",
            "description": "Read a file",
            "input_schema": {"type": "object", "properties": {"path": {}}, "required": []},
        },
        {
            "name": "bash",
            "description": "Run a command",
            "input_schema": {"type": "object", "properties": {"command": {}}, "required": []},
            "cache_control": EPHEMERAL,
        },
    ]


def test_tool_results_become_one_user_message_with_error_images_after_them() -> None:
    calls = assistant(
        TextContent(text="Checking."),
        ToolCall(id="toolu_1", name="screenshot", arguments={}),
        ToolCall(id="toolu_2", name="bash", arguments={"command": "false"}),
        stop_reason="toolUse",
    )
    image = ImageContent(data=PNG, mime_type="image/png")
    messages: list[Message] = [
        UserMessage(content="go"),
        calls,
        ToolResultMessage(
            tool_call_id="toolu_1",
            tool_name="screenshot",
            content=[TextContent(text="captured"), image],
        ),
        ToolResultMessage(
            tool_call_id="toolu_2",
            tool_name="bash",
            content=[TextContent(text="exit 1"), image],
            is_error=True,
        ),
    ]
    with FakeServer({"turns": [{"text": "done"}]}) as server:
        final(run(claude(server), Context(system_prompt="", messages=messages)))
        sent = body(server)
    png = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
    assert sent["messages"] == [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_1", "name": "screenshot", "input": {}},
                {
                    "type": "tool_use",
                    "id": "toolu_2",
                    "name": "bash",
                    "input": {"command": "false"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": [{"type": "text", "text": "captured"}, png],
                    "is_error": False,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": "exit 1\n(image attached after the tool results)",
                    "is_error": True,
                },
                {
                    "type": "text",
                    "text": "Images from the error result of tool call toolu_2 (bash):",
                },
                {**png, "cache_control": EPHEMERAL},
            ],
        },
    ]


def test_max_tokens_stop_is_length() -> None:
    with FakeServer({"turns": [{"text": "cut sh", "stop": "length"}]}) as server:
        message = final(run(claude(server), ask("write a novel")))
    assert message.stop_reason == "length"
    assert message.raw_stop_reason == "max_tokens"
    assert message.text() == "cut sh"


def test_rate_limit_reports_status_message_and_retry_after() -> None:
    fault = {"status": 429, "retryAfter": 1.5, "message": "slow down"}
    with FakeServer({"turns": [{"fault": fault}]}) as server:
        events = run(claude(server), ask("hi"))
    error = events[-1]
    assert isinstance(error, ErrorEvent)
    assert error.message.stop_reason == "error"
    assert error.message.error_message == "429 slow down"
    assert error.retry_after_seconds == 1.5


def test_prompt_too_long_is_a_context_overflow() -> None:
    with FakeServer({"turns": [{"fault": {"overflow": True}}]}) as server:
        message = final(run(claude(server), ask("hi")))
    assert message.stop_reason == "error"
    assert isinstance(message.error_message, str)
    assert message.error_message.startswith("400 prompt is too long")
    assert is_context_overflow(message)


def test_stream_cut_mid_reply_is_an_error_keeping_the_partial_text() -> None:
    # message_start, ping, content_block_start, two text deltas: then the connection closes.
    turn = {"text": "abcdefghijkl", "fault": {"cutAfter": 5}}
    with FakeServer({"turns": [turn]}) as server:
        events = run(claude(server), ask("hi"))
    message = final(events)
    assert isinstance(events[-1], ErrorEvent)
    assert message.stop_reason == "error"
    assert isinstance(message.error_message, str)
    assert message.error_message.startswith("Stream ended before message_stop")
    assert message.text() == "abcdefgh"


def test_abort_while_waiting_for_the_first_byte_returns_promptly() -> None:
    controller = AbortController()
    options = StreamOptions(api_key="k", signal=controller.signal)

    async def scenario(model: Model) -> tuple[list[StreamEvent], float]:
        asyncio.get_running_loop().call_later(0.2, controller.abort)
        started = time.monotonic()
        events = [e async for e in AnthropicProvider().stream(model, ask("hi"), options)]
        return events, time.monotonic() - started

    with FakeServer({"turns": [{"text": "late", "fault": {"firstByteDelay": 5}}]}) as server:
        events, elapsed = asyncio.run(scenario(claude(server)))
    message = final(events)
    assert message.stop_reason == "aborted"
    assert message.error_message == "Request was aborted"
    assert elapsed < 3


class _ErrorMidStream(BaseHTTPRequestHandler):
    """Starts a reply, then sends the `error` event Anthropic uses for mid-stream failures."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        start = {
            "type": "message_start",
            "message": {"id": "msg_x", "model": "fake-claude", "usage": {"input_tokens": 5}},
        }
        error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for name, data in (("message_start", start), ("error", error)):
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        self.close_connection = True


@pytest.fixture
def error_mid_stream_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ErrorMidStream)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_error_event_inside_the_stream_names_its_type(error_mid_stream_url: str) -> None:
    model = claude(base_url=error_mid_stream_url)
    message = final(run(model, ask("hi")))
    assert message.stop_reason == "error"
    assert message.error_message == "overloaded_error: Overloaded"
    assert message.usage.input == 5


def test_on_payload_replaces_the_body_sent() -> None:
    def edit(payload: dict[str, object]) -> dict[str, object]:
        return {**payload, "max_tokens": 7, "metadata": {"user_id": "u1"}}

    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        final(run(claude(server), ask("hi"), StreamOptions(api_key="k", on_payload=edit)))
        sent = body(server)
    assert sent["max_tokens"] == 7
    assert sent["metadata"] == {"user_id": "u1"}


def test_cache_retention_none_sends_no_cache_breakpoints() -> None:
    context = Context(
        system_prompt="You are terse.",
        messages=[UserMessage(content="hi")],
        tools=[ToolSpec(name="read", description="Read a file.", parameters={"type": "object"})],
    )
    with FakeServer({"turns": [{"text": "ok"}, {"text": "ok"}]}) as server:
        final(run(claude(server), context, StreamOptions(api_key="k", cache_retention="none")))
        plain = body(server)
        final(run(claude(server), context, StreamOptions(api_key="k")))
        marked = body(server)
    assert "cache_control" not in json.dumps(plain)
    assert plain["system"] == [{"type": "text", "text": "You are terse."}]
    assert json.dumps(marked).count('"cache_control"') == 3  # tools, system, last message
    assert (
        json.loads(json.dumps(marked).replace(', "cache_control": {"type": "ephemeral"}', ""))
        == plain
    )


def test_a_repeated_prefix_is_billed_as_cache_reads_by_the_fake_servers_cache_model() -> None:
    system = "You are terse. " * 600  # ~2 250 tokens: over Anthropic's 1 024-token minimum
    first = Context(system_prompt=system, messages=[UserMessage(content="hi")])
    reply = AssistantMessage(content=[TextContent(text="hello")])
    second = Context(
        system_prompt=system, messages=[UserMessage(content="hi"), reply, UserMessage(content="go")]
    )
    script = {"promptCache": True, "turns": [{"text": "hello"}, {"text": "ok"}]}
    with FakeServer(script) as server:
        wrote = final(run(claude(server), first)).usage
        read = final(run(claude(server), second)).usage
    assert wrote.cache_read == 0
    assert wrote.cache_write > 1024
    assert read.cache_read == wrote.cache_write
    model = claude()
    expected = (
        read.input * 3 + read.output * 15 + read.cache_read * 0.3 + read.cache_write * 3.75
    ) / 1_000_000
    assert read.cost.total == pytest.approx(expected)
    assert read.cost.cache_read == pytest.approx(read.cache_read * model.cost.cache_read / 1e6)


def test_importing_pith_imports_no_http_client() -> None:
    code = "import pith.ai, pith.agent, sys; print('httpx2' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_a_request_never_loads_the_anthropic_sdk() -> None:
    # The SDK takes over a second to import; pith talks HTTP itself.
    code = (
        "import sys, asyncio\n"
        "from pith.testing import FakeServer\n"
        "from tests.ai.test_anthropic import claude, run, final, ask\n"
        "with FakeServer({'turns': [{'text': 'ok'}]}) as server:\n"
        "    assert final(run(claude(server), ask('hi'))).text() == 'ok'\n"
        "print('anthropic' in sys.modules)\n"
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    assert result.stdout.strip() == "False"


def test_requests_carry_the_api_version_and_key() -> None:
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        final(run(claude(server), ask("hi"), StreamOptions(api_key="sk-test")))
        headers = {k.lower(): v for k, v in server.requests[-1]["headers"].items()}
    assert headers["anthropic-version"] == "2023-06-01"
    assert headers["content-type"] == "application/json"


def test_an_unreachable_server_is_a_connection_error() -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # free once closed: nothing listens there
    message = final(run(claude(base_url=f"http://127.0.0.1:{port}"), ask("hi")))
    assert message.stop_reason == "error"
    assert isinstance(message.error_message, str)
    assert message.error_message.startswith("Connection error: could not reach provider ")
    assert f"http://127.0.0.1:{port}/v1/messages" in message.error_message


def test_a_non_json_error_page_is_reported_by_status_and_text() -> None:
    class Proxy(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["content-length"]))
            page = b"<html>502 Bad Gateway</html>"
            self.send_response(502)
            self.send_header("content-length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        message = final(run(claude(base_url=url), ask("hi")))
    finally:
        server.shutdown()
    assert message.error_message == "502 <html>502 Bad Gateway</html>"


# --- pure policy ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reason", "details", "expected"),
    [
        ("end_turn", None, ("stop", None)),
        ("stop_sequence", None, ("stop", None)),
        ("pause_turn", None, ("stop", None)),
        ("max_tokens", None, ("length", None)),
        ("tool_use", None, ("toolUse", None)),
        ("refusal", None, ("error", "The model refused to complete the request")),
        ("refusal", {"explanation": "Not allowed."}, ("error", "Not allowed.")),
        ("brand_new", None, ("error", "Unhandled stop reason: brand_new")),
    ],
)
def test_stop_reason_mapping(reason: str, details: object, expected: tuple[str, object]) -> None:
    assert map_stop_reason(reason, details) == expected


def test_events_without_message_stop_end_in_an_error_keeping_usage_and_blocks() -> None:
    builder = MessageBuilder(claude())
    state = _EventState(builder)
    usage = {"input_tokens": 50, "cache_read_input_tokens": 7, "output_tokens": 1}
    events: list[dict[str, object]] = [
        {
            "type": "message_start",
            "message": {"id": "msg_1", "model": "fake-claude", "usage": usage},
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "redacted_thinking", "data": "opaque"},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "hi"}},
        {"type": "content_block_stop", "index": 1},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 9},
        },
    ]
    kinds = [e.type for event in events for e in state.take(event)]
    end = state.finish()
    assert kinds == ["thinking_start", "thinking_end", "text_start", "text_delta", "text_end"]
    assert isinstance(end[-1], ErrorEvent)
    message = end[-1].message
    assert message.error_message == "Stream ended before message_stop"
    assert (message.usage.input, message.usage.cache_read, message.usage.output) == (50, 7, 9)
    assert message.usage.total_tokens == 66
    redacted = message.content[0]
    assert isinstance(redacted, ThinkingContent)
    assert (redacted.redacted, redacted.thinking_signature) == (True, "opaque")
    assert message.text() == "hi"


@pytest.mark.parametrize(
    ("level", "max_tokens", "model_max", "expected"),
    [
        ("minimal", None, 32_000, (32_000, 1024)),
        ("low", None, 32_000, (32_000, 2048)),
        ("high", None, 32_000, (32_000, 16384)),
        ("xhigh", None, 32_000, (32_000, 16384)),
        ("medium", 4000, 32_000, (12_192, 8192)),  # the answer cap plus the budget
        ("high", None, 8192, (8192, 7168)),  # shrunk to leave 1024 answer tokens
        ("high", None, 1500, (2048, 1024)),  # never under Anthropic's minimum budget
    ],
)
def test_thinking_budget_leaves_room_for_the_answer(
    level: str, max_tokens: int | None, model_max: int, expected: tuple[int, int]
) -> None:
    assert thinking_budget(level, max_tokens, model_max) == expected  # type: ignore[arg-type]


def test_a_window_clamped_request_fits_the_thinking_budget_under_the_clamp() -> None:
    options = StreamOptions(api_key="k", thinking="high")
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        run(claude(server, context_window=20_000), ask("hi"), options)
        sent = body(server)
    # Input 5 tokens, 4096 kept free: 15899 of output, of which the answer keeps 1024.
    assert sent["max_tokens"] == 20_000 - 5 - 4096
    assert sent["thinking"] == {"type": "enabled", "budget_tokens": 15_899 - 1024}


def test_temperature_is_sent_only_without_thinking() -> None:
    model = claude(sampling_params={"top_k": 5, "max_tokens": 1})
    plain = build_request(model, ask("hi"), max_tokens=100, thinking="off", temperature=0.2)
    thinking = build_request(model, ask("hi"), max_tokens=100, thinking="low", temperature=0.2)
    assert (plain["temperature"], plain["top_k"], plain["max_tokens"]) == (0.2, 5, 100)
    assert "thinking" not in plain
    assert "temperature" not in thinking
    assert "top_k" not in thinking


def test_system_messages_fold_into_the_system_prompt() -> None:
    context = Context(
        system_prompt="Base.",
        messages=[SystemMessage(content="Extra rule."), UserMessage(content="hi")],
    )
    sent = build_request(claude(), context, max_tokens=None, thinking="off", temperature=None)
    assert sent["system"] == [
        {"type": "text", "text": "Base.\n\nExtra rule.", "cache_control": EPHEMERAL}
    ]


def test_assistant_blocks_convert_by_kind() -> None:
    reply = assistant(
        ThinkingContent(thinking="signed", thinking_signature="sig"),
        ThinkingContent(thinking="", thinking_signature="opaque", redacted=True),
        ThinkingContent(thinking="unsigned"),
        TextContent(text="  "),
        TextContent(text="visible"),
    )
    messages, _ = convert_messages(claude(), [UserMessage(content="q"), reply])
    assert messages[1] == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "signed", "signature": "sig"},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "text", "text": "unsigned"},
            {"type": "text", "text": "visible"},
        ],
    }


def test_empty_failed_and_foreign_replies_are_cleaned_up() -> None:
    foreign = AssistantMessage(
        content=[
            ThinkingContent(thinking="other model", thinking_signature="x"),
            ToolCall(id="call|1", name="read", arguments={"path": "a"}),
        ],
        api="openai-completions",
        provider="openai",
        model="gpt-5",
        stop_reason="toolUse",
    )
    messages: list[Message] = [
        UserMessage(content="one"),
        assistant(),  # no blocks
        UserMessage(content=[TextContent(text=" ")]),  # nothing to send
        assistant(TextContent(text="partial"), stop_reason="aborted"),
        UserMessage(content="two"),
        foreign,
        ToolResultMessage(tool_call_id="call|1", tool_name="read", content=[TextContent(text="A")]),
        ToolResultMessage(tool_call_id="stray", tool_name="read", content=[]),
        assistant(ToolCall(id="toolu_9", name="bash", arguments={}), stop_reason="toolUse"),
        UserMessage(content="never mind"),
    ]
    converted, _ = convert_messages(claude(), messages)
    assert converted == [
        {"role": "user", "content": "one"},
        {"role": "user", "content": "two"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "call_1", "name": "read", "input": {"path": "a"}}
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "call_1", "content": "A", "is_error": False}
            ],
        },
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_9", "name": "bash", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_9",
                    "content": "No result provided",
                    "is_error": True,
                }
            ],
        },
        {
            "role": "user",
            "content": [{"type": "text", "text": "never mind", "cache_control": EPHEMERAL}],
        },
    ]


def test_images_become_placeholders_for_a_text_only_model() -> None:
    image = ImageContent(data=PNG, mime_type="image/png")
    messages: list[Message] = [UserMessage(content=[TextContent(text="see"), image, image])]
    converted, _ = convert_messages(claude(input=["text"]), messages)
    assert converted[0]["content"] == [
        {"type": "text", "text": "see"},
        {
            "type": "text",
            "text": "(image omitted: model does not support images)",
            "cache_control": EPHEMERAL,
        },
    ]
