"""OpenAI Responses wire format for the fake server: `response.*` SSE events and replies.

Shapes follow `openai.types.responses.ResponseStreamEvent` / `Response`, so the official SDK
parses what this produces. A scripted turn becomes up to three kinds of output items, in this
order: a `reasoning` item (the turn's `thinking` as one summary part, with an
`encrypted_content` made up here: the turn's `signature`, or `fake-encrypted-<turn>`), a
`message` item (the turn's `text`), and one `function_call` item per tool call.
"""

from __future__ import annotations

import json

from pith.testing._openai_wire import tool_call_id
from pith.testing._reply import Reply, Usage

__all__ = ["OVERFLOW_MESSAGE", "encrypted_content", "overflow_body", "response", "stream_frames"]

JsonObject = dict[str, object]

OVERFLOW_MESSAGE = (
    "Your input exceeds the context window of this model. Please adjust your input and try again."
)


def encrypted_content(reply: Reply) -> str:
    """The reasoning item's encrypted content: the script's `signature`, or a stand-in."""
    turn = reply.turn
    return turn.signature if turn.signature is not None else f"fake-encrypted-{turn.index}"


def usage_json(usage: Usage) -> JsonObject:
    """`ResponseUsage`: `input_tokens` counts cached tokens too, as the API does."""
    prompt = usage.input + usage.cache_read + usage.cache_write
    return {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": usage.cache_read},
        "output_tokens": usage.output,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning},
        "total_tokens": prompt + usage.output,
    }


def _items(reply: Reply) -> list[JsonObject]:
    """The finished output items of the reply."""
    turn = reply.turn
    n = reply.request_n
    items: list[JsonObject] = []
    if turn.thinking:
        items.append(
            {
                "id": f"rs_fake_{n}",
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": turn.thinking}],
                "encrypted_content": encrypted_content(reply),
            }
        )
    if turn.text:
        items.append(
            {
                "id": f"msg_fake_{n}",
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
            }
        )
    for k, call in enumerate(turn.tool_calls):
        items.append(
            {
                "id": f"fc_fake_{n}_{k}",
                "type": "function_call",
                "status": "completed",
                "call_id": tool_call_id(reply, k),
                "name": call.name,
                "arguments": call.arguments,
            }
        )
    return items


def response(reply: Reply, *, status: str | None = None) -> JsonObject:
    """A `response` object; `status` None is the finished one (`completed`, or `incomplete`
    with `max_output_tokens` for a `length` turn)."""
    length = reply.turn.stop == "length"
    final = status is None
    body: JsonObject = {
        "id": f"resp_fake_{reply.request_n}",
        "object": "response",
        "created_at": reply.created,
        "model": reply.model,
        "status": status or ("incomplete" if length else "completed"),
        "output": _items(reply) if final else [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if final and length else None,
        "usage": usage_json(reply.usage) if final else None,
    }
    return body


def _in_progress(item: JsonObject) -> JsonObject:
    """An item as `output_item.added` announces it: no content yet."""
    if item["type"] == "reasoning":
        return {**item, "summary": [], "encrypted_content": None}
    if item["type"] == "message":
        return {**item, "status": "in_progress", "content": []}
    return {**item, "status": "in_progress", "arguments": ""}


def _item_events(reply: Reply, index: int, item: JsonObject) -> list[JsonObject]:
    where: JsonObject = {"item_id": item["id"], "output_index": index}

    def event(kind: str, **fields: object) -> JsonObject:
        return {"type": f"response.{kind}", **where, **fields}

    events = [
        {"type": "response.output_item.added", "output_index": index, "item": _in_progress(item)}
    ]
    if item["type"] == "reasoning":
        text = reply.turn.thinking
        at: JsonObject = {"summary_index": 0}
        empty: JsonObject = {"type": "summary_text", "text": ""}
        events.append(event("reasoning_summary_part.added", **at, part=empty))
        events += [
            event("reasoning_summary_text.delta", **at, delta=piece) for piece in reply.pieces(text)
        ]
        events.append(event("reasoning_summary_text.done", **at, text=text))
        full: JsonObject = {"type": "summary_text", "text": text}
        events.append(event("reasoning_summary_part.done", **at, part=full))
    elif item["type"] == "message":
        text = reply.turn.text
        at = {"content_index": 0}
        empty = {"type": "output_text", "text": "", "annotations": []}
        events.append(event("content_part.added", **at, part=empty))
        events += [
            event("output_text.delta", **at, delta=piece, logprobs=[])
            for piece in reply.pieces(text)
        ]
        events.append(event("output_text.done", **at, text=text, logprobs=[]))
        full = {"type": "output_text", "text": text, "annotations": []}
        events.append(event("content_part.done", **at, part=full))
    else:
        arguments = str(item["arguments"])
        events += [
            event("function_call_arguments.delta", delta=piece) for piece in reply.pieces(arguments)
        ]
        events.append(event("function_call_arguments.done", arguments=arguments))
    events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    return events


def stream_frames(reply: Reply) -> list[bytes]:
    """The SSE events of a streamed reply, each `event: <type>\\ndata: {...}\\n\\n`.

    Order: `response.created`, `response.in_progress`, each output item (added, its deltas,
    done), then `response.completed` (or `response.incomplete` for a `length` turn) with the
    whole response and its usage. Every event has a `sequence_number`.
    """
    events: list[JsonObject] = [
        {"type": "response.created", "response": response(reply, status="in_progress")},
        {"type": "response.in_progress", "response": response(reply, status="in_progress")},
    ]
    for index, item in enumerate(_items(reply)):
        events += _item_events(reply, index, item)
    final = response(reply)
    kind = "response.incomplete" if final["status"] == "incomplete" else "response.completed"
    events.append({"type": kind, "response": final})
    frames = []
    for number, event in enumerate(events):
        data = json.dumps(
            {**event, "sequence_number": number}, separators=(",", ":"), ensure_ascii=False
        )
        frames.append(f"event: {event['type']}\ndata: {data}\n\n".encode())
    return frames


def overflow_body() -> JsonObject:
    """The HTTP 400 body OpenAI sends when a Responses input does not fit the context window."""
    return {
        "error": {
            "message": OVERFLOW_MESSAGE,
            "type": "invalid_request_error",
            "param": "input",
            "code": "context_length_exceeded",
        }
    }
