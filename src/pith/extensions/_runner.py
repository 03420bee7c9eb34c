"""Dispatching events to extensions, each event with its own rule for combining answers.

Handlers run in extension load order, then registration order, over a snapshot of the handler
list (a handler registered during an event first runs on the next one). A handler that raises
is reported to the user once per extension and event (every failure goes to the log file) and
then treated as having returned nothing, except in `tool_call`, which fails closed.
"""

from __future__ import annotations

import inspect
import os
import re
import time
import traceback
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from pith.agent import MessageEnd, Tool
from pith.ai import AgentMessage, CustomMessage, ToolResultContent, UserContent, convert
from pith.extensions._context import ExtensionContext
from pith.extensions._registry import Command, EventBus, Flag, Shortcut
from pith.extensions.events import (
    EVENT_NAMES,
    AgentStartResult,
    BeforeAgentStart,
    BeforeProviderRequest,
    Cancel,
    CompactResult,
    ContextEvent,
    ContextResult,
    CustomMessageSpec,
    Input,
    InputResult,
    MessageEndResult,
    ProjectTrust,
    ResourcePaths,
    ResourcesDiscover,
    ToolCallDecision,
    ToolCallEvent,
    ToolResultEvent,
    ToolResultPatch,
    TreeResult,
    TrustDecision,
)

if TYPE_CHECKING:
    from pith.extensions._api import ExtensionAPI
    from pith.extensions._host import ExtensionHost

__all__ = [
    "HANDLER_ERRORS",
    "DiscoveredPaths",
    "Extension",
    "ExtensionRunner",
    "Handler",
    "describe_error",
]

Handler = Callable[[Any, ExtensionContext], Awaitable[object] | object]
HANDLER_ERRORS = (Exception, SystemExit)
"""What a failing handler may raise and pith survives (an extension calling sys.exit, too)."""
_R = TypeVar("_R")


@dataclass
class Extension:
    """One loaded extension: its name, where it came from, and its file or entry point."""

    name: str
    source: str
    """`builtin`, `package` (an entry point), `agent` (agent dir), `project`, `settings` or
    `cli` (`-e`)."""
    location: str = ""


