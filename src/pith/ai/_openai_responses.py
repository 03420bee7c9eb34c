"""OpenAI Responses API over HTTP (`POST {baseUrl}/responses`, `_http_stream`; no SDK).

The stream is a sequence of `response.*` events about output items, each at an
`output_index`: a `reasoning` item (its summary streams as thinking), a `message` item (text,
or a refusal, which is shown as text as Pi does), a `function_call` item (arguments stream as
JSON pieces). `response.completed` / `response.incomplete` carry the usage and the status;
`response.failed` and `error` end the reply with an error. What is stored on each block for
replaying it later is described in `_responses_convert`.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Mapping

from pith.ai._builder import MessageBuilder
from pith.ai._clients import cached_client
from pith.ai._http_stream import EventStream, JsonObject, endpoint_description
from pith.ai._messages import StopReason, TextContent, ThinkingContent, ToolCall, Usage
from pith.ai._models import Model
from pith.ai._openai_compat import DEFAULT_BASE_URL
from pith.ai._openai_headers import account_headers
from pith.ai._partial_json import finish_arguments
from pith.ai._reply_stream import StreamFailure, stream_reply
from pith.ai._responses_convert import build_request, text_signature
from pith.ai._stream import Context, StreamEvent, StreamOptions, apply_payload_hook

__all__ = [
    "OpenAIResponsesProvider",
    "parse_usage",
    "responses_url",
    "session_headers",
    "stop_reason_for",
]


def responses_url(base_url: str | None) -> str:
    """`<base>/responses` (the SDK's path under its `base_url`)."""
    return (base_url or DEFAULT_BASE_URL).rstrip("/") + "/responses"


def _int(value: object) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def parse_usage(raw: Mapping[str, object]) -> Usage:
    """Token counts from a Responses `usage`: cached tokens are counted apart from input,
    reasoning tokens are part of output."""
    details = raw.get("input_tokens_details")
    cached = _int(details.get("cached_tokens")) if isinstance(details, dict) else 0
    written = _int(details.get("cache_write_tokens")) if isinstance(details, dict) else 0
    fresh = max(0, _int(raw.get("input_tokens")) - cached - written)
    output = _int(raw.get("output_tokens"))
    out_details = raw.get("output_tokens_details")
    reasoning = _int(out_details.get("reasoning_tokens")) if isinstance(out_details, dict) else 0
    total = _int(raw.get("total_tokens")) or fresh + cached + written + output
    return Usage(
        input=fresh,
        output=output,
        cache_read=cached,
        cache_write=written,
        reasoning=reasoning,
        total_tokens=total,
    )


def stop_reason_for(status: object, reason: object) -> tuple[StopReason, str | None]:
    """The stop reason of a finished response, and the error message when it is an error:
    an incomplete response cut at `max_output_tokens` is `length`, any other is an error."""
    if status == "incomplete":
        if reason == "max_output_tokens":
            return "length", None
        if isinstance(reason, str) and reason:
            return "error", f"Response incomplete: {reason}"
        return "error", "Response incomplete without a reason"
    if status in ("failed", "cancelled"):
        return "error", f"Response {status}"
    return "stop", None


class OpenAIResponsesProvider:
    """Streams replies from OpenAI's Responses API (or a server that speaks it)."""

    async def stream(
        self, model: Model, context: Context, options: StreamOptions
    ) -> AsyncIterator[StreamEvent]:
        builder = MessageBuilder(model)
        body = build_request(
            model,
            context,
            max_tokens=options.max_tokens,
            thinking=options.thinking,
            temperature=options.temperature,
            session_id=options.session_id,
        )
        body = {**await apply_payload_hook(options, body), "stream": True}
        async for event in stream_reply(
            builder,
            _EventState(builder),
            lambda: _client(model, options).events(body),
            options.signal,
            where=endpoint_description(model.provider, responses_url(model.base_url or None)),
        ):
            yield event


def session_headers(session_id: str | None) -> dict[str, str]:
    """`session-id` and `x-client-request-id`: the session's requests reach the same
    servers (and prompt cache), as for Pi's and OpenAI's own clients."""
    if not session_id:
        return {}
    return {"session-id": session_id, "x-client-request-id": session_id}


class _ResponsesHTTP:
    def __init__(self, model: Model, options: StreamOptions, timeout: float) -> None:
        from pith._version import __version__

        headers = {
            "authorization": f"Bearer {options.api_key or 'no-key'}",
            "user-agent": f"pith/{__version__}",
            **account_headers(os.environ),
            **session_headers(options.session_id),
            **options.headers,
        }
        self.stream = EventStream(responses_url(model.base_url or None), headers, timeout)

    async def events(self, body: JsonObject) -> AsyncIterator[JsonObject]:
        async for event, _status, _headers in self.stream.events(body):
            yield event


def _client(model: Model, options: StreamOptions) -> _ResponsesHTTP:
    timeout = options.timeout_seconds or 600.0
    key = (
        "openai-responses",
        model.base_url,
        options.api_key,
        options.session_id,
        tuple(sorted(options.headers.items())),
        timeout,
    )
    return cached_client(key, lambda: _ResponsesHTTP(model, options, timeout))


def _compact(item: Mapping[str, object]) -> str:
    return json.dumps(item, ensure_ascii=False, separators=(",", ":"))


class _EventState:
    """Maps `response.*` events onto the builder, one output item at a time."""

    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.blocks: dict[int, int] = {}
        """Output index of each item still streaming -> its content index."""
        self.arguments: dict[int, str] = {}
        """Output index of a function call -> the argument text streamed so far."""
        self.unfinished: dict[int, ToolCall] = {}
        """Function calls whose `output_item.done` has not come."""
        self.reasoning_blocks: dict[str, ThinkingContent] = {}
        """Reasoning item id -> its block, to fill in encrypted content sent late."""
        self.finished = False
        self.status: object = None
        self.reason: object = None
        self.raw = ""

    def take(self, event: JsonObject) -> list[StreamEvent]:
        kind = event.get("type")
        index = _int(event.get("output_index"))
        if kind == "response.created":
            response = event.get("response")
            if isinstance(response, dict) and isinstance(response.get("id"), str):
                self.builder.message.response_id = response["id"]
            return []
        if kind == "response.output_item.added":
            item = event.get("item")
            return self._added(index, item) if isinstance(item, dict) else []
        if kind == "response.reasoning_summary_part.added":
            if index in self.blocks and _int(event.get("summary_index")) > 0:
                return self.builder.thinking("\n\n")
            return []
        if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            delta = event.get("delta")
            if index in self.blocks and isinstance(delta, str):
                return self.builder.thinking(delta)
            return []
        if kind in ("response.output_text.delta", "response.refusal.delta"):
            delta = event.get("delta")
            return self._text(index, delta) if isinstance(delta, str) and delta else []
        if kind == "response.function_call_arguments.delta":
            delta = event.get("delta")
            if index in self.arguments and isinstance(delta, str):
                self.arguments[index] += delta
                return self.builder.tool_call_args(self.blocks[index], delta)
            return []
        if kind == "response.output_item.done":
            item = event.get("item")
            return self._done(index, item) if isinstance(item, dict) else []
        if kind in ("response.completed", "response.incomplete"):
            response = event.get("response")
            self._finalize(response if isinstance(response, dict) else {})
            return []
        if kind == "response.failed":
            response = event.get("response")
            raise StreamFailure(_failure_message(response if isinstance(response, dict) else {}))
        if kind == "error":
            code = event.get("code") or "unknown"
            raise StreamFailure(f"Error Code {code}: {event.get('message') or 'no message'}")
        return []

    def _text(self, index: int, delta: str) -> list[StreamEvent]:
        events = self.builder.text(delta)
        self.blocks.setdefault(index, len(self.builder.message.content) - 1)
        return events

    def _reasoning_start(self, index: int) -> list[StreamEvent]:
        builder = self.builder
        # A new item is a new block, even when the one before never said it was done.
        events: list[StreamEvent] = []
        for open_index in list(self.blocks.values()):
            if not isinstance(builder.message.content[open_index], ToolCall):
                events += builder.end_block(open_index)
        events += builder.thinking("")
        self.blocks[index] = len(builder.message.content) - 1
        return events

    def _added(self, index: int, item: JsonObject) -> list[StreamEvent]:
        builder = self.builder
        kind = item.get("type")
        if kind == "reasoning":
            return self._reasoning_start(index)
        if kind == "function_call":
            call_id = item.get("call_id") if isinstance(item.get("call_id"), str) else ""
            item_id = item.get("id") if isinstance(item.get("id"), str) else ""
            name = item.get("name") if isinstance(item.get("name"), str) else ""
            content_index, events = builder.tool_call_start(f"{call_id}|{item_id}", str(name))
            self.blocks[index] = content_index
            self.arguments[index] = ""
            self.unfinished[index] = builder.tool_call(content_index)
            initial = item.get("arguments")
            if isinstance(initial, str) and initial:
                self.arguments[index] = initial
                events += builder.tool_call_args(content_index, initial)
            return events
        return []

    def _done(self, index: int, item: JsonObject) -> list[StreamEvent]:
        kind = item.get("type")
        if kind == "reasoning":
            return self._reasoning_done(index, item)
        if kind == "message":
            return self._message_done(index, item)
        if kind == "function_call" and index in self.arguments:
            return self._call_done(index, item)
        return []

    def _reasoning_done(self, index: int, item: JsonObject) -> list[StreamEvent]:
        builder = self.builder
        events = [] if index in self.blocks else self._reasoning_start(index)
        content_index = self.blocks.pop(index)
        block = builder.message.content[content_index]
        assert isinstance(block, ThinkingContent)
        readable = _joined(item.get("summary"), "text", "\n\n") or _joined(
            item.get("content"), "text", "\n\n"
        )
        if readable:
            block.thinking = readable
        block.thinking_signature = _compact(item)
        item_id = item.get("id")
        if isinstance(item_id, str):
            self.reasoning_blocks[item_id] = block
        return events + builder.end_block(content_index)

    def _message_done(self, index: int, item: JsonObject) -> list[StreamEvent]:
        builder = self.builder
        text = _joined(item.get("content"), None, "")
        events: list[StreamEvent] = []
        if index not in self.blocks:
            if not text:
                return []
            events += self._text(index, text)
        content_index = self.blocks.pop(index)
        block = builder.message.content[content_index]
        assert isinstance(block, TextContent)
        if text:
            block.text = text
        item_id = item.get("id")
        if isinstance(item_id, str):
            block.text_signature = text_signature(item_id, item.get("phase"))
        return events + builder.end_block(content_index)

    def _call_done(self, index: int, item: JsonObject) -> list[StreamEvent]:
        builder = self.builder
        content_index = self.blocks.pop(index)
        streamed = self.arguments.pop(index)
        full = item.get("arguments")
        events: list[StreamEvent] = []
        if isinstance(full, str) and full != streamed and full.startswith(streamed):
            events += builder.tool_call_args(content_index, full[len(streamed) :])
        events += builder.end_block(content_index)
        if isinstance(full, str) and full and not full.startswith(streamed):
            # The complete arguments disagree with the pieces: the complete ones win.
            call = builder.tool_call(content_index)
            call.arguments, error = finish_arguments(full)
            if error is not None:
                call.arguments_error = error
        self.unfinished.pop(index, None)
        return events

    def _finalize(self, response: JsonObject) -> None:
        builder = self.builder
        self.finished = True
        output = response.get("output")
        for item in output if isinstance(output, list) else []:
            # Some servers send the encrypted content only in the final response.
            if not isinstance(item, dict) or not isinstance(item.get("encrypted_content"), str):
                continue
            block = self.reasoning_blocks.get(str(item.get("id")))
            if block is None or not isinstance(block.thinking_signature, str):
                continue
            stored = json.loads(block.thinking_signature)
            if isinstance(stored, dict) and not stored.get("encrypted_content"):
                stored["encrypted_content"] = item["encrypted_content"]
                block.thinking_signature = _compact(stored)
        response_id = response.get("id")
        if isinstance(response_id, str):
            builder.message.response_id = response_id
        usage = response.get("usage")
        if isinstance(usage, dict):
            builder.set_usage(parse_usage(usage))
        details = response.get("incomplete_details")
        self.reason = details.get("reason") if isinstance(details, dict) else None
        self.status = response.get("status")
        status = self.status if isinstance(self.status, str) else "completed"
        self.raw = f"{status}.{self.reason}" if isinstance(self.reason, str) else status

    def finish(self) -> list[StreamEvent]:
        builder = self.builder
        if not self.finished:
            if builder.message.content:
                return builder.fail("Stream ended before the response completed")
            return builder.fail("The server closed the stream without sending a reply")
        stop, error = stop_reason_for(self.status, self.reason)
        if error is not None:
            builder.message.raw_stop_reason = self.raw
            return builder.fail(error)
        if stop == "stop" and builder.has_tool_calls():
            stop = "toolUse"
        if stop == "toolUse" and self.unfinished:
            call = next(iter(self.unfinished.values()))
            return builder.fail(
                f"The response completed with an unfinished tool call: {call.name} ({call.id})"
            )
        return builder.done(stop, self.raw)


def _joined(parts: object, key: str | None, separator: str) -> str:
    """The texts of a list of content parts; `key` None takes `text` or else `refusal`."""
    texts: list[str] = []
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        value = part.get(key) if key is not None else part.get("text", part.get("refusal"))
        if isinstance(value, str):
            texts.append(value)
    return separator.join(texts)


def _failure_message(response: JsonObject) -> str:
    error = response.get("error")
    if isinstance(error, dict):
        return f"{error.get('code') or 'unknown'}: {error.get('message') or 'no message'}"
    details = response.get("incomplete_details")
    if isinstance(details, dict) and details.get("reason"):
        return f"incomplete: {details['reason']}"
    return "The response failed without error details"
