"""Reading and writing one session line."""

from __future__ import annotations

import functools
from collections.abc import Iterator

import msgspec

from pith.ai import AgentMessage, WireError, convert, encode_json, now_ms
from pith.json_input import JsonInputError, check_json_limits
from pith.session._entries import (
    Entry,
    MessageEntry,
    RawEntry,
    SessionEntry,
    SessionHeader,
    timestamp_millis,
)

__all__ = ["decode_line", "decode_lines", "encode_entry", "json_lines", "salvage_problem"]

Line = SessionHeader | Entry

KNOWN_BLOCK_TYPES = frozenset({"text", "image", "thinking", "toolCall"})


@functools.cache
def _decoder() -> msgspec.json.Decoder[Line]:
    return msgspec.json.Decoder(Line)


def decode_line(line: bytes | str) -> SessionHeader | SessionEntry | None:
    """One line as a header or an entry; None for a line that is not a JSON object.

    An object pith cannot type becomes a `RawEntry` rather than being dropped. Raises
    `JsonInputError` for a line nested too deep or holding a too-long number (the shared
    limits of `pith.json_input`), so the caller can say which line and why.
    """
    check_json_limits(line, "session line", fix="")
    started = now_ms()
    try:
        decoded = _decoder().decode(line)
    except msgspec.ValidationError:
        pass
    except msgspec.DecodeError:
        return None
    else:
        _settle_time(decoded, started)
        return decoded
    try:
        value = msgspec.json.decode(line)
    except msgspec.DecodeError:
        return None
    if not isinstance(value, dict):
        return None
    _repair_null_content(value)
    try:
        entry: SessionHeader | SessionEntry = convert(value, Line)  # type: ignore[arg-type]
    except WireError:
        return RawEntry(raw=value, message=_salvage_message(value))
    _settle_time(entry, started)
    return entry


def decode_lines(data: bytes) -> list[SessionHeader | SessionEntry] | None:
    """Every line of `data` (complete lines only) in one pass; None when any line is not a
    well-formed header or entry, so the caller can go line by line and report it."""
    started = now_ms()
    try:
        decoded = _decoder().decode_lines(data)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        return None
    for entry in decoded:
        _settle_time(entry, started)
    return decoded  # type: ignore[return-value]


def json_lines(data: bytes) -> Iterator[object]:
    """The JSON value of each line that parses; blank and malformed lines skipped."""
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            check_json_limits(line, "session line", fix="")
            yield msgspec.json.decode(line)
        except (msgspec.DecodeError, JsonInputError):
            continue


def _settle_time(entry: SessionHeader | SessionEntry, started: int) -> None:
    """A message without its own time takes its entry's, rather than the time it was read.

    Decoding fills a missing message timestamp with the current time, so one at or after the
    moment decoding started was missing (a clock running behind its file's is the only other
    way, and then the entry's time is as good).
    """
    if isinstance(entry, MessageEntry) and entry.message.timestamp >= started:
        millis = timestamp_millis(entry.timestamp)
        if millis:
            entry.message.timestamp = round(millis)


def _salvage_message(value: dict[str, object]) -> AgentMessage | None:
    """The model-visible part of a message entry pith cannot fully read.

    Content blocks of unknown types (from a newer Pi, or another tool) are left out; a message
    of an unknown role gives nothing. The entry itself stays verbatim in the file.
    """
    message = value.get("message") if value.get("type") == "message" else None
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if isinstance(content, list):
        message = {
            **message,
            "content": [
                block
                for block in content
                if isinstance(block, dict) and block.get("type") in KNOWN_BLOCK_TYPES
            ],
        }
    try:
        return convert(message, AgentMessage)  # type: ignore[arg-type]
    except WireError:
        return None


def salvage_problem(entry: RawEntry) -> str | None:
    """Why a message entry's content is not (all) in the model context, or None."""
    message = entry.raw.get("message") if entry.type == "message" else None
    if not isinstance(message, dict):
        return None
    if entry.message is None:
        role = message.get("role")
        return f"a message with role {role!r} pith cannot read is left out of the model context"
    content = message.get("content")
    unknown = sorted(
        {
            str(block.get("type")) if isinstance(block, dict) else type(block).__name__
            for block in (content if isinstance(content, list) else [])
            if not (isinstance(block, dict) and block.get("type") in KNOWN_BLOCK_TYPES)
        }
    )
    if unknown:
        kinds = ", ".join(repr(kind) for kind in unknown)
        return f"content of type {kinds} is left out of the model context"
    return None


def _repair_null_content(value: dict[str, object]) -> None:
    """Pi repairs a message whose content is null: `[]`, or `""` for a system message."""
    message = value.get("message") if value.get("type") == "message" else None
    if isinstance(message, dict) and "content" in message and message["content"] is None:
        message["content"] = "" if message.get("role") == "system" else []


def encode_entry(entry: SessionHeader | SessionEntry) -> bytes:
    """The JSON line for `entry`, without the newline; unknown fields written back."""
    if isinstance(entry, RawEntry):
        return msgspec.json.encode(entry.raw)
    return encode_json(entry)
