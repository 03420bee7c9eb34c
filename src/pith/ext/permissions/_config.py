"""The `permission` section of settings.json: checked, merged over the defaults, made rules.

Each key is a *surface* (a tool name, `mcp`, `skill`, `path`, `external_directory`, or `*`)
and each value a state (`"allow"`, `"ask"`, `"deny"`), a deny with a reason
(`{"action": "deny", "reason": "…"}`), or a map of patterns to either. Layers merge in order —
the built-in defaults (`"*": "allow"`, `"external_directory": "ask"`), the user's settings,
a trusted project's — per surface, the defaults being a layer like any other (so a user's
`{"*": "allow"}` keeps the default external ask):

- a state over anything replaces it;
- a pattern map over a pattern map merges into it: a pattern written again keeps its place,
  new patterns go to the end (last-match-wins sees that order);
- a pattern map over a plain state keeps that state as its `*` unless the map has its own
  `*`, in which case the map replaces it.

The project's layer narrows, never widens: where the user's own rules deny or ask, the
project's allow does not count (`build_ruleset` keeps the user's rules as a floor).

The shape is the one `schemas/permissions.schema.json` describes; a value of the wrong shape
stops the whole section with a message naming the file, the line and the key.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pith.ext.permissions._rules import Rule, Ruleset, State

__all__ = [
    "DEFAULT_PERMISSIONS",
    "PermissionConfigError",
    "PermissionLayer",
    "build_rules",
    "build_ruleset",
    "permission_layers",
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
    project: bool = False
    """The project's own layer (`.pith/settings.json`)."""


@dataclass
class _Entry:
    state: State
    reason: str | None
    origin: str
    project: bool = False


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


def _surface(origin: str, surface: str, value: object, project: bool) -> dict[str, _Entry]:
    """One surface's patterns, checked."""
    where = f"[{json.dumps(surface)}]"
    if isinstance(value, str) or (isinstance(value, Mapping) and "action" in value):
        state, reason = _value(origin, where, surface, value)
        return {"*": _Entry(state, reason, origin, project)}
    if not isinstance(value, Mapping):
        raise _fail(origin, where, surface, f"must be {_EXAMPLE} or a map of patterns")
    patterns: dict[str, _Entry] = {}
    for pattern, item in value.items():
        if not isinstance(pattern, str) or not pattern.strip():
            raise _fail(origin, where, surface, "a pattern must be non-empty text")
        state, reason = _value(origin, f"{where}[{json.dumps(pattern)}]", pattern, item)
        patterns[pattern] = _Entry(state, reason, origin, project)
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


def permission_layers(
    settings_layers: Sequence[tuple[object, Mapping[str, object]]], cwd: str
) -> list[PermissionLayer]:
    """The `permission` sections of settings layers `(file, data)`, the project's own
    (`<cwd>/.pith/settings.json`) marked as such."""
    project_file = os.path.realpath(os.path.join(cwd, ".pith", "settings.json"))
    return [
        PermissionLayer(
            str(path),
            data.get("permission"),
            project=os.path.realpath(str(path)) == project_file,
        )
        for path, data in settings_layers
    ]


def build_ruleset(layers: Sequence[PermissionLayer], home: str) -> Ruleset:
    """The rules of `layers`, with the user's own rules as the floor the project's layer
    cannot go below (a user's deny or ask is never weakened by the project)."""
    rules = build_rules(layers)
    if not any(layer.project and layer.section is not None for layer in layers):
        return Ruleset(rules, home)
    return Ruleset(rules, home, build_rules([layer for layer in layers if not layer.project]))


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
            _merge(merged, surface, value, _surface(layer.origin, surface, value, layer.project))
    return [
        Rule(surface, pattern, entry.state, entry.origin, entry.reason, entry.project)
        for surface, patterns in merged.items()
        for pattern, entry in patterns.items()
    ]
