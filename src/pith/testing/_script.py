"""The fake server's script: the turns it serves, parsed and checked.

The format is documented in `pith.testing.fake_server`. A script that cannot be used raises
`ScriptError` naming the turn and the field.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pith.errors import InputError

__all__ = ["Fault", "Script", "ScriptError", "ScriptSource", "ToolCall", "Turn", "load_script"]

ScriptSource = Mapping[str, object] | str | os.PathLike[str]
"""A script as a dict, or the path of its JSON file."""

_T = TypeVar("_T")

_STOPS = {"stop": "stop", "length": "length", "tool_calls": "tool_calls"}
_STOPS.update(end_turn="stop", max_tokens="length", tool_use="tool_calls")
_TURN_KEYS = frozenset({"text", "thinking", "signature", "tool_calls", "stop", "usage", "chunk"})
_TURN_KEYS |= {"match", "unless", "expect", "fault"}
_FAULT_KEYS = frozenset({"status", "retryAfter", "message", "type", "code", "overflow"})
_FAULT_KEYS |= {"cutAfter", "firstByteDelay", "chunkDelay", "finishReason", "blockReason"}
_USAGE_KEYS = {
    "input": "input",
    "output": "output",
    "cacheRead": "cache_read",
    "cacheWrite": "cache_write",
    "reasoning": "reasoning",
}


class ScriptError(InputError):
    """A script that cannot be used; the message names the turn and the field."""


@dataclass(frozen=True)
class ToolCall:
    """A scripted tool call; `arguments` is the exact text sent on the wire."""

    name: str
    arguments: str
    id: str | None


@dataclass(frozen=True)
class Fault:
    """How a turn misbehaves (see the module docstring)."""

    status: int | None = None
    retry_after: float | None = None
    message: str | None = None
    type: str | None = None
    code: str | None = None
    overflow: bool = False
    cut_after: int | None = None
    first_byte_delay: float = 0.0
    chunk_delay: float = 0.0
    finish_reason: str | None = None
    """Gemini only: the finish reason the reply ends with (`SAFETY`, `RECITATION`, ...)."""
    block_reason: str | None = None
    """Gemini only: answer with `promptFeedback.blockReason` and no candidate."""


@dataclass(frozen=True)
class Turn:
    """One scripted assistant reply and the conditions for serving it."""

    index: int
    text: str = ""
    thinking: str = ""
    signature: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    stop: str = "stop"
    usage: Mapping[str, int] | None = None
    chunk: int = 4
    match: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()
    expect: tuple[str, ...] = ()
    fault: Fault = Fault()


@dataclass(frozen=True)
class Script:
    """A parsed script: the model name (None: echo the request's), the turns, and whether
    usage models a provider's prompt cache (`promptCache`, see `pith.testing._cache`)."""

    model: str | None
    turns: tuple[Turn, ...]
    prompt_cache: bool = False


def _field(obj: Mapping[str, object], key: str, kind: type[_T], where: str) -> _T | None:
    value = obj.get(key)
    if value is None:
        return None
    # bool is an int subclass; a JSON `true` is never a number here.
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise ScriptError(f"{where}: '{key}' must be {kind.__name__}, got {value!r}")
    return value


def _number(obj: Mapping[str, object], key: str, where: str) -> float | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ScriptError(f"{where}: '{key}' must be a non-negative number, got {value!r}")
    return float(value)


def _strings(obj: Mapping[str, object], key: str, where: str) -> tuple[str, ...]:
    value = obj.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(str(item) for item in value)
    raise ScriptError(f"{where}: '{key}' must be a list of strings, got {value!r}")


def _object(value: object, where: str, known: frozenset[str]) -> Mapping[str, object]:
    if not isinstance(value, dict):
        raise ScriptError(f"{where}: expected a JSON object, got {value!r}")
    unknown = sorted(set(value) - known)
    if unknown:
        raise ScriptError(f"{where}: unknown key {unknown[0]!r}; known: {', '.join(sorted(known))}")
    return value


def _tool_call(value: object, where: str) -> ToolCall:
    obj = _object(value, where, frozenset({"name", "arguments", "id"}))
    name = _field(obj, "name", str, where)
    if not name:
        raise ScriptError(f"{where}: 'name' is required")
    arguments = obj.get("arguments", {})
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)
    return ToolCall(name=name, arguments=arguments, id=_field(obj, "id", str, where))


