"""Google Gemini (`google-generative-ai`) over HTTP (`_http_stream`; no SDK, see there why).

`POST {baseUrl}/models/{model}:streamGenerateContent?alt=sse` with the key in `x-goog-api-key`.
Every event is a whole `GenerateContentResponse`: the parts of its first candidate are the next
pieces of the reply (text, `thought: true` text, whole `functionCall`s), `finishReason` arrives
on the last one, and `usageMetadata` holds running totals.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from pith.ai._builder import MessageBuilder
from pith.ai._clients import cached_client
from pith.ai._google_convert import build_request
from pith.ai._http_errors import status_message
from pith.ai._http_stream import EventStream, JsonObject, StatusError, endpoint_description
from pith.ai._messages import StopReason, TextContent, ThinkingContent, Usage
from pith.ai._models import Model
from pith.ai._reply_stream import stream_reply
from pith.ai._stream import Context, StreamEvent, StreamOptions, TextDelta, apply_payload_hook

__all__ = ["DEFAULT_BASE_URL", "GoogleProvider", "map_finish_reason", "stream_url"]

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
NO_FINISH = "Gemini stream ended without a finish reason"

_BLOCKED = {
    "SAFETY": "for safety reasons",
    "IMAGE_SAFETY": "for safety reasons",
    "RECITATION": "because it repeated copyrighted material",
    "IMAGE_RECITATION": "because it repeated copyrighted material",
    "BLOCKLIST": "because it contained blocked terms",
    "PROHIBITED_CONTENT": "because it contained prohibited content",
    "IMAGE_PROHIBITED_CONTENT": "because it contained prohibited content",
    "SPII": "because it contained sensitive personal information",
}


def map_finish_reason(reason: str, has_calls: bool) -> tuple[StopReason, str | None]:
    """pith's stop reason for Gemini's `finishReason`, and the error message when it is one."""
    if reason == "STOP":
        return ("toolUse" if has_calls else "stop"), None
    if reason in ("MAX_TOKENS", "CONTINUATION"):
        return "length", None
    if reason in _BLOCKED:
        return "error", f"Gemini stopped the reply {_BLOCKED[reason]} (finishReason {reason})"
    if reason == "MALFORMED_FUNCTION_CALL":
        return "error", "Gemini produced a malformed function call (MALFORMED_FUNCTION_CALL)"
    return "error", f"Provider stopped with: {reason}"


def stream_url(base_url: str | None, model_id: str) -> str:
    base = (base_url or DEFAULT_BASE_URL).rstrip("/")
    return f"{base}/models/{model_id}:streamGenerateContent?alt=sse"


class GoogleProvider:
    """Streams replies from the Gemini API (or a server speaking it)."""

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
        )
        body = await apply_payload_hook(options, body)
        async for event in stream_reply(
            builder,
            _ChunkState(builder),
            lambda: _client(model, options).chunks(body),
            options.signal,
            where=endpoint_description(
                model.provider, stream_url(model.base_url or None, model.id)
            ),
            status_words=_status_message,
        ):
            yield event


class _GeminiHTTP:
    def __init__(self, model: Model, options: StreamOptions, timeout: float) -> None:
        from pith._version import __version__

        headers = {
            "x-goog-api-key": options.api_key or "",
            "user-agent": f"pith/{__version__}",
            **options.headers,
        }
        self.stream = EventStream(stream_url(model.base_url or None, model.id), headers, timeout)

    async def chunks(self, body: JsonObject) -> AsyncIterator[JsonObject]:
        """The response chunks; an `error` object inside the stream raises `StatusError`."""
        async for chunk, status, headers in self.stream.events(body):
            if chunk.get("error") and not chunk.get("candidates"):
                raise StatusError(status, chunk, headers)
            yield chunk


def _client(model: Model, options: StreamOptions) -> _GeminiHTTP:
    timeout = options.timeout_seconds or 600.0
    key = (
        "google",
        model.base_url,
        model.id,
        options.api_key,
        tuple(sorted(options.headers.items())),
        timeout,
    )
    return cached_client(key, lambda: _GeminiHTTP(model, options, timeout))


def _status_message(error: StatusError) -> str:
    """`<status> <message>` from Google's `{"error": {"code", "message", "status"}}`."""
    body = error.body
    if isinstance(body, list) and body and isinstance(body[0], dict):
        body = body[0]  # some Google front ends wrap the error in a list
    return status_message(error.status, body)


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def parse_usage(raw: JsonObject) -> Usage:
    """Token counts from `usageMetadata`: cached tokens are not input, thoughts are output."""
    cached = _int(raw.get("cachedContentTokenCount"))
    thoughts = _int(raw.get("thoughtsTokenCount"))
    fresh = max(0, _int(raw.get("promptTokenCount")) - cached)
    output = _int(raw.get("candidatesTokenCount")) + thoughts
    return Usage(
        input=fresh,
        output=output,
        cache_read=cached,
        reasoning=thoughts,
        total_tokens=_int(raw.get("totalTokenCount")) or fresh + output + cached,
    )


