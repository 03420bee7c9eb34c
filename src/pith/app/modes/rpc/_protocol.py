"""The RPC wire, as pure functions: one input line to a command (or the reason it is not one),
the fields a command carries, and the response records.

Nothing here reads or writes; `pith.app.modes.rpc._server` does that. Field names are Pi's
(camelCase); every error names the field and what was expected, in one line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, TypeVar

from pith.ai import ImageContent
from pith.json_input import JsonInputError, parse_json

__all__ = [
    "COMMANDS",
    "NO_DATA",
    "Command",
    "LineSplitter",
    "NoData",
    "ProtocolError",
    "UiAnswer",
    "failure",
    "optional_bool",
    "optional_choice",
    "optional_str",
    "parse_record",
    "require_bool",
    "require_choice",
    "require_str",
    "success",
    "user_images",
]

COMMANDS: Final = (
    "prompt",
    "steer",
    "follow_up",
    "abort",
    "clear_queue",
    "new_session",
    "get_state",
    "get_messages",
    "set_model",
    "cycle_model",
    "get_available_models",
    "set_thinking_level",
    "cycle_thinking_level",
    "get_available_thinking_levels",
    "set_steering_mode",
    "set_follow_up_mode",
    "compact",
    "set_auto_compaction",
    "set_auto_retry",
    "abort_retry",
    "bash",
    "abort_bash",
    "get_session_stats",
    "export_html",
    "switch_session",
    "fork",
    "clone",
    "get_fork_messages",
    "get_entries",
    "get_tree",
    "get_last_assistant_text",
    "set_session_name",
    "get_commands",
)
"""Every command `type` pith answers, in the order docs/rpc.md lists them."""

_T = TypeVar("_T", bound=str)


class ProtocolError(Exception):
    """A record that is not a valid command: the message names the field and the problem."""

    def __init__(self, message: str, *, command: str = "parse", id: str | None = None) -> None:
        super().__init__(message)
        self.command = command
        self.id = id


@dataclass(frozen=True)
class Command:
    """One command: its `type`, its correlation `id` and its other fields, unchecked."""

    type: str
    id: str | None = None
    fields: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class UiAnswer:
    """A client's `extension_ui_response`: a `value`, a `confirmed` flag, or `cancelled`."""

    id: str
    value: str | None = None
    confirmed: bool | None = None
    cancelled: bool = False


class NoData:
    """A successful response without a `data` field (Pi leaves it out for some commands)."""

    def __repr__(self) -> str:
        return "NO_DATA"


NO_DATA: Final = NoData()


def parse_record(line: bytes) -> Command | UiAnswer | None:
    """One input line as a command or an answer to a UI request; None for a blank line.

    Raises `ProtocolError` for a line that is not UTF-8, not JSON, not an object, or has a
    missing or unknown `type` or a bad `id`.
    """
    if line.endswith(b"\r"):
        line = line[:-1]
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ProtocolError(
            f"Failed to parse command: not UTF-8 (byte {error.start} is invalid)"
        ) from None
    if not text.strip():
        return None
    try:
        value = parse_json(text, "command", fix="")
    except JsonInputError as error:
        # Too deep, a too-long number or not JSON at all: this line only is refused.
        raise ProtocolError(
            f"Failed to parse command: {error.reason} at line {error.line} column {error.column}"
        ) from None
    if not isinstance(value, dict):
        raise ProtocolError(
            f"Failed to parse command: expected a JSON object, got {_json_kind(value)}"
        )
    raw_id = value.get("id")
    kind = value.get("type")
    if kind == "extension_ui_response":
        return _ui_answer(value)
    if raw_id is not None and not isinstance(raw_id, str):
        raise ProtocolError(
            f"'id' must be a string, got {_json_kind(raw_id)}",
            command=kind if isinstance(kind, str) else "parse",
        )
    if kind is None:
        raise ProtocolError("missing 'type': name the command, e.g. \"get_state\"", id=raw_id)
    if not isinstance(kind, str):
        raise ProtocolError(f"'type' must be a string, got {_json_kind(kind)}", id=raw_id)
    if kind not in COMMANDS:
        raise ProtocolError(f"Unknown command: {kind}", command=kind, id=raw_id)
    fields = {key: item for key, item in value.items() if key not in ("id", "type")}
    return Command(kind, raw_id, fields)


