"""Gemini `generateContent` wire format for the fake server: SSE chunks, replies and errors.

Shapes follow the REST `GenerateContentResponse` and Google's error JSON, so the official
`google-genai` client parses what this produces. A reply's thought signature sits where Gemini
puts it: on the first `functionCall` part when there are calls, else on the reply's last part.
"""

from __future__ import annotations

import base64
import json
import re

from pith.testing._reply import Reply, Usage

__all__ = [
    "OVERFLOW_MESSAGE",
    "error_body",
    "model_route",
    "overflow_body",
    "response",
    "stream_frames",
]

JsonObject = dict[str, object]

OVERFLOW_MESSAGE = (
    "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
)

_ROUTE = re.compile(r"^(?:/v1beta|/v1)?/models/([^/:]+):(streamGenerateContent|generateContent)$")

_FINISH = {"stop": "STOP", "length": "MAX_TOKENS", "tool_calls": "STOP"}

_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def model_route(path: str) -> tuple[str, bool] | None:
    """`(model, streamed)` for a Gemini model path, else None."""
    match = _ROUTE.match(path)
    if match is None:
        return None
    return match.group(1), match.group(2) == "streamGenerateContent"


def signature(reply: Reply) -> str:
    """The reply's thought signature: the script's as given, or base64 of a per-turn stand-in."""
    turn = reply.turn
    if turn.signature is not None:
        return turn.signature
    return base64.b64encode(f"fake-thought-{turn.index}".encode()).decode()


def _usage(usage: Usage) -> JsonObject:
    prompt = usage.input + usage.cache_read
    candidates = max(0, usage.output - usage.reasoning)
    out: JsonObject = {"promptTokenCount": prompt, "candidatesTokenCount": candidates}
    if usage.cache_read:
        out["cachedContentTokenCount"] = usage.cache_read
    if usage.reasoning:
        out["thoughtsTokenCount"] = usage.reasoning
    out["totalTokenCount"] = prompt + candidates + usage.reasoning
    return out


def _arguments(text: str) -> object:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text  # malformed script arguments stay the text they are


def _part_groups(reply: Reply, *, streamed: bool) -> list[list[JsonObject]]:
    """The reply's parts, grouped as they are sent: one group per streamed chunk."""
    turn = reply.turn
    groups: list[list[JsonObject]] = []

    def pieces(text: str) -> list[str]:
        return reply.pieces(text) if streamed else ([text] if text else [])

    groups += [[{"text": piece, "thought": True}] for piece in pieces(turn.thinking)]
    groups += [[{"text": piece}] for piece in pieces(turn.text)]
    calls: list[JsonObject] = []
    for call in turn.tool_calls:
        function: JsonObject = {"name": call.name, "args": _arguments(call.arguments)}
        if call.id is not None:
            function["id"] = call.id
        calls.append({"functionCall": function})
    if calls:
        calls[0]["thoughtSignature"] = signature(reply)
        groups.append(calls)
    elif groups:
        groups[-1][-1]["thoughtSignature"] = signature(reply)
    if not streamed:
        groups = [[part for group in groups for part in group]]
    return groups


def _chunk(reply: Reply, parts: list[JsonObject], finish: str | None) -> JsonObject:
    candidate: JsonObject = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    return {
        "candidates": [candidate],
        "usageMetadata": _usage(reply.usage),
        "modelVersion": reply.model,
        "responseId": f"resp_fake_{reply.request_n}",
    }


def response(reply: Reply, finish: str | None = None) -> JsonObject:
    """A non-streaming `GenerateContentResponse`."""
    parts = _part_groups(reply, streamed=False)[0]
    return _chunk(reply, parts, finish or _FINISH[reply.turn.stop])


def stream_frames(
    reply: Reply, *, finish: str | None = None, block: str | None = None
) -> list[bytes]:
    """The SSE events of a streamed reply, each `data: {...}\\r\\n\\r\\n`.

    Thought pieces, then text pieces, then the calls in one chunk; the last chunk carries the
    finish reason (`finish` overrides the turn's, e.g. `SAFETY`). `block` answers with a single
    chunk whose `promptFeedback.blockReason` says why the prompt was refused.
    """
    if block is not None:
        chunks: list[JsonObject] = [
            {
                "promptFeedback": {"blockReason": block},
                "usageMetadata": _usage(reply.usage),
                "modelVersion": reply.model,
                "responseId": f"resp_fake_{reply.request_n}",
            }
        ]
    else:
        groups = _part_groups(reply, streamed=True) or [[]]
        chunks = [_chunk(reply, parts, None) for parts in groups]
        last = chunks[-1]["candidates"]
        assert isinstance(last, list)
        last[0]["finishReason"] = finish or _FINISH[reply.turn.stop]
    return [
        b"data: "
        + json.dumps(chunk, separators=(",", ":"), ensure_ascii=False).encode()
        + b"\r\n\r\n"
        for chunk in chunks
    ]


def error_body(status: int, message: str) -> JsonObject:
    """`{"error": {"code", "message", "status"}}` with Google's status name for `status`."""
    name = _STATUS_NAMES.get(status) or ("INTERNAL" if status >= 500 else "FAILED_PRECONDITION")
    return {"error": {"code": status, "message": message, "status": name}}


def overflow_body() -> JsonObject:
    """The HTTP 400 body Gemini sends when the prompt does not fit the context window."""
    return error_body(400, OVERFLOW_MESSAGE)
