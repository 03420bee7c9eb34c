"""Anthropic messages wire format for the fake server: SSE events, replies and errors.

Shapes follow `anthropic.types.RawMessageStreamEvent` / `Message` and the error JSON the API
returns, so the official SDK (and its `MessageStream` accumulator) parses what this produces.
"""

from __future__ import annotations

import json

from pith.testing._reply import Reply, Usage

__all__ = [
    "OVERFLOW_MESSAGE",
    "error_body",
    "message",
    "overflow_body",
    "stop_reason",
    "stream_frames",
]

JsonObject = dict[str, object]

OVERFLOW_MESSAGE = "prompt is too long: 210000 tokens > 200000 maximum"

_STOP_REASONS = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use"}

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def stop_reason(stop: str) -> str:
    """The Anthropic name of a script `stop` (`stop`, `length`, `tool_calls`)."""
    return _STOP_REASONS[stop]


def tool_use_id(reply: Reply, k: int) -> str:
    """The id of the reply's k-th tool call: the script's, or `toolu_<turn>_<k>`."""
    call = reply.turn.tool_calls[k]
    return call.id if call.id is not None else f"toolu_{reply.turn.index}_{k}"


def signature(reply: Reply) -> str:
    """The thinking block's signature: the script's, or a fixed per-turn stand-in."""
    turn = reply.turn
    return turn.signature if turn.signature is not None else f"fake-signature-{turn.index}"


def _input_object(arguments: str) -> object:
    # A non-streamed tool_use carries a parsed object; malformed script arguments stay a string.
    try:
        return json.loads(arguments)
    except (ValueError, RecursionError):  # too deep to parse: sent as the text it is
        return arguments


def _usage(usage: Usage, output: int) -> JsonObject:
    return {
        "input_tokens": usage.input,
        "cache_creation_input_tokens": usage.cache_write,
        "cache_read_input_tokens": usage.cache_read,
        "output_tokens": output,
    }


def message(reply: Reply) -> JsonObject:
    """A non-streaming `message` object: thinking, text, then tool_use blocks."""
    turn = reply.turn
    content: list[JsonObject] = []
    if turn.thinking:
        content.append(
            {"type": "thinking", "thinking": turn.thinking, "signature": signature(reply)}
        )
    if turn.text:
        content.append({"type": "text", "text": turn.text})
    for k, call in enumerate(turn.tool_calls):
        content.append(
            {
                "type": "tool_use",
                "id": tool_use_id(reply, k),
                "name": call.name,
                "input": _input_object(call.arguments),
            }
        )
    return {
        "id": f"msg_fake_{reply.request_n}",
        "type": "message",
        "role": "assistant",
        "model": reply.model,
        "content": content,
        "stop_reason": stop_reason(turn.stop),
        "stop_sequence": None,
        "usage": _usage(reply.usage, reply.usage.output),
    }


def stream_frames(reply: Reply) -> list[bytes]:
    """The SSE events of a streamed reply, each `event: <type>\\ndata: {...}\\n\\n`.

    Order: `message_start`, a `ping` (as the API sends; clients must skip it), each content
    block as start / deltas / stop (thinking with a closing `signature_delta`, then text, then
    tool_use with `input_json_delta` pieces), `message_delta` with the stop reason and the
    final usage, `message_stop`.
    """
    turn = reply.turn
    start_message = message(reply)
    start_message.update(content=[], stop_reason=None, usage=_usage(reply.usage, 1))
    events: list[JsonObject] = [
        {"type": "message_start", "message": start_message},
        {"type": "ping"},
    ]

    def block(index: int, start: JsonObject, deltas: list[JsonObject]) -> None:
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events.extend({"type": "content_block_delta", "index": index, "delta": d} for d in deltas)
        events.append({"type": "content_block_stop", "index": index})

    index = 0
    if turn.thinking:
        deltas: list[JsonObject] = [
            {"type": "thinking_delta", "thinking": piece} for piece in reply.pieces(turn.thinking)
        ]
        deltas.append({"type": "signature_delta", "signature": signature(reply)})
        block(index, {"type": "thinking", "thinking": "", "signature": ""}, deltas)
        index += 1
    if turn.text:
        text_deltas: list[JsonObject] = [
            {"type": "text_delta", "text": piece} for piece in reply.pieces(turn.text)
        ]
        block(index, {"type": "text", "text": ""}, text_deltas)
        index += 1
    for k, call in enumerate(turn.tool_calls):
        start: JsonObject = {
            "type": "tool_use",
            "id": tool_use_id(reply, k),
            "name": call.name,
            "input": {},
        }
        json_deltas: list[JsonObject] = [
            {"type": "input_json_delta", "partial_json": piece}
            for piece in reply.pieces(call.arguments)
        ]
        block(index, start, json_deltas)
        index += 1
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason(turn.stop), "stop_sequence": None},
            "usage": _usage(reply.usage, reply.usage.output),
        }
    )
    events.append({"type": "message_stop"})
    return [
        f"event: {event['type']}\ndata: ".encode()
        + json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode()
        + b"\n\n"
        for event in events
    ]


def error_body(status: int, message: str, *, type_: str | None, request_id: str) -> JsonObject:
    """`{"type": "error", "error": {type, message}}` with the API's type for `status`."""
    default_type = _ERROR_TYPES.get(status) or (
        "api_error" if status >= 500 else "invalid_request_error"
    )
    return {
        "type": "error",
        "error": {"type": type_ or default_type, "message": message},
        "request_id": request_id,
    }


def overflow_body(request_id: str) -> JsonObject:
    """The HTTP 400 body Anthropic sends when the prompt does not fit the context window."""
    return error_body(400, OVERFLOW_MESSAGE, type_=None, request_id=request_id)