def _ui_answer(value: dict[str, object]) -> UiAnswer:
    raw_id = value.get("id")
    if not isinstance(raw_id, str):
        raise ProtocolError(
            "extension_ui_response: 'id' must be the string id of the request it answers",
            command="extension_ui_response",
        )
    cancelled = value.get("cancelled") is True
    answer = value.get("value")
    confirmed = value.get("confirmed")
    if answer is not None and not isinstance(answer, str):
        raise ProtocolError(
            f"extension_ui_response: 'value' must be a string, got {_json_kind(answer)}",
            command="extension_ui_response",
            id=raw_id,
        )
    if confirmed is not None and not isinstance(confirmed, bool):
        raise ProtocolError(
            f"extension_ui_response: 'confirmed' must be true or false, got "
            f"{_json_kind(confirmed)}",
            command="extension_ui_response",
            id=raw_id,
        )
    return UiAnswer(raw_id, answer, confirmed, cancelled)


# --- fields -----------------------------------------------------------------------------------


def require_str(command: Command, name: str) -> str:
    value = command.fields.get(name)
    if not isinstance(value, str):
        raise _field_error(command, name, "a string", value)
    return value


def optional_str(command: Command, name: str) -> str | None:
    value = command.fields.get(name)
    if value is not None and not isinstance(value, str):
        raise _field_error(command, name, "a string", value)
    return value


def require_bool(command: Command, name: str) -> bool:
    value = command.fields.get(name)
    if not isinstance(value, bool):
        raise _field_error(command, name, "true or false", value)
    return value


def optional_bool(command: Command, name: str) -> bool | None:
    value = command.fields.get(name)
    if value is not None and not isinstance(value, bool):
        raise _field_error(command, name, "true or false", value)
    return value


def require_choice(command: Command, name: str, choices: tuple[_T, ...]) -> _T:
    value = optional_choice(command, name, choices)
    if value is None:
        raise _field_error(command, name, _one_of(choices), None)
    return value


def optional_choice(command: Command, name: str, choices: tuple[_T, ...]) -> _T | None:
    value = command.fields.get(name)
    if value is None:
        return None
    for choice in choices:
        if value == choice:
            return choice
    raise _field_error(command, name, _one_of(choices), value)


def user_images(command: Command, name: str = "images") -> list[ImageContent]:
    """`images`: a list of `{"type": "image", "data": base64, "mimeType": "image/png"}`."""
    value = command.fields.get(name)
    if value is None:
        return []
    if not isinstance(value, list):
        raise _field_error(command, name, "a list of image objects", value)
    images = []
    for index, item in enumerate(value):
        where = f"{name}[{index}]"
        if not isinstance(item, dict) or item.get("type") != "image":
            raise _field_error(command, where, 'an object with "type": "image"', item)
        data, mime = item.get("data"), item.get("mimeType")
        if not isinstance(data, str):
            raise _field_error(command, f"{where}.data", "a base64 string", data)
        if not isinstance(mime, str) or not mime.startswith("image/"):
            raise _field_error(command, f"{where}.mimeType", 'a type such as "image/png"', mime)
        images.append(ImageContent(data=data, mime_type=mime))
    return images


def _field_error(command: Command, name: str, expected: str, value: object) -> ProtocolError:
    got = "missing" if value is None else f"got {_json_kind(value)}"
    return ProtocolError(
        f"{command.type}: '{name}' must be {expected} ({got})", command=command.type, id=command.id
    )


def _one_of(choices: tuple[str, ...]) -> str:
    return "one of " + ", ".join(json.dumps(choice) for choice in choices)


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:39] + "…"
        return f"the string {json.dumps(shown, ensure_ascii=False)}"
    if isinstance(value, list):
        return "a list"
    return "an object"


# --- responses --------------------------------------------------------------------------------


def success(id: str | None, command: str, data: object = NO_DATA) -> dict[str, object]:
    """`{"type": "response", ..., "success": true, "data": ...}` (`data` left out for
    `NO_DATA`; `id` left out when the command had none)."""
    record: dict[str, object] = {"type": "response", "command": command, "success": True}
    if id is not None:
        record = {"id": id, **record}
    if not isinstance(data, NoData):
        record["data"] = data
    return record


def failure(id: str | None, command: str, error: str) -> dict[str, object]:
    """`{"type": "response", ..., "success": false, "error": "one line"}`."""
    record: dict[str, object] = {"type": "response", "command": command, "success": False}
    if id is not None:
        record = {"id": id, **record}
    record["error"] = " ".join(error.split("\n")) if error else "failed"
    return record


# --- framing ----------------------------------------------------------------------------------


class LineSplitter:
    """Splits a byte stream into records on LF only (never on U+2028, U+2029 or CR alone)."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, chunk: bytes) -> list[bytes]:
        """The complete lines `chunk` finishes, without their LF."""
        self._buffer += chunk
        if b"\n" not in chunk:
            return []
        *lines, rest = bytes(self._buffer).split(b"\n")
        self._buffer = bytearray(rest)
        return lines

    def finish(self) -> list[bytes]:
        """At end of input: the last line when it had no LF."""
        rest, self._buffer = bytes(self._buffer), bytearray()
        return [rest] if rest else []
