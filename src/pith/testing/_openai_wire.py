"""OpenAI chat-completions wire format for the fake server: SSE chunks, replies and errors.

Shapes follow `openai.types.chat.ChatCompletionChunk` / `ChatCompletion` and the error JSON the
API returns, so the official SDK parses everything this module produces.
"""

from __future__ import annotations

import json

from pith.testing._reply import Reply, Usage

__all__ = [
    "OVERFLOW_MESSAGE",
    "completion",
    "error_body",
    "overflow_body",
    "stream_frames",
    "usage_json",
]

JsonObject = dict[str, object]

OVERFLOW_MESSAGE = (
    "This model's maximum context length is 128000 tokens. However, your messages resulted in "
    "130000 tokens. Please reduce the length of the messages."
)


def _dumps(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def tool_call_id(reply: Reply, k: int) -> str:
    """The id of the reply's k-th tool call: the script's, or `call_<turn>_<k>`."""
    call = reply.turn.tool_calls[k]
    return call.id if call.id is not None else f"call_{reply.turn.index}_{k}"


def usage_json(usage: Usage) -> JsonObject:
    """`CompletionUsage`: `prompt_tokens` counts cached tokens too, as the API does."""
    prompt = usage.input + usage.cache_read + usage.cache_write
    prompt_details: JsonObject = {"cached_tokens": usage.cache_read}
    if usage.cache_write:
        prompt_details["cache_write_tokens"] = usage.cache_write
    return {
        "prompt_tokens": prompt,
        "completion_tokens": usage.output,
        "total_tokens": prompt + usage.output,
        "prompt_tokens_details": prompt_details,
        "completion_tokens_details": {"reasoning_tokens": usage.reasoning},
    }


def completion(reply: Reply) -> JsonObject:
    """A non-streaming `chat.completion` object."""
    turn = reply.turn
    message: JsonObject = {"role": "assistant", "content": turn.text or None, "refusal": None}
    if turn.thinking:
        message["reasoning_content"] = turn.thinking
    if turn.tool_calls:
        message["tool_calls"] = [
            {
                "id": tool_call_id(reply, k),
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for k, call in enumerate(turn.tool_calls)
        ]
    return {
        "id": f"chatcmpl-fake-{reply.request_n}",
        "object": "chat.completion",
        "created": reply.created,
        "model": reply.model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": turn.stop}],
        "usage": usage_json(reply.usage),
        "system_fingerprint": "fp_pith_fake",
    }


def stream_frames(reply: Reply, *, include_usage: bool) -> list[bytes]:
    """The SSE frames of a streamed reply, `data: [DONE]` last.

    Order: a role chunk, `reasoning_content` pieces, `content` pieces, each tool call (a header
    chunk with id, type and name, then `arguments` pieces), the `finish_reason` chunk, and the
    usage chunk (empty `choices`) when `include_usage` is set.
    """
    turn = reply.turn

    def chunk(delta: JsonObject, finish: str | None = None) -> JsonObject:
        body: JsonObject = {
            "id": f"chatcmpl-fake-{reply.request_n}",
            "object": "chat.completion.chunk",
            "created": reply.created,
            "model": reply.model,
            "system_fingerprint": "fp_pith_fake",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        if include_usage:
            # The API sends `usage: null` on every chunk but the last once usage is requested.
            body["usage"] = None
        return body

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"reasoning_content": piece}) for piece in reply.pieces(turn.thinking)]
    chunks += [chunk({"content": piece}) for piece in reply.pieces(turn.text)]
    for k, call in enumerate(turn.tool_calls):
        header = {
            "index": k,
            "id": tool_call_id(reply, k),
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        chunks.append(chunk({"tool_calls": [header]}))
        chunks += [
            chunk({"tool_calls": [{"index": k, "function": {"arguments": piece}}]})
            for piece in reply.pieces(call.arguments)
        ]
    chunks.append(chunk({}, finish=turn.stop))
    if include_usage:
        last = chunk({})
        last["choices"] = []
        last["usage"] = usage_json(reply.usage)
        chunks.append(last)
    return [b"data: " + _dumps(body) + b"\n\n" for body in chunks] + [b"data: [DONE]\n\n"]


def error_body(status: int, message: str, *, type_: str | None, code: str | None) -> JsonObject:
    """`{"error": {message, type, param, code}}` with the API's usual type for `status`."""
    if status == 429:
        default_type, default_code = "requests", "rate_limit_exceeded"
    elif status >= 500:
        default_type, default_code = "server_error", None
    else:
        default_type, default_code = "invalid_request_error", None
    return {
        "error": {
            "message": message,
            "type": type_ or default_type,
            "param": None,
            "code": code or default_code,
        }
    }


def overflow_body() -> JsonObject:
    """The HTTP 400 body OpenAI sends when the prompt does not fit the context window."""
    return {
        "error": {
            "message": OVERFLOW_MESSAGE,
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }
