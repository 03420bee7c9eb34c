"""The OpenAI-compatible provider over real HTTP against pith's fake model server."""

from __future__ import annotations

import asyncio
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
    is_context_overflow,
    provider_for,
)
from pith.testing import FakeServer


def model(server: FakeServer, **fields: Any) -> Model:
    values: dict[str, Any] = {
        "id": "fake-model",
        "provider": "fake",
        "api": "openai-completions",
        "base_url": server.base_url,
        "cost": ModelCost(input=3, output=15),
        "max_tokens": 4096,
    }
    values.update(fields)
    return Model(**values)


def collect(
    server: FakeServer, context: Context, options: StreamOptions | None = None, **fields: Any
) -> tuple[list[StreamEvent], AssistantMessage]:
    async def go() -> list[StreamEvent]:
        chosen = model(server, **fields)
        return [
            event
            async for event in provider_for(chosen).stream(
                chosen, context, options or StreamOptions()
            )
        ]

    events = asyncio.run(go())
    final = events[-1]
    assert isinstance(final, DoneEvent | ErrorEvent)
    return events, final.message


def ask(text: str) -> Context:
    return Context(
        system_prompt="You are terse.", messages=[UserMessage(content=[TextContent(text=text)])]
    )


def test_text_reply_with_usage_and_cost() -> None:
    script = {
        "turns": [
            {"text": "Hello there", "usage": {"input": 1000, "output": 200, "cacheRead": 500}}
        ]
    }
    with FakeServer(script) as server:
        events, message = collect(server, ask("hi"))
        body = server.requests[0]["body"]
    assert message.text() == "Hello there"
    assert message.stop_reason == "stop"
    assert (message.usage.input, message.usage.output, message.usage.cache_read) == (1000, 200, 500)
    assert message.usage.cost.total == (1000 * 3 + 200 * 15) / 1_000_000
    assert [e.type for e in events][:3] == ["start", "text_start", "text_delta"]
    assert body["messages"] == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    ]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["max_completion_tokens"] == 4096


def test_a_small_window_model_is_asked_only_for_what_fits() -> None:
    # An 8k local model whose maxTokens alone exceeds the window. Input: "You are terse." and
    # "hi" at 3.5 characters per token, 4 + 1; 4096 tokens are kept free besides it.
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        collect(server, ask("hi"), context_window=8192, max_tokens=16_384)
        body = server.requests[0]["body"]
    assert body["max_completion_tokens"] == 8192 - 5 - 4096


def test_the_output_limit_counts_the_last_reported_usage() -> None:
    turns = [{"text": "ok", "usage": {"input": 3000, "output": 100}}, {"text": "done"}]
    with FakeServer({"turns": turns}) as server:
        first = ask("hi")
        _, reply = collect(server, first, context_window=8192, max_tokens=16_384)
        first.messages += [reply, UserMessage(content=[TextContent(text="again")])]
        collect(server, first, context_window=8192, max_tokens=16_384)
        body = server.requests[1]["body"]
    # The reply's 3100 reported tokens plus "again" (2 tokens).
    assert body["max_completion_tokens"] == 8192 - 3102 - 4096


def test_thinking_and_two_tool_calls_are_reassembled() -> None:
    script = {
        "turns": [
            {
                "thinking": "Look at both files.",
                "text": "Checking.",
                "tool_calls": [
                    {"name": "read", "arguments": {"path": "a.txt"}},
                    {"name": "bash", "arguments": {"command": "ls -la | head"}},
                ],
                "chunk": 3,
            }
        ]
    }
    tools = [
        ToolSpec("read", "Read a file", {"type": "object"}),
        ToolSpec("bash", "Run", {"type": "object"}),
    ]
    context = ask("go")
    context.tools = tools
    with FakeServer(script) as server:
        _, message = collect(server, context)
        body = server.requests[0]["body"]
    assert message.stop_reason == "toolUse"
    thinking = message.content[0]
    assert isinstance(thinking, ThinkingContent)
    assert thinking.thinking == "Look at both files."
    assert thinking.thinking_signature == "reasoning_content"
    calls = message.tool_calls()
    assert [(c.name, c.arguments) for c in calls] == [
        ("read", {"path": "a.txt"}),
        ("bash", {"command": "ls -la | head"}),
    ]
    assert [tool["function"]["name"] for tool in body["tools"]] == ["read", "bash"]


def test_history_with_tool_results_and_images_is_converted() -> None:
    image = ImageContent(data="aGk=", mime_type="image/png")
    history = [
        UserMessage(content=[TextContent(text="look")]),
        AssistantMessage(
            content=[
                ThinkingContent(thinking="hmm", thinking_signature="reasoning_content"),
                TextContent(text="Reading."),
                ToolCall(id="c1", name="read", arguments={"path": "p.png"}),
                ToolCall(id="c2", name="bash", arguments={"command": "false"}),
            ],
            stop_reason="toolUse",
        ),
        ToolResultMessage(
            tool_call_id="c1",
            tool_name="read",
            content=[TextContent(text="Read image file [image/png]"), image],
        ),
        ToolResultMessage(tool_call_id="c2", tool_name="bash", content=[], is_error=True),
    ]
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        collect(server, Context("sys", history), input=["text", "image"])
        messages = server.requests[0]["body"]["messages"]
    assert messages[1:] == [
        {"role": "user", "content": [{"type": "text", "text": "look"}]},
        {
            "role": "assistant",
            "content": "Reading.",
            "reasoning_content": "hmm",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read", "arguments": '{"path": "p.png"}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "bash", "arguments": '{"command": "false"}'},
                },
            ],
        },
        {"role": "tool", "content": "Read image file [image/png]", "tool_call_id": "c1"},
        {"role": "tool", "content": "(no tool output)", "tool_call_id": "c2"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Attached image(s) from tool result:"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGk="}},
            ],
        },
    ]