class _ChunkState:
    """Maps `GenerateContentResponse` chunks onto the builder."""

    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.finish_reason: str | None = None
        self.finish_message = ""
        self.blocked: str | None = None
        self.calls = 0

    def take(self, chunk: JsonObject) -> list[StreamEvent]:
        builder = self.builder
        message = builder.message
        if isinstance(chunk.get("responseId"), str) and not isinstance(message.response_id, str):
            message.response_id = str(chunk["responseId"])
        served = chunk.get("modelVersion")
        if isinstance(served, str) and served and served != message.model:
            message.response_model = served
        usage = chunk.get("usageMetadata")
        if isinstance(usage, dict):
            builder.set_usage(parse_usage(usage))
        feedback = chunk.get("promptFeedback")
        if isinstance(feedback, dict) and isinstance(feedback.get("blockReason"), str):
            reason = str(feedback["blockReason"])
            detail = feedback.get("blockReasonMessage")
            self.blocked = f"Gemini blocked the prompt (blockReason {reason})" + (
                f": {detail}" if isinstance(detail, str) and detail else ""
            )
        candidates = chunk.get("candidates")
        if not isinstance(candidates, list) or not candidates:
            return []
        candidate = candidates[0]
        if not isinstance(candidate, dict):
            return []
        events: list[StreamEvent] = []
        content = candidate.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, dict):
                events.extend(self._part(part))
        if isinstance(candidate.get("finishReason"), str):
            self.finish_reason = str(candidate["finishReason"])
            finish_message = candidate.get("finishMessage")
            if isinstance(finish_message, str):
                self.finish_message = finish_message
        return events

    def _part(self, part: JsonObject) -> list[StreamEvent]:
        builder = self.builder
        signature = part.get("thoughtSignature")
        signature = signature if isinstance(signature, str) and signature else None
        text = part.get("text")
        if isinstance(text, str):
            if part.get("thought") is True:
                events = builder.thinking(text)
                block = builder.message.content[-1]
                if signature is not None and isinstance(block, ThinkingContent):
                    block.thinking_signature = signature  # the latest part's, never merged
                return events
            events = [
                e for e in builder.text(text) if not (isinstance(e, TextDelta) and not e.delta)
            ]
            block = builder.message.content[-1]
            if signature is not None and isinstance(block, TextContent):
                block.text_signature = signature
            return events
        call = part.get("functionCall")
        if not isinstance(call, dict):
            return []  # executable code, inline data, ...: nothing pith shows or replays
        self.calls += 1
        name = call.get("name") if isinstance(call.get("name"), str) else ""
        given = call.get("id")
        taken = {block.id for block in builder.message.tool_calls()}
        call_id = (
            given
            if isinstance(given, str) and given and given not in taken
            else f"{name}_{len(builder.message.content)}_{self.calls}"
        )
        index, events = builder.tool_call_start(str(call_id), str(name))
        if signature is not None:
            builder.tool_call(index).thought_signature = signature
        args = call.get("args")
        arguments = json.dumps(args if isinstance(args, dict) else {}, ensure_ascii=False)
        events += builder.tool_call_args(index, arguments)
        events += builder.end_block(index)
        return events

    def finish(self) -> list[StreamEvent]:
        builder = self.builder
        if self.blocked is not None:
            return builder.fail(self.blocked)
        if self.finish_reason is None:
            return builder.fail(NO_FINISH)
        builder.message.raw_stop_reason = self.finish_reason
        stop, error = map_finish_reason(self.finish_reason, builder.has_tool_calls())
        if error is not None:
            if self.finish_message:
                error = f"{error}: {self.finish_message}"
            return builder.fail(error)
        return builder.done(stop, self.finish_reason)
