"""Reading tool-call arguments while they stream in, and once they are complete."""

from __future__ import annotations

import json

from pith.json_input import MAX_ARGUMENT_DEPTH, JsonInputError, check_json_limits, parse_json

__all__ = ["finish_arguments", "parse_partial_object"]

_CLOSERS = {"{": "}", "[": "]"}
_SOURCE = "tool call arguments"


def parse_partial_object(text: str) -> dict[str, object]:
    """Best-effort view of an incomplete JSON object, for showing a call as it streams.

    Open strings, arrays and objects are closed; a dangling key, colon or comma is dropped.
    Returns `{}` when nothing usable has arrived yet.
    """
    stripped = text.strip()
    if not stripped:
        return {}
    try:
        check_json_limits(stripped, _SOURCE, fix="", max_depth=MAX_ARGUMENT_DEPTH)
    except JsonInputError:
        return {}  # finish_arguments says why once the call is complete
    try:
        value = json.loads(stripped)
    except ValueError:
        value = _complete(stripped)
    return value if isinstance(value, dict) else {}


def finish_arguments(text: str) -> tuple[dict[str, object], str | None]:
    """The final arguments of a tool call, and an error text when they are not a JSON object.

    An empty text means no arguments (`{}`).
    """
    if not text.strip():
        return {}, None
    try:
        value = parse_json(text, _SOURCE, fix="", max_depth=MAX_ARGUMENT_DEPTH)
    except JsonInputError as error:
        where = f"line {error.line} column {error.column}"
        if not error.limit:
            return {}, f"arguments are {error.reason} at {where}: {_preview(text)}"
        return {}, (
            f"arguments refused: {error.reason} (at {where}); send a JSON object nested at "
            f"most {MAX_ARGUMENT_DEPTH} levels deep: {_preview(text)}"
        )
    if not isinstance(value, dict):
        return {}, f"arguments must be a JSON object, got {type(value).__name__}: {_preview(text)}"
    return value, None


def _preview(text: str) -> str:
    return text if len(text) <= 200 else text[:200] + "…"


def _complete(text: str) -> object:
    """Close what is open, backing off to the last safe point until it parses."""
    candidate = text
    for _ in range(64):
        closed = _close(candidate)
        if closed is not None:
            try:
                return json.loads(closed)
            except ValueError:
                pass
        cut = _last_boundary(candidate)
        if cut <= 0:
            return {}
        candidate = candidate[:cut]
    return {}


def _close(text: str) -> str | None:
    stack: list[str] = []
    in_string = False
    escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in _CLOSERS:
            stack.append(_CLOSERS[char])
        elif char in "}]" and (not stack or stack.pop() != char):
            return None
    body = text
    if in_string:
        if escaped:
            body = body[:-1]
        body += '"'
    body = body.rstrip()
    if body.endswith((",", ":")):
        return None
    return body + "".join(reversed(stack))


def _last_boundary(text: str) -> int:
    """Index just before the last comma or opening bracket that is outside a string."""
    in_string = False
    escaped = False
    boundary = -1
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == ",":
            boundary = index
        elif char in "{[":
            boundary = index + 1
    if boundary == len(text):
        return len(text) - 1
    return boundary