def test_malformed_tool_arguments_are_flagged_not_guessed() -> None:
    script = {"turns": [{"tool_calls": [{"name": "read", "arguments": '{"path": "a.txt"'}]}]}
    with FakeServer(script) as server:
        _, message = collect(server, ask("go"))
    call = message.tool_calls()[0]
    assert call.arguments == {}
    assert isinstance(call.arguments_error, str)
    assert "not valid JSON" in call.arguments_error


def test_rate_limit_reports_retry_after() -> None:
    script = {
        "turns": [{"fault": {"status": 429, "retryAfter": 1.5, "message": "Rate limit exceeded"}}]
    }
    with FakeServer(script) as server:
        events, message = collect(server, ask("hi"))
    final = events[-1]
    assert isinstance(final, ErrorEvent)
    assert final.retry_after_seconds == 1.5
    assert message.stop_reason == "error"
    assert message.error_message == "429 Rate limit exceeded"


def test_overflow_is_recognised_as_overflow() -> None:
    with FakeServer({"turns": [{"fault": {"overflow": True}}]}) as server:
        _, message = collect(server, ask("hi"))
    assert message.stop_reason == "error"
    assert is_context_overflow(message, 128_000)


def test_a_stream_cut_midway_is_an_error_that_keeps_the_partial_text() -> None:
    script = {
        "turns": [{"text": "This reply will be cut short.", "chunk": 2, "fault": {"cutAfter": 4}}]
    }
    with FakeServer(script) as server:
        _, message = collect(server, ask("hi"))
    assert message.stop_reason == "error"
    assert message.text().startswith("Th")
    assert message.error_message


def test_abort_while_waiting_for_the_first_byte_returns_promptly() -> None:
    script = {"turns": [{"text": "late", "fault": {"firstByteDelay": 5}}]}
    controller = AbortController()

    async def go(server: FakeServer) -> AssistantMessage:
        chosen = model(server)
        options = StreamOptions(signal=controller.signal)
        asyncio.get_running_loop().call_later(0.2, controller.abort)
        final = None
        async for event in provider_for(chosen).stream(chosen, ask("hi"), options):
            if isinstance(event, DoneEvent | ErrorEvent):
                final = event.message
        assert final is not None
        return final

    with FakeServer(script) as server:
        message = asyncio.run(go(server))
    # Had the abort waited for the server, the reply would have arrived ("late", stop).
    assert message.stop_reason == "aborted"
    assert message.error_message == "Request was aborted"
    assert message.content == []


def test_the_key_and_account_headers_go_on_the_wire(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_ORG_ID", "org-7")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-9")
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        _, message = collect(
            server, ask("hi"), StreamOptions(api_key="sk-test", headers={"x-extra": "1"})
        )
        headers = {k.lower(): v for k, v in server.requests[0]["headers"].items()}
        path = server.requests[0]["path"]
    assert message.text() == "ok"
    assert path == "/v1/chat/completions"
    assert headers["openai-organization"] == "org-7"
    assert headers["openai-project"] == "proj-9"
    assert headers["x-extra"] == "1"
    assert headers["accept"] == "text/event-stream"


def test_the_key_is_sent_as_a_bearer_token(tmp_path: Path) -> None:
    seen: list[dict[str, str]] = []
    done = b'data: {"choices": [{"delta": {"content": "hi"}, "finish_reason": "stop"}]}\n\n'
    _, message = collect_raw(
        tmp_path, 200, done + b"data: [DONE]\n\n", "text/event-stream",
        StreamOptions(api_key="sk-test"), seen,
    )  # fmt: skip
    assert message.text() == "hi"
    assert seen[0]["authorization"] == "Bearer sk-test"
    assert seen[0]["user-agent"].startswith("pith/")


def test_an_error_inside_the_stream_is_its_message(tmp_path: Path) -> None:
    body = b'data: {"error": {"message": "upstream model crashed"}}\n\n'
    _, message = collect_raw(tmp_path, 200, body, "text/event-stream")
    assert message.stop_reason == "error"
    assert message.error_message == "upstream model crashed"


def test_an_error_status_with_a_plain_text_body_keeps_the_text(tmp_path: Path) -> None:
    _, message = collect_raw(tmp_path, 502, b"Bad gateway from the proxy", "text/plain")
    assert message.stop_reason == "error"
    assert message.error_message == "502 Bad gateway from the proxy"


def collect_raw(
    tmp_path: Path,
    status: int,
    body: bytes,
    content_type: str,
    options: StreamOptions | None = None,
    seen: list[dict[str, str]] | None = None,
) -> tuple[list[StreamEvent], AssistantMessage]:
    """A reply from a one-shot HTTP server that answers `status` with `body` (the request's
    headers go to `seen`)."""
    import http.server
    import threading

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            if seen is not None:
                seen.append({k.lower(): v for k, v in self.headers.items()})
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        chosen = Model(
            id="m",
            provider="fake",
            api="openai-completions",
            base_url=f"http://127.0.0.1:{server.server_address[1]}/v1",
        )

        async def go() -> list[StreamEvent]:
            stream = provider_for(chosen).stream(chosen, ask("hi"), options or StreamOptions())
            return [event async for event in stream]

        events = asyncio.run(go())
    finally:
        server.shutdown()
        server.server_close()
    final = events[-1]
    assert isinstance(final, DoneEvent | ErrorEvent)
    return events, final.message