@dataclass
class DiscoveredPaths:
    """Paths extensions added in `resources_discover`, as (path, extension name)."""

    skill_paths: list[tuple[str, str]] = field(default_factory=list)
    prompt_paths: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class AgentStartOutcome:
    messages: list[CustomMessage]
    system_prompt: str | None


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
        self.diagnostics: list[str] = []
        """Problems found before a UI existed (loading); the caller shows them."""
        self._handlers: dict[str, list[tuple[Extension, Handler]]] = {}
        self._contexts: dict[str, ExtensionContext] = {}
        self._reported: set[tuple[str, str]] = set()

    # --- set-up -----------------------------------------------------------------------------

    def add(self, extension: Extension) -> ExtensionAPI:
        """Register `extension` and return the API object its `register(api)` receives."""
        from pith.extensions._api import ExtensionAPI

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
            self._handlers[event] = [entry for entry in handlers if entry[0] is not extension]
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

    def on(self, extension: Extension, event: str, handler: Handler) -> Callable[[], None]:
        if event not in EVENT_NAMES:
            close = [name for name in sorted(EVENT_NAMES) if event in name or name in event]
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ValueError(f"unknown event {event!r}{hint} (see pith.extensions.EVENT_NAMES)")
        if not callable(handler):
            raise TypeError(f"the handler for {event!r} is not callable")
        handlers = self._handlers.setdefault(event, [])
        entry = (extension, handler)
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

    def _snapshot(self, event: str) -> list[tuple[Extension, Handler]]:
        return list(self._handlers.get(event, ()))

    async def _call(self, extension: Extension, handler: Handler, event: Any) -> object:
        result = handler(event, self.context_for(extension))
        if inspect.isawaitable(result):
            result = await result
        return result

    async def _answers(self, event: Any, kind: type[_R]) -> list[tuple[Extension, _R]]:
        """Run every handler; their answers as `kind` (failures and Nones left out)."""
        answers: list[tuple[Extension, _R]] = []
        for extension, handler in self._snapshot(event.type):
            try:
                value = await self._call(extension, handler, event)
                answer = _coerce(value, kind)
            except HANDLER_ERRORS as error:
                self.failed(extension, event.type, error)
                continue
            if answer is not None:
                answers.append((extension, answer))
        return answers

    async def emit(self, event: Any) -> None:
        """A notification: every handler runs; what they return is ignored."""
        for extension, handler in self._snapshot(event.type):
            try:
                await self._call(extension, handler, event)
            except HANDLER_ERRORS as error:
                self.failed(extension, event.type, error)

    async def emit_cancellable(self, event: Any) -> Cancel:
        """`session_before_switch` / `session_before_fork`: the first cancel wins."""
        for extension, handler in self._snapshot(event.type):
            try:
                answer = _coerce(await self._call(extension, handler, event), Cancel)
            except HANDLER_ERRORS as error:
                self.failed(extension, event.type, error)
                continue
            if answer is not None and answer.cancel:
                return answer
        return Cancel()

    async def emit_before_compact(self, event: Any) -> CompactResult:
        """The first handler that cancels or supplies a compaction decides."""
        for extension, handler in self._snapshot(event.type):
            try:
                answer = _coerce(await self._call(extension, handler, event), CompactResult)
            except HANDLER_ERRORS as error:
                self.failed(extension, event.type, error)
                continue
            if answer is not None and (answer.cancel or answer.compaction is not None):
                return answer
        return CompactResult()

    async def emit_before_tree(self, event: Any) -> TreeResult:
        """A cancel or a summary ends the round; instructions and labels accumulate."""
        combined = TreeResult()
        for extension, handler in self._snapshot(event.type):
            try:
                answer = _coerce(await self._call(extension, handler, event), TreeResult)
            except HANDLER_ERRORS as error:
                self.failed(extension, event.type, error)
                continue
            if answer is None:
                continue
            if answer.cancel or answer.summary is not None:
                return answer
            if answer.custom_instructions is not None:
                combined.custom_instructions = answer.custom_instructions
            if answer.replace_instructions is not None:
                combined.replace_instructions = answer.replace_instructions
            if answer.label is not None:
                combined.label = answer.label
        return combined

    async def emit_project_trust(self, event: ProjectTrust) -> TrustDecision | None:
        """The first `yes` or `no` wins; None when every handler is undecided."""
        for extension, handler in self._snapshot(event.type):
            try:
                answer = _coerce(await self._call(extension, handler, event), TrustDecision)
            except HANDLER_ERRORS as error:
                self.failed(extension, event.type, error)
                continue
            if answer is not None and answer.trusted in ("yes", "no"):
                return answer
        return None

    async def emit_resources_discover(self, event: ResourcesDiscover) -> DiscoveredPaths:
        """Every handler's paths, in order, each with the extension that gave it."""
        found = DiscoveredPaths()
        for extension, answer in await self._answers(event, ResourcePaths):
            found.skill_paths.extend((str(path), extension.name) for path in answer.skill_paths)
            found.prompt_paths.extend((str(path), extension.name) for path in answer.prompt_paths)
        return found

    async def emit_input(self, event: Input) -> InputResult:
        """Transforms chain (each handler sees the text so far); `handled` stops at once."""
        text, images = event.text, event.images
        for extension, handler in self._snapshot(event.type):
            current = Input(text=text, images=images, source=event.source)
            try:
                answer = _coerce(await self._call(extension, handler, current), InputResult)
            except HANDLER_ERRORS as error:
                self.failed(extension, event.type, error)
                continue
            if answer is None:
                continue
            if answer.action == "handled":
                return answer
            if answer.action == "transform":
                if not isinstance(answer.text, str):
                    self.failed(extension, event.type, TypeError("a transform needs text"))
                    continue
                text = answer.text
                images = answer.images if answer.images is not None else images
        if text != event.text or images is not event.images:
            return InputResult("transform", text, images)
        return InputResult()

    async def emit_before_agent_start(
        self, event: BeforeAgentStart, render: Callable[[], str]
    ) -> AgentStartOutcome:
        """Messages from every handler; the last system prompt returned wins (each handler
        sees the prompt as it stands, re-rendered after option edits)."""
        messages: list[CustomMessage] = []
        forced: str | None = None
        for extension, handler in self._snapshot(event.type):
            event.system_prompt = forced if forced is not None else render()
            try:
                value = await self._call(extension, handler, event)
                answer = _coerce(value, AgentStartResult)
            except HANDLER_ERRORS as error:
                self.failed(extension, event.type, error)
                continue
            if answer is None:
                continue
            if answer.message is not None:
                spec = answer.message
                if isinstance(spec, Mapping):
                    spec = _from_mapping(CustomMessageSpec, spec)
                messages.append(_custom_message(spec))
            if answer.system_prompt is not None:
                forced = str(answer.system_prompt)
        return AgentStartOutcome(messages, forced)

    async def emit_message_end(self, message: AgentMessage) -> AgentMessage | None:
        """Chained replacements; a replacement of another role is refused and reported."""
        current = message
        changed = False
        for extension, handler in self._snapshot("message_end"):
            try:
                value = await self._call(extension, handler, MessageEnd(current))
                answer = _coerce(value, MessageEndResult)
                if answer is None:
                    continue
                if isinstance(answer.message, Mapping):
                    answer.message = convert(dict(answer.message), AgentMessage)  # type: ignore[arg-type]
                if getattr(answer.message, "role", None) != current.role:
                    raise TypeError(
                        f"message_end must return a message of the same role ({current.role})"
                    )
            except HANDLER_ERRORS as error:
                self.failed(extension, "message_end", error)
                continue
            current = answer.message
            changed = True
        return current if changed else None

    async def emit_tool_call(self, event: ToolCallEvent) -> ToolCallDecision | None:
        """The first block wins. A failing handler blocks the call (fail closed)."""
        for extension, handler in self._snapshot(event.type):
            try:
                answer = _coerce(await self._call(extension, handler, event), ToolCallDecision)
            except HANDLER_ERRORS as error:
                self.failed(extension, event.type, error)
                return ToolCallDecision(
                    block=True,
                    reason=(
                        f"Blocked: extension {extension.name} failed while checking this call "
                        f"({describe_error(error)})"
                    ),
                )
            if answer is not None and answer.block:
                return answer
        return None

    async def emit_tool_result(self, event: ToolResultEvent) -> ToolResultPatch | None:
        """Patches chain: each handler sees the result as patched so far."""
        changed = False
        for extension, handler in self._snapshot(event.type):
            try:
                answer = _coerce(await self._call(extension, handler, event), ToolResultPatch)
            except HANDLER_ERRORS as error:
                self.failed(extension, event.type, error)
                continue
            if answer is None:
                continue
            if not isinstance(answer.content, msgspec.UnsetType):
                try:
                    event.content = convert(list(answer.content), list[ToolResultContent])
                except HANDLER_ERRORS as error:
                    self.failed(extension, event.type, error)
                    continue
                changed = True
            if not isinstance(answer.details, msgspec.UnsetType):
                event.details = answer.details
                changed = True
            if not isinstance(answer.is_error, msgspec.UnsetType):
                event.is_error = bool(answer.is_error)
                changed = True
        if not changed:
            return None
        return ToolResultPatch(event.content, event.details, event.is_error)

    async def emit_context(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        """The request's messages after every handler (each gets the list so far, copied so
        no handler can change the stored history)."""
        handlers = self._snapshot("context")
        if not handlers:
            return messages
        if all(extension.source == "builtin" for extension, _ in handlers):
            # pith's own extensions never change a message in place (tested): the copy that
            # protects the history from other handlers would cost ~5 ms per 400 messages.
            current = list(messages)
        else:
            current = _deep_copy(messages)
        for extension, handler in handlers:
            try:
                value = await self._call(extension, handler, ContextEvent(current))
                if isinstance(value, list):
                    value = ContextResult(value)
                answer = _coerce(value, ContextResult)
                if answer is not None and answer.messages is not current:
                    answer.messages = _as_messages(answer.messages)
            except HANDLER_ERRORS as error:
                self.failed(extension, "context", error)
                continue
            if answer is not None and answer.messages is not current:
                current = list(answer.messages)
        return current

    async def emit_before_provider_request(self, payload: dict[str, object]) -> dict[str, object]:
        """Each handler may return the body to send instead; later ones see it."""
        current = payload
        for extension, handler in self._snapshot("before_provider_request"):
            try:
                value = await self._call(extension, handler, BeforeProviderRequest(current))
                if value is not None and not isinstance(value, dict):
                    raise TypeError(
                        f"before_provider_request returns the body (a dict), not "
                        f"{type(value).__name__}"
                    )
            except HANDLER_ERRORS as error:
                self.failed(extension, "before_provider_request", error)
                continue
            if value is not None:
                current = value
        return current

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


# --- helpers ----------------------------------------------------------------------------------


def describe_error(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def _from_mapping(kind: type[_R], value: Mapping[str, object]) -> _R:
    assert is_dataclass(kind)
    names = {item.name for item in fields(kind)}
    arguments: dict[str, object] = {}
    for key, item in value.items():
        name = _CAMEL.sub("_", str(key)).lower()
        if name not in names:
            expected = ", ".join(sorted(names))
            raise TypeError(f"unexpected key {key!r} in the result (expected: {expected})")
        arguments[name] = item
    return kind(**arguments)


def _coerce(value: object, kind: type[_R]) -> _R | None:
    """A handler's return value as `kind`: None, an instance, or a dict of its fields."""
    if value is None:
        return None
    if isinstance(value, kind):
        return value
    if isinstance(value, Mapping):
        return _from_mapping(kind, value)
    raise TypeError(f"expected {kind.__name__} (or a dict), got {type(value).__name__}")


def _custom_message(spec: CustomMessageSpec) -> CustomMessage:
    content = spec.content
    blocks = content if isinstance(content, str) else convert(content, list[UserContent])
    message = CustomMessage(custom_type=spec.custom_type, content=blocks, display=spec.display)
    if spec.details is not None:
        message.details = spec.details
    return message


_MESSAGES = msgspec.json.Decoder(list[AgentMessage])
_ENCODER = msgspec.json.Encoder()


def _as_messages(messages: Sequence[object]) -> list[AgentMessage]:
    """Messages a handler returned: message objects, or Pi-shaped dicts converted."""
    converted: list[AgentMessage] = []
    for message in messages:
        if isinstance(message, Mapping):
            converted.append(convert(dict(message), AgentMessage))  # type: ignore[arg-type]
        elif isinstance(getattr(message, "role", None), str):
            converted.append(message)  # type: ignore[arg-type]
        else:
            raise TypeError(f"context returned a {type(message).__name__}, not a message")
    return converted


def _deep_copy(messages: list[AgentMessage]) -> list[AgentMessage]:
    """A deep copy through JSON: ~6x faster than `copy.deepcopy` for a long history."""
    return _MESSAGES.decode(_ENCODER.encode(messages))
