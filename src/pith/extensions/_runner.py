"""Dispatching events to extensions: one `emit`, driven by the event table.

Handlers run in extension load order, then registration order, over a snapshot of the handler
list (a handler registered during an event first runs on the next one). How their answers
combine is each event's row in the table. A handler that raises is reported to the user once
per extension and event (every failure goes to the log file) and then treated as having
returned nothing, except where the event fails closed (`tool_call`).
"""

from __future__ import annotations

import inspect
import os
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, overload

from pith.agent import (
    AgentEnd,
    AgentStart,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    Tool,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    TurnEnd,
    TurnStart,
)
from pith.extensions._api import ExtensionAPI
from pith.extensions._combine import Notify, describe_error
from pith.extensions._context import ExtensionContext
from pith.extensions._event_table import EVENT_TABLE, AgentStartOutcome, DiscoveredPaths
from pith.extensions._registry import (
    Command,
    EventBus,
    Extension,
    Flag,
    Handler,
    Shortcut,
    Subscription,
)
from pith.extensions.events import (
    EVENT_NAMES,
    BeforeAgentStart,
    BeforeProviderRequest,
    Cancel,
    CompactResult,
    ContextEvent,
    Input,
    InputResult,
    ModelSelect,
    ProjectTrust,
    ResourcesDiscover,
    SessionBeforeCompact,
    SessionBeforeFork,
    SessionBeforeSwitch,
    SessionBeforeTree,
    SessionCompact,
    SessionShutdown,
    SessionStart,
    SessionTree,
    ToolCallDecision,
    ToolCallEvent,
    ToolResultEvent,
    ToolResultPatch,
    TreeResult,
    TrustDecision,
)

if TYPE_CHECKING:
    from pith.ai import AgentMessage
    from pith.extensions._host import ExtensionHost

__all__ = [
    "HANDLER_ERRORS",
    "AgentStartOutcome",
    "DiscoveredPaths",
    "Extension",
    "ExtensionRunner",
    "Handler",
    "Notification",
    "describe_error",
]

HANDLER_ERRORS = (Exception, SystemExit)
"""What a failing handler may raise and pith survives (an extension calling sys.exit, too)."""

Notification = (
    SessionStart
    | SessionShutdown
    | SessionCompact
    | SessionTree
    | AgentStart
    | AgentEnd
    | TurnStart
    | TurnEnd
    | MessageStart
    | MessageUpdate
    | ToolExecutionStart
    | ToolExecutionUpdate
    | ToolExecutionEnd
    | ModelSelect
)
"""The payloads of events whose handlers' answers are ignored."""


