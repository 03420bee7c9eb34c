"""The `permission` section of settings.json: checked, merged over the defaults, made rules.

Each key is a *surface* (a tool name, `mcp`, `skill`, `path`, `external_directory`, or `*`)
and each value a state (`"allow"`, `"ask"`, `"deny"`), a deny with a reason
(`{"action": "deny", "reason": "…"}`), or a map of patterns to either. Layers merge in order —
the built-in defaults (`"*": "allow"`, `"external_directory": "ask"`), the user's settings,
a trusted project's — per surface (spec/decisions.md 3, spec/extensions.md B.2):

- a state over anything replaces it;
- a pattern map over a pattern map merges into it: a pattern written again keeps its place,
  new patterns go to the end (last-match-wins sees that order);
- a pattern map over a plain state keeps that state as its `*` unless the map has its own
  `*`, in which case the map replaces it.

The shape is the one `schemas/permissions.schema.json` describes; a value of the wrong shape
stops the whole section with a message naming the file, the line and the key.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pith.ext.permissions._rules import Rule, State

__all__ = [
    "DEFAULT_PERMISSIONS",
    "PermissionConfigError",
    "PermissionLayer",
    "build_rules",
]

DEFAULT_PERMISSIONS: dict[str, State] = {"*": "allow", "external_directory": "ask"}
_STATES = ("allow", "ask", "deny")
_EXAMPLE = '"allow", "ask", "deny" or {"action": "deny", "reason": "…"}'


class PermissionConfigError(ValueError):
    """The `permission` section of a settings file has the wrong shape (one line, naming the
    file, line and key)."""


@dataclass(frozen=True)
class PermissionLayer:
    """One settings file's `permission` section (None when it has none)."""

    origin: str
    section: object


@dataclass
class _Entry:
    state: State
    reason: str | None
    origin: str


def _line_of(origin: str, needle: str) -> int:
    text = ""
    with contextlib.suppress(OSError):
        text = Path(origin).read_text(encoding="utf-8", errors="replace")
    index = text.find(json.dumps(needle))
    return text.count("\n", 0, index) + 1 if index >= 0 else 1


def _fail(origin: str, where: str, needle: str, problem: str) -> PermissionConfigError:
    line = _line_of(origin, needle)
    return PermissionConfigError(f"{origin}:{line}: permission{where}: {problem}")


def _value(origin: str, where: str, needle: str, value: object) -> tuple[State, str | None]:
    if isinstance(value, str):
        if value in _STATES:
            return value, None  # type: ignore[return-value]
        raise _fail(origin, where, needle, f"{value!r} is not a state; use {_EXAMPLE}")
    if isinstance(value, Mapping) and "action" in value:
        action, reason = value.get("action"), value.get("reason")
        extra = sorted(str(key) for key in value if key not in ("action", "reason"))
        if action != "deny":
            raise _fail(
                origin, where, needle, 'only a deny carries a reason: {"action": "deny", ...}'
            )
        if reason is not None and not isinstance(reason, str):
            raise _fail(origin, where, needle, "the reason must be text")
        if extra:
            raise _fail(origin, where, needle, f"unexpected key {extra[0]!r} next to action")
        return "deny", reason
    raise _fail(origin, where, needle, f"must be {_EXAMPLE}, not {_kind(value)}")


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def _surface(origin: str, surface: str, value: object) -> dict[str, _Entry]:
    """One surface's patterns, checked."""
    where = f"[{json.dumps(surface)}]"
    if isinstance(value, str) or (isinstance(value, Mapping) and "action" in value):
        state, reason = _value(origin, where, surface, value)
        return {"*": _Entry(state, reason, origin)}
    if not isinstance(value, Mapping):
        raise _fail(origin, where, surface, f"must be {_EXAMPLE} or a map of patterns")
    patterns: dict[str, _Entry] = {}
    for pattern, item in value.items():
        if not isinstance(pattern, str) or not pattern.strip():
            raise _fail(origin, where, surface, "a pattern must be non-empty text")
        state, reason = _value(origin, f"{where}[{json.dumps(pattern)}]", pattern, item)
        patterns[pattern] = _Entry(state, reason, origin)
    return patterns


def _merge(
    merged: dict[str, dict[str, _Entry]], surface: str, value: object, patterns: dict[str, _Entry]
) -> None:
    below = merged.get(surface)
    plain = isinstance(value, str) or (isinstance(value, Mapping) and "action" in value)
    if below is None or plain:
        merged[surface] = dict(patterns)
        return
    below_plain = list(below) == ["*"]
    if below_plain and "*" in patterns:
        merged[surface] = dict(patterns)  # the map is complete: it replaces the state
        return
    combined = dict(below)
    combined.update(patterns)
    merged[surface] = combined


def build_rules(layers: Sequence[PermissionLayer]) -> list[Rule]:
    """The rules of the defaults and `layers` merged, in evaluation order. Raises
    `PermissionConfigError` for a section of the wrong shape."""
    merged: dict[str, dict[str, _Entry]] = {
        surface: {"*": _Entry(state, None, "default")}
        for surface, state in DEFAULT_PERMISSIONS.items()
    }
    for layer in layers:
        section = layer.section
        if section is None:
            continue
        if not isinstance(section, Mapping):
            raise _fail(
                layer.origin,
                "",
                "permission",
                f"must be an object of surfaces, not {_kind(section)}",
            )
        for surface, value in section.items():
            if not isinstance(surface, str) or not surface:
                raise _fail(layer.origin, "", "permission", "a surface must be non-empty text")
            _merge(merged, surface, value, _surface(layer.origin, surface, value))
    return [
        Rule(surface, pattern, entry.state, entry.origin, entry.reason)
        for surface, patterns in merged.items()
        for pattern, entry in patterns.items()
    ]
