"""OpenAI chat completions over HTTP (`_http_stream`; no SDK, see there why).

Serves OpenAI itself and every compatible server: Ollama, vLLM, llama.cpp, LM Studio, OpenRouter,
Groq, DeepSeek, ... Thinking arrives in `reasoning_content` / `reasoning` / `reasoning_text`;
tool-call arguments arrive as JSON pieces keyed by `index`.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping

from pith.ai._builder import MessageBuilder
from pith.ai._clients import cached_client
from pith.ai._http_stream import EventStream, JsonObject, StatusError, endpoint_description
from pith.ai._messages import StopReason, Usage
from pith.ai._models import Model
from pith.ai._openai_convert import REASONING_FIELDS, build_request
from pith.ai._openai_headers import account_headers
from pith.ai._reply_stream import stream_reply
from pith.ai._stream import Context, StreamEvent, StreamOptions, apply_payload_hook

__all__ = ["OpenAICompatProvider", "completions_url", "parse_usage"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"

_STOP_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "end": "stop",
    "length": "length",
    "tool_calls": "toolUse",
    "function_call": "toolUse",
}


def parse_usage(raw: Mapping[str, object]) -> Usage:
    """Token counts from an OpenAI-style `usage` object; cached tokens are not input."""
    prompt = _int(raw.get("prompt_tokens"))
    details = raw.get("prompt_tokens_details")
    cache_read = _int(details.get("cached_tokens")) if isinstance(details, dict) else 0
    cache_read = (
        cache_read or _int(raw.get("prompt_cache_hit_tokens")) or _int(raw.get("cached_tokens"))
    )
    cache_write = _int(details.get("cache_write_tokens")) if isinstance(details, dict) else 0
    output = _int(raw.get("completion_tokens"))
    completion = raw.get("completion_tokens_details")
    reasoning = _int(completion.get("reasoning_tokens")) if isinstance(completion, dict) else 0
    fresh = max(0, prompt - cache_read - cache_write)
    return Usage(
        input=fresh,
        output=output,
        cache_read=cache_read,
        cache_write=cache_write,
        reasoning=reasoning or _int(raw.get("reasoning_tokens")),
        total_tokens=fresh + output + cache_read + cache_write,
    )


def _int(value: object) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def completions_url(base_url: str | None) -> str:
    """`<base>/chat/completions` (the SDK's path under its `base_url`)."""
    return (base_url or DEFAULT_BASE_URL).rstrip("/") + "/chat/completions"


class OpenAICompatProvider:
    """Streams replies from any OpenAI-compatible chat-completions endpoint."""

    async def stream(
        self, model: Model, context: Context, options: StreamOptions
    ) -> AsyncIterator[StreamEvent]:
        builder = MessageBuilder(model)
        # The request is built (and shown to `before_provider_request`) before the reply
        # starts, as in pi-ai's OpenAI provider.
        body = build_request(
            model,
            context,
            max_tokens=options.max_tokens,
            thinking=options.thinking,
            temperature=options.temperature,
        )
        body = {**await apply_payload_hook(options, body), "stream": True}
        async for event in stream_reply(
            builder,
            _ChunkState(builder),
            lambda: _client(model, options).chunks(body),
            options.signal,
            where=endpoint_description(model.provider, completions_url(model.base_url or None)),
        ):
            yield event


class _OpenAIHTTP:
    """One endpoint, one key: the `Authorization` header the SDK would send."""

    def __init__(self, model: Model, options: StreamOptions, timeout: float) -> None:
        from pith._version import __version__

        headers = {
            "authorization": f"Bearer {options.api_key or 'no-key'}",
            "user-agent": f"pith/{__version__}",
            **account_headers(os.environ),
            **options.headers,
        }
        self.stream = EventStream(completions_url(model.base_url or None), headers, timeout)

    async def chunks(self, body: JsonObject) -> AsyncIterator[JsonObject]:
        """The completion chunks; an `error` object inside the stream raises `StatusError`."""
        async for chunk, status, headers in self.stream.events(body):
            if chunk.get("error") and not chunk.get("choices"):
                raise StatusError(status, chunk, headers)
            yield chunk


def _client(model: Model, options: StreamOptions) -> _OpenAIHTTP:
    timeout = options.timeout_seconds or 600.0
    key = (
        "openai",
        model.base_url,
        options.api_key,
        tuple(sorted(options.headers.items())),
        timeout,
    )
    return cached_client(key, lambda: _OpenAIHTTP(model, options, timeout))


class _ChunkState:
    """Maps chat-completion chunks onto the builder."""

    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.finish_reason: str | None = None
        self.tool_blocks: dict[int, int] = {}
        """Stream index of each tool call -> its content index."""

    def take(self, chunk: dict[str, object]) -> list[StreamEvent]:
        builder = self.builder
        message = builder.message
        if isinstance(chunk.get("id"), str) and not isinstance(message.response_id, str):
            message.response_id = str(chunk["id"])
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            builder.set_usage(parse_usage(usage))
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return []
        choice = choices[0]
        if isinstance(choice.get("usage"), dict) and not isinstance(usage, dict):
            builder.set_usage(parse_usage(choice["usage"]))
        if isinstance(choice.get("finish_reason"), str):
            self.finish_reason = choice["finish_reason"]
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            return []
        events: list[StreamEvent] = []
        for field in REASONING_FIELDS:
            value = delta.get(field)
            if isinstance(value, str) and value:
                events.extend(builder.thinking(value, field))
                break
        content = delta.get("content")
        if isinstance(content, str) and content:
            events.extend(builder.text(content))
        calls = delta.get("tool_calls")
        if isinstance(calls, list):
            for call in calls:
                if isinstance(call, dict):
                    events.extend(self._tool_call(call))
        return events

    def _tool_call(self, call: dict[str, object]) -> list[StreamEvent]:
        stream_index = call.get("index")
        key = stream_index if isinstance(stream_index, int) else len(self.tool_blocks)
        function = call.get("function") if isinstance(call.get("function"), dict) else {}
        assert isinstance(function, dict)
        name = function.get("name") if isinstance(function.get("name"), str) else ""
        events: list[StreamEvent] = []
        if key not in self.tool_blocks:
            call_id = call.get("id") if isinstance(call.get("id"), str) else f"call_{key}"
            index, started = self.builder.tool_call_start(str(call_id), str(name))
            self.tool_blocks[key] = index
            events.extend(started)
        index = self.tool_blocks[key]
        block = self.builder.tool_call(index)
        if name and not block.name:
            block.name = str(name)
        arguments = function.get("arguments")
        events.extend(
            self.builder.tool_call_args(index, arguments if isinstance(arguments, str) else "")
        )
        return events

    def finish(self) -> list[StreamEvent]:
        builder = self.builder
        if self.finish_reason is None:
            if builder.message.content:
                return builder.fail("Stream ended without finish_reason")
            return builder.fail("The server closed the stream without sending a reply")
        stop = _STOP_REASONS.get(self.finish_reason)
        if stop is None:
            return builder.fail(f"Provider finish_reason: {self.finish_reason}")
        if stop == "stop" and builder.has_tool_calls():
            stop = "toolUse"  # some servers (Ollama) say "stop" after tool calls
        return builder.done(stop, self.finish_reason)
