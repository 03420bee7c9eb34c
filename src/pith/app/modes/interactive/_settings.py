"""`/settings`: the settings people change mid-session, toggled or cycled in a list and saved
to the user's settings.json (`<agent dir>/settings.json`; other keys kept)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass

from pith.app.modes.interactive._host import CommandHost
from pith.resources import SettingsWriteError, edit_settings_file, load_settings

__all__ = ["settings_dialog"]

_THINKING = ["(none)", "off", "minimal", "low", "medium", "high", "xhigh"]
_QUEUE = ["one-at-a-time", "all"]
_TRUST = ["ask", "always", "never"]


@dataclass(frozen=True)
class _Option:
    label: str
    path: tuple[str, ...]
    """Where in settings.json."""
    values: list[object]
    read: Callable[[dict[str, object]], object]


def _get(data: dict[str, object], path: tuple[str, ...], default: object) -> object:
    value: object = data
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return default
        value = value[key]
    return value


def _options() -> list[_Option]:
    def at(path: tuple[str, ...], default: object) -> Callable[[dict[str, object]], object]:
        return lambda data: _get(data, path, default)

    return [
        _Option(
            "Auto-compaction",
            ("compaction", "enabled"),
            [True, False],
            at(("compaction", "enabled"), True),
        ),
        _Option(
            "Retry failed requests",
            ("retry", "enabled"),
            [True, False],
            at(("retry", "enabled"), True),
        ),
        _Option(
            "Steering messages delivered",
            ("steeringMode",),
            list(_QUEUE),
            at(("steeringMode",), "one-at-a-time"),
        ),
        _Option(
            "Follow-up messages delivered",
            ("followUpMode",),
            list(_QUEUE),
            at(("followUpMode",), "one-at-a-time"),
        ),
        _Option(
            "Default thinking level",
            ("defaultThinkingLevel",),
            list(_THINKING),
            at(("defaultThinkingLevel",), "(none)"),
        ),
        _Option(
            "Project trust when unknown",
            ("defaultProjectTrust",),
            list(_TRUST),
            at(("defaultProjectTrust",), "ask"),
        ),
    ]


def _show(value: object) -> str:
    if value is True:
        return "on"
    if value is False:
        return "off"
    return str(value)


async def settings_dialog(app: CommandHost) -> None:
    path = app.agent_dir / "settings.json"
    options = _options()
    index = 0
    while True:
        data = load_settings(app.agent_dir).user_data
        rows = [f"{o.label}: {_show(o.read(data))}" for o in options]
        rows.append(f"Show thinking (this run): {_show(app.transcript.show_thinking)}")
        rows.append("Done")
        picked = await app.ask(f"Settings ({path}) — Enter changes one", rows, initial=index)
        if not isinstance(picked, int) or picked == len(rows) - 1:
            return
        index = picked
        if picked == len(options):
            app.transcript.show_thinking = not app.transcript.show_thinking
            continue
        option = options[picked]
        current = option.read(data)
        position = option.values.index(current) if current in option.values else -1
        new = option.values[(position + 1) % len(option.values)]
        try:
            edit_settings_file(path, functools.partial(_put, path=option.path, value=new))
        except SettingsWriteError as error:
            app.transcript.notice(str(error), "error")
            return
        _apply(app, option.path, new)
        app.transcript.notice(f"{option.label}: {_show(new)} (saved to {path})")


def _put(settings: dict[str, object], *, path: tuple[str, ...], value: object) -> None:
    target = settings
    for key in path[:-1]:
        child = target.get(key)
        if not isinstance(child, dict):
            child = {}
            target[key] = child
        target = child
    if value == "(none)":
        target.pop(path[-1], None)
    else:
        target[path[-1]] = value


def _apply(app: CommandHost, path: tuple[str, ...], value: object) -> None:
    """Settings this session reads as it goes take effect at once."""
    session = app.session
    fresh = load_settings(app.agent_dir)
    if session.project_trusted:
        fresh = fresh.with_project(session.cwd)
    session.config = fresh
    session.settings = fresh.data
    options = session.agent.options
    options.steering_mode = fresh.values.steering_mode
    options.follow_up_mode = fresh.values.follow_up_mode
    session.retry = dataclasses.replace(session.retry, enabled=fresh.values.retry.enabled)