class ExtensionRunner:
    """Holds what extensions registered and dispatches events to them."""

    def __init__(
        self, cwd: str, *, log_path: Path | None = None, agent_dir: Path | None = None
    ) -> None:
        self.cwd = cwd
        self.log_path = log_path
        self.agent_dir = agent_dir
        """pith's agent directory (settings, sessions, logs); None in bare test set-ups."""
        self.extensions: list[Extension] = []
        self.tools: dict[str, tuple[Extension, Tool]] = {}
        """Tools extensions registered, by name (a later one replaces an earlier one)."""
        self._tool_registrations: list[tuple[Extension, Tool]] = []
        self.commands: dict[str, Command] = {}
        self.flags: dict[str, Flag] = {}
        self.flag_values: dict[str, bool | str | None] = {}
        self.shortcuts: list[Shortcut] = []
        self.events = EventBus(self._bus_failed)
        self.host: ExtensionHost | None = None
        self._tool_gates: dict[str, Callable[[str], bool]] = {}
        self.diagnostics: list[str] = []
        """Problems found before a UI existed (loading); the caller shows them."""
        self._handlers: dict[str, list[Subscription]] = {}
        self._contexts: dict[str, ExtensionContext] = {}
        self._reported: set[tuple[str, str]] = set()

    # --- set-up -----------------------------------------------------------------------------

    def add(self, extension: Extension) -> ExtensionAPI:
        """Register `extension` and return the API object its `register(api)` receives."""
        self.extensions.append(extension)
        return ExtensionAPI(self, extension)

    def add_tool(self, extension: Extension, tool: Tool) -> None:
        self._tool_registrations.append((extension, tool))
        self.tools[tool.name] = (extension, tool)

    def discard(self, extension: Extension) -> None:
        """Take back everything `extension` registered (it failed to load); a tool it had
        replaced comes back."""
        if extension in self.extensions:
            self.extensions.remove(extension)
        for event, handlers in self._handlers.items():
            self._handlers[event] = [
                entry for entry in handlers if entry.extension is not extension
            ]
        self._tool_registrations = [
            entry for entry in self._tool_registrations if entry[0] is not extension
        ]
        self.tools = {}
        for owner, tool in self._tool_registrations:
            self.tools[tool.name] = (owner, tool)
        self.events.drop_owner(extension.name)
        for name in [n for n, c in self.commands.items() if c.extension == extension.name]:
            del self.commands[name]
        for name in [n for n, f in self.flags.items() if f.extension == extension.name]:
            del self.flags[name]
            self.flag_values.pop(name, None)
        self.shortcuts = [s for s in self.shortcuts if s.extension != extension.name]
        self._contexts.pop(extension.name, None)
        self._tool_gates.pop(extension.name, None)

    # --- tool gates -------------------------------------------------------------------------

    def set_tool_gate(self, owner: str, gate: Callable[[str], bool] | None) -> None:
        """`gate(name)` False keeps the tool `name` out of the model's tools, whoever activates
        it and whenever; one gate per owner (an extension's name, or `--tools`), None drops it."""
        if gate is None:
            self._tool_gates.pop(owner, None)
        else:
            self._tool_gates[owner] = gate

    def tool_allowed(self, name: str) -> bool:
        """Whether every gate lets `name` be declared. A gate that raises keeps it out (a
        permission check never fails open) and is reported once."""
        for owner, gate in list(self._tool_gates.items()):
            try:
                if not gate(name):
                    return False
            except Exception as error:
                extension = next((e for e in self.extensions if e.name == owner), None)
                self.failed(extension or Extension(owner, "tools"), "tool gate", error)
                return False
        return True

    def bind(self, host: ExtensionHost) -> None:
        """Connect to the running pith; from now on handlers get a working `ctx`."""
        self.host = host
        for context in self._contexts.values():
            context._rebind(host)

    def context_for(self, extension: Extension) -> ExtensionContext:
        context = self._contexts.get(extension.name)
        if context is None:
            context = ExtensionContext(extension.name, self.host, self.cwd)
            self._contexts[extension.name] = context
        return context

    def on(
        self, extension: Extension, event: str, handler: Handler, *, copy: bool = True
    ) -> Callable[[], None]:
        """Subscribe `handler` to `event`; returns a function that unsubscribes it. `copy`:
        see `Subscription` (only `context` reads it)."""
        if event not in EVENT_NAMES:
            close = [name for name in sorted(EVENT_NAMES) if event in name or name in event]
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ValueError(f"unknown event {event!r}{hint} (see pith.extensions.EVENT_NAMES)")
        if not callable(handler):
            raise TypeError(f"the handler for {event!r} is not callable")
        handlers = self._handlers.setdefault(event, [])
        entry = Subscription(extension, handler, copy)
        handlers.append(entry)
        return lambda: handlers.remove(entry) if entry in handlers else None

    def has_handlers(self, event: str) -> bool:
        return bool(self._handlers.get(event))

    # --- reporting --------------------------------------------------------------------------

    def report(self, message: str) -> None:
        """Tell the user about a problem: through the UI once bound, else as a diagnostic."""
        if self.host is not None:
            self.host.ui.notify(message, "error")
        else:
            self.diagnostics.append(message)

    def failed(self, extension: Extension, event: str, error: BaseException) -> None:
        """A handler raised: log it, and tell the user the first time for this event."""
        self._log(extension, event, error)
        key = (extension.name, event)
        if key in self._reported:
            return
        self._reported.add(key)
        where = f"; details in {self.log_path}" if self.log_path is not None else ""
        effect = (
            "the calls it checks are blocked"
            if event == "tool_call"
            else "pith carries on without it"
        )
        self.report(
            f"extension {extension.name} failed in {event}: {describe_error(error)} "
            f"(reported once; {effect}{where})"
        )

    def _bus_failed(self, owner: str, channel: str, error: BaseException) -> None:
        extension = next((e for e in self.extensions if e.name == owner), None)
        self.failed(extension or Extension(owner or "?", "bus"), f"events[{channel!r}]", error)

    def load_failed(self, extension: Extension, error: BaseException) -> None:
        """`register(api)` (or the import) raised: log it; the caller reports it."""
        self._log(extension, "register", error)

    def _log(self, extension: Extension, event: str, error: BaseException) -> None:
        if self.log_path is None:
            return
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        text = "".join(traceback.format_exception(error))
        record = f"{stamp} {extension.name} ({extension.location}) in {event}:\n{text}\n"
        try:
            self.log_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            descriptor = os.open(self.log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            with os.fdopen(descriptor, "a", encoding="utf-8") as handle:
                handle.write(record)
        except OSError:
            pass  # the log is a convenience; the user already got the one-line report

    # --- dispatch ---------------------------------------------------------------------------

    def _snapshot(self, event: str) -> list[Subscription]:
        return list(self._handlers.get(event, ()))

    async def _call(self, subscription: Subscription, payload: object) -> object:
        result = subscription.handler(payload, self.context_for(subscription.extension))
        if inspect.isawaitable(result):
            result = await result
        return result

    @overload
    async def emit(self, event: Notification) -> None: ...
    @overload
    async def emit(self, event: SessionBeforeSwitch | SessionBeforeFork) -> Cancel: ...
    @overload
    async def emit(self, event: SessionBeforeCompact) -> CompactResult: ...
    @overload
    async def emit(self, event: SessionBeforeTree) -> TreeResult: ...
    @overload
    async def emit(self, event: ResourcesDiscover) -> DiscoveredPaths: ...
    @overload
    async def emit(self, event: ProjectTrust) -> TrustDecision | None: ...
    @overload
    async def emit(self, event: Input) -> InputResult: ...
    @overload
    async def emit(self, event: BeforeAgentStart) -> AgentStartOutcome: ...
    @overload
    async def emit(self, event: MessageEnd) -> AgentMessage | None: ...
    @overload
    async def emit(self, event: ToolCallEvent) -> ToolCallDecision | None: ...
    @overload
    async def emit(self, event: ToolResultEvent) -> ToolResultPatch | None: ...
    @overload
    async def emit(self, event: ContextEvent) -> list[AgentMessage]: ...
    @overload
    async def emit(self, event: BeforeProviderRequest) -> dict[str, object]: ...
    async def emit(self, event: object) -> object:
        """Run `event`'s handlers; its outcome, as its row in the event table combines them."""
        name: str = getattr(event, "type")  # noqa: B009 (every payload has its name)
        rule = EVENT_TABLE[name].combine
        subscriptions = self._snapshot(name)
        if isinstance(rule, Notify):  # the common case, kept to the bare loop
            for subscription in subscriptions:
                try:
                    await self._call(subscription, event)
                except HANDLER_ERRORS as error:
                    self.failed(subscription.extension, name, error)
            return None
        round_ = rule.start(event, subscriptions)
        for subscription in subscriptions:
            payload = round_.payload()
            try:
                if round_.take(subscription.extension, await self._call(subscription, payload)):
                    break
            except HANDLER_ERRORS as error:
                self.failed(subscription.extension, name, error)
                refused = rule.refused(subscription.extension, error)
                if refused is not None:
                    return refused
        return round_.outcome()

    # --- commands and flags -----------------------------------------------------------------

    def find_command(self, text: str) -> tuple[Command, str] | None:
        """The command `text` invokes (`/name args`), with its argument text."""
        if not text.startswith("/"):
            return None
        name, _, args = text[1:].partition(" ")
        command = self.commands.get(name.strip())
        return (command, args.strip()) if command is not None else None

    async def run_shortcut(self, shortcut: Shortcut) -> None:
        """Its key was pressed: `handler(ctx)` with its extension's context; a failure is
        reported and logged like a command's."""
        extension = next((e for e in self.extensions if e.name == shortcut.extension), None)
        context = self.context_for(extension) if extension else ExtensionContext("", self.host, "")
        try:
            result = shortcut.handler(context)
            if inspect.isawaitable(result):
                await result
        except HANDLER_ERRORS as error:
            if extension is not None:
                self._log(extension, f"shortcut {shortcut.key}", error)
            self.report(f"shortcut {shortcut.key} failed: {describe_error(error)}")

    async def run_command(self, command: Command, args: str) -> None:
        extension = next((e for e in self.extensions if e.name == command.extension), None)
        context = self.context_for(extension) if extension else ExtensionContext("", self.host, "")
        try:
            result = command.handler(args, context)
            if inspect.isawaitable(result):
                await result
        except HANDLER_ERRORS as error:
            if extension is not None:
                self._log(extension, f"/{command.name}", error)
            self.report(f"/{command.name} failed: {describe_error(error)}")
