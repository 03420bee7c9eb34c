"""Anthropic Messages over HTTP (`_anthropic_http`; `httpx2` is imported only when used).

The raw event stream is mapped onto `MessageBuilder`: Anthropic numbers its content blocks and
opens and closes them one at a time (`content_block_start` / `_delta` / `_stop`), the stop
reason arrives in `message_delta`, and `message_stop` marks a complete reply.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from pith.ai._anthropic_convert import build_request, request_headers, without_cache_breakpoints
from pith.ai._anthropic_http import AnthropicHTTP, messages_url
from pith.ai._builder import MessageBuilder
from pith.ai._clients import cached_client
from pith.ai._http_errors import (
    broken_stream,
    described,
    status_message,
    timed_out,
    unreachable,
)
from pith.ai._http_stream import endpoint_description
from pith.ai._messages import StopReason, Usage
from pith.ai._models import Model
from pith.ai._reply_stream import stream_reply
from pith.ai._stream import Context, StreamEvent, StreamOptions, TextDelta, apply_payload_hook

__all__ = ["AnthropicProvider", "map_stop_reason"]

JsonObject = dict[str, object]

STREAM_ENDED = "Stream ended before message_stop"
REFUSED = "The model refused to complete the request"

_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",  # a paused server-side tool turn; sending the reply back resumes it
    "max_tokens": "length",
    "tool_use": "toolUse",
}


def map_stop_reason(reason: str, details: object = None) -> tuple[StopReason, str | None]:
    """pith's stop reason for Anthropic's, and the error message when it is an error."""
    if reason in _STOP_REASONS:
        return _STOP_REASONS[reason], None
    if reason == "refusal":
        explanation = details.get("explanation") if isinstance(details, dict) else None
        return "error", explanation if isinstance(explanation, str) and explanation else REFUSED
    # Unknown reasons are errors that name the reason; `model_context_window_exceeded` thereby
    # reads as a context overflow (compaction), not as a short answer.
    return "error", f"Unhandled stop reason: {reason}"


class AnthropicProvider:
    """Streams replies from the Anthropic Messages API (or a server speaking it)."""

    async def stream(
        self, model: Model, context: Context, options: StreamOptions
    ) -> AsyncIterator[StreamEvent]:
        builder = MessageBuilder(model)
        state = _EventState(builder)

        async def open_events() -> AsyncIterator[JsonObject]:
            # Built after the start event: a request that cannot be built is an error reply.
            body = build_request(
                model,
                context,
                max_tokens=options.max_tokens,
                thinking=options.thinking,
                temperature=options.temperature,
            )
            if options.cache_retention == "none":
                body = without_cache_breakpoints(body)
            if options.on_payload is not None:
                body = {**await apply_payload_hook(options, body), "stream": True}
            return _client(model, options).events(body)

        async for event in stream_reply(
            builder,
            state,
            open_events,
            options.signal,
            transport_words=lambda error: _transport_message(error, state, model),
            status_words=lambda error: status_message(error.status, error.body, typed=True),
        ):
            yield event


def _client(model: Model, options: StreamOptions) -> AnthropicHTTP:
    headers = request_headers(model, options.thinking, options.headers)
    timeout = options.timeout_seconds or 600.0
    key = (
        "anthropic",
        model.base_url,
        options.api_key,
        tuple(sorted(headers.items())),
        timeout,
    )
    return cached_client(
        key,
        lambda: AnthropicHTTP(
            model.base_url or None, options.api_key or "no-key", headers, timeout
        ),
    )


def _transport_message(error: Exception, state: _EventState, model: Model) -> str:
    """A failure of the connection itself, in words that say which, and where to; a
    connection lost mid-reply says the reply was cut short."""
    names = {cls.__name__ for cls in type(error).__mro__}
    where = endpoint_description(model.provider, messages_url(model.base_url or None))
    if "TimeoutException" in names:
        return timed_out(where)
    if state.started and not state.stopped and names & {"TransportError", "StreamError"}:
        return broken_stream(STREAM_ENDED, error)
    if "TransportError" in names:
        return unreachable(where, error)
    return described(error)


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class _EventState:
    """Maps raw Messages stream events onto the builder."""

    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.blocks: dict[int, tuple[str, int]] = {}
        """Anthropic's block index -> (block type, the builder's content index)."""
        self.counts = {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0}
        self.reasoning: int | None = None
        self.stop_reason: str | None = None
        self.stop_details: object = None
        self.started = False
        self.stopped = False

    def take(self, event: JsonObject) -> list[StreamEvent]:
        kind = event.get("type")
        if kind == "message_start":
            self._message_start(event.get("message"))
        elif kind == "content_block_start":
            return self._block_start(event)
        elif kind == "content_block_delta":
            return self._block_delta(event)
        elif kind == "content_block_stop":
            index = _int(event.get("index"))
            block = self.blocks.pop(index, None) if index is not None else None
            return self.builder.end_block(block[1]) if block is not None else []
        elif kind == "message_delta":
            delta = event.get("delta")
            if isinstance(delta, dict) and isinstance(delta.get("stop_reason"), str):
                self.stop_reason = str(delta["stop_reason"])
                self.stop_details = delta.get("stop_details")
            self._usage(event.get("usage"))
        elif kind == "message_stop":
            self.stopped = True
        return []

    def _message_start(self, message: object) -> None:
        self.started = True
        if not isinstance(message, dict):
            return
        built = self.builder.message
        if isinstance(message.get("id"), str):
            built.response_id = str(message["id"])
        served = message.get("model")
        if isinstance(served, str) and served and served != built.model:
            built.response_model = served
        self._usage(message.get("usage"))

    def _usage(self, raw: object) -> None:
        if not isinstance(raw, dict):
            return
        fields = {
            "input": "input_tokens",
            "output": "output_tokens",
            "cache_read": "cache_read_input_tokens",
            "cache_write": "cache_creation_input_tokens",
        }
        for name, key in fields.items():
            value = _int(raw.get(key))
            if value is not None:  # proxies may leave out counts they sent in message_start
                self.counts[name] = value
        details = raw.get("output_tokens_details")
        if isinstance(details, dict) and _int(details.get("thinking_tokens")) is not None:
            self.reasoning = _int(details.get("thinking_tokens"))
        counts = self.counts
        usage = Usage(
            input=counts["input"],
            output=counts["output"],
            cache_read=counts["cache_read"],
            cache_write=counts["cache_write"],
            total_tokens=sum(counts.values()),
        )
        if self.reasoning is not None:
            usage.reasoning = self.reasoning
        self.builder.set_usage(usage)

    def _block_start(self, event: JsonObject) -> list[StreamEvent]:
        index = _int(event.get("index"))
        block = event.get("content_block")
        if index is None or not isinstance(block, dict):
            return []
        builder = self.builder
        kind = block.get("type")
        events: list[StreamEvent]
        if kind == "text":
            text = block.get("text")
            events = [
                e
                for e in builder.text(text if isinstance(text, str) else "")
                if not (isinstance(e, TextDelta) and not e.delta)
            ]
            content_index = len(builder.message.content) - 1
        elif kind == "thinking":
            thinking = block.get("thinking")
            events = builder.thinking(thinking if isinstance(thinking, str) else "")
            content_index = len(builder.message.content) - 1
            signature = block.get("signature")
            if isinstance(signature, str) and signature:
                builder.thinking_signature(signature)
        elif kind == "redacted_thinking":
            data = block.get("data")
            # Opened and closed at once: the opaque payload arrives whole.
            return builder.redacted_thinking(data if isinstance(data, str) else "")
        elif kind == "tool_use":
            call_id, name = block.get("id"), block.get("name")
            content_index, events = builder.tool_call_start(
                call_id if isinstance(call_id, str) else f"toolu_{index}",
                name if isinstance(name, str) else "",
            )
        else:
            return []  # server tools, citations, ...: nothing pith shows or replays
        self.blocks[index] = (str(kind), content_index)
        return events

    def _block_delta(self, event: JsonObject) -> list[StreamEvent]:
        index = _int(event.get("index"))
        delta = event.get("delta")
        block = self.blocks.get(index) if index is not None else None
        if block is None or not isinstance(delta, dict):
            return []
        block_kind, content_index = block
        builder = self.builder
        kind = delta.get("type")
        if kind == "text_delta" and block_kind == "text":
            text = delta.get("text")
            return builder.text(text) if isinstance(text, str) and text else []
        if kind == "thinking_delta" and block_kind == "thinking":
            thinking = delta.get("thinking")
            return builder.thinking(thinking) if isinstance(thinking, str) and thinking else []
        if kind == "signature_delta" and block_kind == "thinking":
            signature = delta.get("signature")
            if isinstance(signature, str):
                builder.thinking_signature(signature)
            return []
        if kind == "input_json_delta" and block_kind == "tool_use":
            piece = delta.get("partial_json")
            return builder.tool_call_args(content_index, piece) if isinstance(piece, str) else []
        return []

    def finish(self) -> list[StreamEvent]:
        builder = self.builder
        if self.stop_reason is None or not self.stopped:
            return builder.fail(STREAM_ENDED)
        stop, error = map_stop_reason(self.stop_reason, self.stop_details)
        builder.message.raw_stop_reason = self.stop_reason
        if error is not None:
            return builder.fail(error)
        return builder.done(stop, self.stop_reason)
