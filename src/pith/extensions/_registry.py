"""What extensions add besides handlers: slash commands, CLI flags, shortcuts, a message bus."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from pith.extensions._context import ExtensionContext

__all__ = ["Command", "EventBus", "Flag", "Shortcut", "unique_command_name"]

CommandHandler = Callable[[str, "ExtensionContext"], Awaitable[None] | None]
Completions = Callable[[str], Sequence[str] | Awaitable[Sequence[str]]]


@dataclass
class Command:
    """`/name args`: `handler(args, ctx)` runs instead of sending the text to the model."""

    name: str
    handler: CommandHandler
    description: str = ""
    get_argument_completions: Completions | None = None
    extension: str = ""


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
    """Messages between extensions: `on(channel, handler)` and `await emit(channel, data)`."""

    def __init__(self) -> None:
        self._handlers: dict[str, list[Callable[[object], Awaitable[None] | None]]] = {}

    def on(
        self, channel: str, handler: Callable[[object], Awaitable[None] | None]
    ) -> Callable[[], None]:
        """Call `handler(data)` for every message on `channel`; returns an unsubscriber."""
        handlers = self._handlers.setdefault(channel, [])
        handlers.append(handler)
        return lambda: handlers.remove(handler) if handler in handlers else None

    async def emit(self, channel: str, data: object = None) -> None:
        """Deliver `data` to every handler of `channel`, in subscription order."""
        for handler in list(self._handlers.get(channel, ())):
            result = handler(data)
            if inspect.isawaitable(result):
                await result
