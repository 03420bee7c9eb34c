"""The Gemini provider, over real HTTP against the fake model server, and its pure parts."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
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
    MessageBuilder,
    Model,
    ModelCost,
    ModelRegistry,
    StreamEvent,
    StreamOptions,
    TextContent,
    TextDelta,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
    builtin_models,
    is_context_overflow,
    is_retryable_error,
)
from pith.ai._builtin_providers import BUILTIN_PROVIDERS
from pith.ai._google import GoogleProvider, _ChunkState
from pith.ai._google_convert import (
    build_request,
    convert_messages,
    is_valid_signature,
    thinking_config,
)
from pith.ai._google_schema import gemini_schema
from pith.ai._providers import provider_for
from pith.testing import FakeServer

SIG = base64.b64encode(b"first-turn-thought").decode()
PNG = "iVBORw0KGgo="


def gemini(server: FakeServer | None = None, model_id: str = "gemini-2.5-flash") -> Model:
    return Model(
        id=model_id,
        provider="google",
        api="google-generative-ai",
        base_url=server.gemini_base_url if server is not None else "",
        reasoning=True,
        input=["text", "image"],
        cost=ModelCost(input=0.3, output=2.5, cache_read=0.03),
        context_window=1_048_576,
        max_tokens=65_536,
    )


def run(model: Model, context: Context, options: StreamOptions | None = None) -> list[StreamEvent]:
    async def collect() -> list[StreamEvent]:
        stream = GoogleProvider().stream(model, context, options or StreamOptions(api_key="k"))
        return [event async for event in stream]

    return asyncio.run(collect())


def final(events: list[StreamEvent]) -> AssistantMessage:
    assert isinstance(events[-1], DoneEvent | ErrorEvent)
    return events[-1].message


def ask(text: str) -> Context:
    return Context(system_prompt="You are terse.", messages=[UserMessage(content=text)])


def reply(
    *content: TextContent | ThinkingContent | ToolCall, model_id: str = "gemini-2.5-flash"
) -> AssistantMessage:
    return AssistantMessage(
        content=list(content),
        api="google-generative-ai",
        provider="google",
        model=model_id,
        stop_reason="toolUse",
    )


# --- streaming over HTTP --------------------------------------------------------------------


def test_text_reply_reports_usage_cost_and_the_request() -> None:
    usage = {"input": 1000, "output": 200, "cacheRead": 4000, "reasoning": 50}
    script = {"turns": [{"thinking": "Hmm.", "text": "Hello there", "usage": usage}]}
    with FakeServer(script) as server:
        events = run(gemini(server), ask("hi"), StreamOptions(api_key="k", thinking="medium"))
        request = server.requests[-1]
    message = final(events)
    assert request["path"] == "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    body = request["body"]
    assert isinstance(body, dict)
    assert body["systemInstruction"] == {"parts": [{"text": "You are terse."}]}
    assert body["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]
    assert body["generationConfig"]["thinkingConfig"] == {
        "includeThoughts": True,
        "thinkingBudget": 8192,
    }
    assert [e.type for e in events if e.type.endswith(("_start", "_end"))] == [
        "thinking_start",
        "thinking_end",
        "text_start",
        "text_end",
    ]
    assert message.stop_reason == "stop"
    assert message.raw_stop_reason == "STOP"
    assert message.response_id == "resp_fake_1"
    assert message.text() == "Hello there"
    thinking = message.content[0]
    assert isinstance(thinking, ThinkingContent)
    assert thinking.thinking == "Hmm."
    text = message.content[1]
    assert isinstance(text, TextContent)
    assert text.text_signature == base64.b64encode(b"fake-thought-0").decode()
    u = message.usage
    assert (u.input, u.output, u.cache_read, u.reasoning) == (1000, 200, 4000, 50)
    assert u.cost.total == pytest.approx((1000 * 0.3 + 200 * 2.5 + 4000 * 0.03) / 1e6)


def test_function_calls_keep_their_signature_and_end_as_tool_use() -> None:
    calls = [{"name": "read", "arguments": {"path": "a.txt"}}, {"name": "ls", "arguments": {}}]
    script = {"turns": [{"thinking": "Look.", "tool_calls": calls, "signature": SIG}]}
    with FakeServer(script) as server:
        message = final(run(gemini(server), ask("read a.txt")))
    assert message.stop_reason == "toolUse"
    first, second = message.tool_calls()
    assert (first.name, first.arguments, first.thought_signature) == (
        "read",
        {"path": "a.txt"},
        SIG,
    )
    assert (second.name, second.arguments) == ("ls", {})
    assert not isinstance(second.thought_signature, str)
    assert first.id != second.id


@contextmanager
def raw_server(data: bytes) -> Iterator[tuple[Model, list[tuple[str, dict[str, str]]]]]:
    """A server answering every POST with `data` as an event stream; records path and headers."""
    seen: list[tuple[str, dict[str, str]]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["content-length"]))
            seen.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        model = gemini()
        model.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1beta/"
        yield model, seen
    finally:
        server.shutdown()
        server.server_close()


def test_key_goes_in_the_goog_header_and_the_url_asks_for_sse() -> None:
    chunk = {"candidates": [{"content": {"parts": [{"text": "ok"}]}, "finishReason": "STOP"}]}
    with raw_server(b"data: " + json.dumps(chunk).encode() + b"\n\n") as (model, seen):
        message = final(run(model, ask("hi"), StreamOptions(api_key="secret-key")))
    assert message.text() == "ok"
    path, headers = seen[0]
    assert path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    assert headers["x-goog-api-key"] == "secret-key"
    assert "authorization" not in headers


def test_an_error_inside_the_stream_is_reported_with_its_message() -> None:
    chunk = {"candidates": [{"content": {"parts": [{"text": "par"}]}}]}
    error = {"error": {"code": 500, "message": "Internal error encountered.", "status": "INTERNAL"}}
    data = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in (chunk, error))
    with raw_server(data) as (model, _):
        message = final(run(model, ask("hi")))
    assert message.stop_reason == "error"
    assert message.error_message == "Internal error encountered."
    assert message.text() == "par"
    assert is_retryable_error(message)


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        ({"finishReason": "SAFETY"}, "Gemini stopped the reply for safety reasons"),
        ({"finishReason": "RECITATION"}, "repeated copyrighted material (finishReason RECITATION)"),
        ({"blockReason": "PROHIBITED_CONTENT"}, "Gemini blocked the prompt (blockReason"),
    ],
)
def test_safety_stops_and_blocked_prompts_are_errors_that_say_why(
    fault: dict[str, object], words: str
) -> None:
    with FakeServer({"turns": [{"text": "I was about to", "fault": fault}]}) as server:
        message = final(run(gemini(server), ask("hi")))
    assert message.stop_reason == "error"
    assert words in str(message.error_message)
    assert not is_retryable_error(message)


def test_max_tokens_is_length() -> None:
    with FakeServer({"turns": [{"text": "Cut", "stop": "length"}]}) as server:
        message = final(run(gemini(server), ask("hi")))
    assert (message.stop_reason, message.raw_stop_reason) == ("length", "MAX_TOKENS")


def test_rate_limit_is_retryable_with_the_servers_wait() -> None:
    script = {"turns": [{"fault": {"status": 429, "retryAfter": 3, "message": "Slow down"}}]}
    with FakeServer(script) as server:
        events = run(gemini(server), ask("hi"))
    error = events[-1]
    assert isinstance(error, ErrorEvent)
    assert error.message.error_message == "429 Slow down"
    assert error.retry_after_seconds == 3
    assert is_retryable_error(error.message)


def test_server_error_overflow_and_a_cut_stream() -> None:
    turns = [
        {"fault": {"status": 503}},
        {"fault": {"overflow": True}},
        {"text": "Hello there, friend", "fault": {"cutAfter": 2}},
    ]
    with FakeServer({"turns": turns}) as server:
        unavailable = final(run(gemini(server), ask("hi")))
        overflow = final(run(gemini(server), ask("hi")))
        cut = final(run(gemini(server), ask("hi")))
    assert str(unavailable.error_message).startswith("503 ")
    assert is_retryable_error(unavailable)
    assert is_context_overflow(overflow)
    assert not is_retryable_error(overflow)
    assert cut.stop_reason == "error"
    assert cut.text() == "Hello th"
    assert is_retryable_error(cut)


def test_a_stream_that_ends_without_a_finish_reason_is_an_error() -> None:
    builder = MessageBuilder(gemini())
    state = _ChunkState(builder)
    state.take({"candidates": [{"content": {"parts": [{"text": "half"}]}}]})
    events = state.finish()
    assert isinstance(events[-1], ErrorEvent)
    assert events[-1].message.error_message == "Gemini stream ended without a finish reason"
    assert is_retryable_error(events[-1].message)


# --- thought signatures -----------------------------------------------------------------------


def test_each_signature_stays_on_the_block_whose_part_carried_it() -> None:
    state = _ChunkState(MessageBuilder(gemini()))
    other = base64.b64encode(b"other").decode()
    for part in [
        {"text": "Thinking", "thought": True},
        {"text": " more", "thought": True, "thoughtSignature": SIG},
        {"text": "Answer"},
        {"text": "", "thoughtSignature": other},
        {"functionCall": {"name": "ls", "args": {}}, "thoughtSignature": SIG},
    ]:
        state.take({"candidates": [{"content": {"parts": [part]}}]})
    state.take({"candidates": [{"finishReason": "STOP"}]})
    message = state.finish()[-1].message
    thinking, text, call = message.content
    assert isinstance(thinking, ThinkingContent)
    assert (thinking.thinking, thinking.thinking_signature) == ("Thinking more", SIG)
    assert isinstance(text, TextContent)
    assert (text.text, text.text_signature) == ("Answer", other)
    assert isinstance(call, ToolCall)
    assert call.thought_signature == SIG
    assert message.stop_reason == "toolUse"


def test_signatures_go_back_on_the_same_part_to_the_same_model_only() -> None:
    earlier = reply(
        ThinkingContent(thinking="Plan", thinking_signature=SIG),
        TextContent(text="", text_signature=SIG),
        ToolCall(id="c1", name="ls", arguments={}, thought_signature=SIG),
    )
    messages = [
        UserMessage(content="go"),
        earlier,
        ToolResultMessage(tool_call_id="c1", tool_name="ls", content=[TextContent(text="a.txt")]),
    ]
    same, _ = convert_messages(gemini(), messages)
    assert same[1] == {
        "role": "model",
        "parts": [
            {"thought": True, "text": "Plan", "thoughtSignature": SIG},
            {"text": "", "thoughtSignature": SIG},
            {"functionCall": {"name": "ls", "args": {}}, "thoughtSignature": SIG},
        ],
    }
    assert same[2] == {
        "role": "user",
        "parts": [{"functionResponse": {"name": "ls", "response": {"output": "a.txt"}}}],
    }
    other, _ = convert_messages(gemini(model_id="gemini-2.5-pro"), messages)
    assert other[1] == {
        "role": "model",
        "parts": [{"text": "Plan"}, {"functionCall": {"name": "ls", "args": {}}}],
    }


def test_a_signature_that_is_not_base64_is_never_sent() -> None:
    assert is_valid_signature(SIG)
    assert not is_valid_signature("fake-signature-0")  # an Anthropic-style stand-in
    assert not is_valid_signature("abc")  # unpadded
    assert not is_valid_signature("")
    message = reply(ToolCall(id="c1", name="ls", arguments={}, thought_signature="not base64!"))
    contents, _ = convert_messages(gemini(), [UserMessage(content="go"), message])
    assert contents[1]["parts"] == [{"functionCall": {"name": "ls", "args": {}}}]


def test_gemini_3_pairs_calls_and_results_by_id_and_nests_result_images() -> None:
    messages = [
        UserMessage(content="go"),
        reply(
            ToolCall(id="call/1", name="read", arguments={"path": "a.png"}),
            ToolCall(id="call/2", name="ls", arguments={}),
            model_id="gemini-3-pro-preview",
        ),
        ToolResultMessage(
            tool_call_id="call/1",
            tool_name="read",
            content=[ImageContent(data=PNG, mime_type="image/png")],
        ),
        ToolResultMessage(
            tool_call_id="call/2", tool_name="ls", content=[TextContent(text="no")], is_error=True
        ),
    ]
    contents, _ = convert_messages(gemini(model_id="gemini-3-pro-preview"), messages)
    calls = contents[1]["parts"]
    assert [p["functionCall"]["id"] for p in calls] == ["call_1", "call_2"]  # type: ignore[index]
    assert contents[2] == {
        "role": "user",
        "parts": [
            {
                "functionResponse": {
                    "name": "read",
                    "response": {"output": "(see attached image)"},
                    "parts": [{"inlineData": {"mimeType": "image/png", "data": PNG}}],
                    "id": "call_1",
                }
            },
            {"functionResponse": {"name": "ls", "response": {"error": "no"}, "id": "call_2"}},
        ],
    }
    older, _ = convert_messages(gemini(), messages)
    assert "id" not in older[2]["parts"][0]["functionResponse"]  # type: ignore[index]
    assert older[3] == {
        "role": "user",
        "parts": [
            {"text": "Tool result image:"},
            {"inlineData": {"mimeType": "image/png", "data": PNG}},
        ],
    }


def test_user_images_are_inline_data() -> None:
    message = UserMessage(
        content=[TextContent(text="what is it?"), ImageContent(data=PNG, mime_type="image/png")]
    )
    contents, _ = convert_messages(gemini(), [message])
    assert contents == [
        {
            "role": "user",
            "parts": [
                {"text": "what is it?"},
                {"inlineData": {"mimeType": "image/png", "data": PNG}},
            ],
        }
    ]


# --- request settings -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model_id", "level", "config"),
    [
        ("gemini-2.5-pro", "minimal", {"includeThoughts": True, "thinkingBudget": 128}),
        ("gemini-2.5-pro", "max", {"includeThoughts": True, "thinkingBudget": 32768}),
        ("gemini-2.5-flash", "high", {"includeThoughts": True, "thinkingBudget": 24576}),
        ("gemini-2.5-flash-lite", "minimal", {"includeThoughts": True, "thinkingBudget": 512}),
        ("gemini-2.5-flash", "off", {"thinkingBudget": 0}),
        ("gemini-2.5-pro", "off", {"thinkingBudget": 128}),
        ("gemini-exp", "low", {"includeThoughts": True, "thinkingBudget": -1}),
        ("gemini-3-pro-preview", "high", {"includeThoughts": True, "thinkingLevel": "HIGH"}),
        ("gemini-3-pro-preview", "minimal", {"includeThoughts": True, "thinkingLevel": "LOW"}),
        ("gemini-3-pro-preview", "off", {"thinkingLevel": "LOW"}),
        ("gemini-3-flash-preview", "off", {"thinkingLevel": "MINIMAL"}),
        ("gemini-3.1-flash-lite", "xhigh", {"includeThoughts": True, "thinkingLevel": "HIGH"}),
    ],
)
def test_thinking_levels_map_per_family(model_id: str, level: str, config: object) -> None:
    assert thinking_config(gemini(model_id=model_id), level) == config  # type: ignore[arg-type]


def test_a_model_that_does_not_think_gets_no_thinking_config() -> None:
    model = gemini()
    model.reasoning = False
    body = build_request(model, ask("hi"), max_tokens=1000, thinking="high", temperature=0.5)
    assert body["generationConfig"] == {"maxOutputTokens": 1000, "temperature": 0.5}


def test_tools_are_function_declarations_with_the_schema_gemini_takes() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "mode": {"const": "fast", "$comment": "only one"},
            "const": {"type": ["string", "null"]},
            "items": {"type": "array", "items": {"anyOf": [{"const": 1}, {"const": True}]}},
        },
        "additionalProperties": False,
        "required": ["mode"],
    }
    context = ask("hi")
    context.tools = [ToolSpec("pick", "Pick one.", schema)]
    body = build_request(gemini(), context, max_tokens=None, thinking="off", temperature=None)
    assert body["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": "pick",
                    "description": "Pick one.",
                    "parametersJsonSchema": {
                        "type": "object",
                        "properties": {
                            "mode": {"enum": ["fast"]},
                            "const": {"type": ["string", "null"]},
                            "items": {
                                "type": "array",
                                "items": {"anyOf": [{"enum": [1]}, {"const": True}]},
                            },
                        },
                        "additionalProperties": False,
                        "required": ["mode"],
                    },
                }
            ]
        }
    ]
    assert "$schema" in schema  # the tool's own schema is left alone
    assert gemini_schema(True) is True


def test_google_is_a_builtin_provider_with_gemini_models() -> None:
    info = BUILTIN_PROVIDERS["google"]
    assert info.api == "google-generative-ai"
    assert info.base_url == "https://generativelanguage.googleapis.com/v1beta"
    assert info.env_keys == ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    models = {m.id: m for m in builtin_models() if m.provider == "google"}
    assert set(models) >= {"gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite"}
    pro = models["gemini-2.5-pro"]
    assert (pro.context_window, pro.max_tokens, pro.cost.input, pro.cost.output) == (
        1_048_576,
        65_536,
        1.25,
        10,
    )
    assert isinstance(provider_for(pro), GoogleProvider)


def test_abort_mid_stream_keeps_what_arrived() -> None:
    controller = AbortController()
    options = StreamOptions(api_key="k", signal=controller.signal)

    async def scenario(model: Model) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        async for event in GoogleProvider().stream(model, ask("hi"), options):
            events.append(event)
            if isinstance(event, TextDelta):
                controller.abort()
        return events

    script = {"turns": [{"text": "Hello there, friend", "fault": {"chunkDelay": 0.5}}]}
    with FakeServer(script) as server:
        message = final(asyncio.run(scenario(gemini(server))))
    assert message.stop_reason == "aborted"
    assert message.error_message == "Request was aborted"
    assert message.text() == "Hell"


def test_the_payload_hook_sees_and_may_replace_the_body() -> None:
    seen: list[dict[str, object]] = []

    def hook(body: dict[str, object]) -> dict[str, object]:
        seen.append(body)
        return {**body, "safetySettings": [{"category": "HARM_CATEGORY_HATE_SPEECH"}]}

    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        run(gemini(server), ask("hi"), StreamOptions(api_key="k", on_payload=hook))
        sent = server.requests[-1]["body"]
    assert isinstance(sent, dict)
    assert seen[0]["contents"] == sent["contents"]
    assert sent["safetySettings"] == [{"category": "HARM_CATEGORY_HATE_SPEECH"}]


def test_the_key_comes_from_gemini_then_google_api_key_and_models_json_takes_the_api(
    tmp_path: Path,
) -> None:
    registry = ModelRegistry.load(None)
    model = registry.find("google/gemini-2.5-flash").model
    both = {"GEMINI_API_KEY": "gemini", "GOOGLE_API_KEY": "google"}
    assert registry.api_key(model, environ=both) == "gemini"
    assert registry.api_key(model, environ={"GOOGLE_API_KEY": "google"}) == "google"
    provider = {
        "baseUrl": "http://127.0.0.1:9/v1beta",
        "api": "google-generative-ai",
        "models": [{"id": "gemini-3-flash-preview", "reasoning": True}],
    }
    (tmp_path / "models.json").write_text(json.dumps({"providers": {"proxy": provider}}))
    custom = ModelRegistry.load(tmp_path).find("proxy/gemini-3-flash-preview").model
    assert custom.api == "google-generative-ai"
    assert isinstance(provider_for(custom), GoogleProvider)
