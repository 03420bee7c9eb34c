"""What extensions register: who they are, their handlers, slash commands, CLI flags,
shortcuts, and a message bus between them."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from pith.extensions._context import ExtensionContext

__all__ = [
    "Command",
    "EventBus",
    "Extension",
    "Flag",
    "Handler",
    "OwnedBus",
    "Shortcut",
    "Subscription",
    "unique_command_name",
]

Handler = Callable[[Any, "ExtensionContext"], Awaitable[object] | object]
"""An event handler, `handler(event, ctx)`; `api.on` gives each event its precise type."""
CommandHandler = Callable[[str, "ExtensionContext"], Awaitable[None] | None]
Completions = Callable[[str], Sequence[str] | Awaitable[Sequence[str]]]
BusHandler = Callable[[object], Awaitable[None] | None]


@dataclass
class Extension:
    """One loaded extension: its name, where it came from, and its file or entry point."""

    name: str
    source: str
    """`builtin`, `package` (an entry point), `agent` (agent dir), `project`, `settings` or
    `cli` (`-e`). What an extension may do never depends on it: every source gets the same
    door."""
    location: str = ""


@dataclass(eq=False)
class Subscription:
    """One `api.on(event, handler)`; `copy=False` (for `context`) is the handler's promise never
    to change a message in place, so pith may hand it the history's own messages."""

    extension: Extension
    handler: Handler
    copy: bool = True


@dataclass
class Command:
    """`/name args`: `handler(args, ctx)` runs instead of sending the text to the model."""

    name: str
    handler: CommandHandler
    description: str = ""
    get_argument_completions: Completions | None = None
    extension: str = ""
    needs_ui: bool = False
    """It asks questions: refused where no one can answer (print and JSON mode)."""


@dataclass
class Flag:
    """A command-line flag `--name` an extension reads back with `api.get_flag(name)`."""

    name: str
    description: str = ""
    type: Literal["boolean", "string"] = "boolean"
    default: bool | str | None = None
    extension: str = ""


@dataclass
class Shortcut:
    """A key binding for the interactive mode, e.g. `ctrl+alt+y`."""

    key: str
    handler: Callable[[ExtensionContext], Awaitable[None] | None]
    description: str = ""
    extension: str = ""


def unique_command_name(name: str, taken: set[str]) -> str:
    """`name`, or `name:1`, `name:2`, ... when another extension has it already."""
    if name not in taken:
        return name
    n = 1
    while f"{name}:{n}" in taken:
        n += 1
    return f"{name}:{n}"


class EventBus:
    """Messages between extensions: `on(channel, handler)` and `await emit(channel, data)`.

    A handler that raises is passed to `on_error` (the runner reports it) and the others still
    run; `emit` itself never raises for a handler's sake.
    """

    def __init__(self, on_error: Callable[[str, str, BaseException], None] | None = None) -> None:
        self._handlers: dict[str, list[tuple[str, BusHandler]]] = {}
        self.on_error = on_error
        """Called with (owner, channel, error) when a handler raises."""

    def on(
        self,
        channel: str,
        handler: BusHandler,
        *,
        owner: str = "",
    ) -> Callable[[], None]:
        """Call `handler(data)` for every message on `channel`; returns an unsubscriber."""
        handlers = self._handlers.setdefault(channel, [])
        entry = (owner, handler)
        handlers.append(entry)
        return lambda: handlers.remove(entry) if entry in handlers else None

    def drop_owner(self, owner: str) -> None:
        """Remove every subscription `owner` made."""
        for channel, handlers in self._handlers.items():
            self._handlers[channel] = [entry for entry in handlers if entry[0] != owner]

    async def emit(self, channel: str, data: object = None) -> None:
        """Deliver `data` to every handler of `channel`, in subscription order."""
        for owner, handler in list(self._handlers.get(channel, ())):
            try:
                result = handler(data)
                if inspect.isawaitable(result):
                    await result
            except (Exception, SystemExit) as error:
                if self.on_error is None:
                    raise
                self.on_error(owner, channel, error)


class OwnedBus:
    """One extension's view of the shared bus: its subscriptions carry its name."""

    def __init__(self, bus: EventBus, owner: str) -> None:
        self._bus = bus
        self._owner = owner

    def on(
        self, channel: str, handler: Callable[[object], Awaitable[None] | None]
    ) -> Callable[[], None]:
        """Call `handler(data)` for every message on `channel`; returns an unsubscriber."""
        return self._bus.on(channel, handler, owner=self._owner)

    async def emit(self, channel: str, data: object = None) -> None:
        """Deliver `data` to every handler of `channel`, in subscription order."""
        await self._bus.emit(channel, data)