def _fault(value: object, where: str) -> Fault:
    obj = _object(value, f"{where} fault", _FAULT_KEYS)
    where = f"{where} fault"
    cut_after = _field(obj, "cutAfter", int, where)
    if cut_after is not None and cut_after < 0:
        raise ScriptError(f"{where}: 'cutAfter' must be >= 0, got {cut_after}")
    return Fault(
        status=_field(obj, "status", int, where),
        retry_after=_number(obj, "retryAfter", where),
        message=_field(obj, "message", str, where),
        type=_field(obj, "type", str, where),
        code=_field(obj, "code", str, where),
        overflow=bool(_field(obj, "overflow", bool, where)),
        cut_after=cut_after,
        first_byte_delay=_number(obj, "firstByteDelay", where) or 0.0,
        chunk_delay=_number(obj, "chunkDelay", where) or 0.0,
        finish_reason=_field(obj, "finishReason", str, where),
        block_reason=_field(obj, "blockReason", str, where),
    )


def _chunk(obj: Mapping[str, object], where: str, default: int) -> int:
    chunk = _field(obj, "chunk", int, where)
    if chunk is None:
        return default
    if chunk < 1:
        raise ScriptError(f"{where}: 'chunk' must be a positive integer, got {chunk}")
    return chunk


def _turn(value: object, index: int, default_chunk: int) -> Turn:
    where = f"script turn {index}"
    obj = _object(value, where, _TURN_KEYS)
    calls = obj.get("tool_calls") or []
    if not isinstance(calls, list):
        raise ScriptError(f"{where}: 'tool_calls' must be a list, got {calls!r}")
    tool_calls = tuple(_tool_call(c, f"{where} tool_calls[{k}]") for k, c in enumerate(calls))
    stop = _field(obj, "stop", str, where) or ("tool_calls" if tool_calls else "stop")
    if stop not in _STOPS:
        raise ScriptError(f"{where}: 'stop' must be one of {', '.join(_STOPS)}, got {stop!r}")
    usage: dict[str, int] | None = None
    if "usage" in obj:
        raw_usage = _object(obj["usage"], f"{where} usage", frozenset(_USAGE_KEYS))
        usage = {}
        for key, attr in _USAGE_KEYS.items():
            number = _field(raw_usage, key, int, f"{where} usage")
            if number is not None:
                usage[attr] = number
    chunk = _chunk(obj, where, default_chunk)
    return Turn(
        index=index,
        text=_field(obj, "text", str, where) or "",
        thinking=_field(obj, "thinking", str, where) or "",
        signature=_field(obj, "signature", str, where),
        tool_calls=tool_calls,
        stop=_STOPS[stop],
        usage=usage,
        chunk=chunk,
        match=_strings(obj, "match", where),
        unless=_strings(obj, "unless", where),
        expect=_strings(obj, "expect", where),
        fault=_fault(obj["fault"], where) if obj.get("fault") is not None else Fault(),
    )


def load_script(source: ScriptSource) -> Script:
    """Parse a script given as a dict or a JSON file path; raises `ScriptError` if it is bad."""
    where = "script"
    if isinstance(source, Mapping):
        data: object = dict(source)
    else:
        where = f"script {os.fspath(source)}"
        try:
            data = json.loads(Path(source).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise ScriptError(f"{where}: cannot read it as JSON: {error}") from error
    obj = _object(data, where, frozenset({"model", "chunk", "turns", "promptCache"}))
    turns = obj.get("turns", [])
    if not isinstance(turns, list):
        raise ScriptError(f"{where}: 'turns' must be a list, got {turns!r}")
    default_chunk = _chunk(obj, where, 4)
    return Script(
        model=_field(obj, "model", str, where),
        turns=tuple(_turn(turn, i, default_chunk) for i, turn in enumerate(turns)),
        prompt_cache=bool(_field(obj, "promptCache", bool, where)),
    )
