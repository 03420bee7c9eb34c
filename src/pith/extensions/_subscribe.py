"""`api.on`, typed event by event.

Each event name has its own signature: the handler takes that event's payload (a dataclass of
`pith.extensions.events`) and the extension's context, and returns what that event accepts
(its result class, a dict of its fields, or None), directly or from a coroutine. mypy (or any
type checker) then checks an extension's handlers: a handler for the wrong event, or one that
returns the wrong thing, is an error before pith ever runs it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Literal, TypeAlias, TypeVar, overload

from pith.agent import (
    AgentEnd,
    AgentStart,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    TurnEnd,
    TurnStart,
)
from pith.ai import AgentMessage
from pith.extensions._context import ExtensionContext
from pith.extensions._owner import ExtensionOwner
from pith.extensions._registry import Extension, Handler
from pith.extensions.events import (
    AgentStartResult,
    BeforeAgentStart,
    BeforeProviderRequest,
    Cancel,
    CompactResult,
    ContextEvent,
    ContextResult,
    Input,
    InputResult,
    MessageEndResult,
    ModelSelect,
    ProjectTrust,
    ResourcePaths,
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

__all__ = ["Answering", "EventSubscriptions", "Notified", "Unsubscribe"]

_E = TypeVar("_E")
_R = TypeVar("_R")

Unsubscribe: TypeAlias = Callable[[], None]
"""What `api.on` returns: call it to unregister the handler."""
Answer: TypeAlias = _R | Mapping[str, object] | None
Answering: TypeAlias = Callable[[_E, ExtensionContext], Answer[_R] | Awaitable[Answer[_R]]]
"""A handler of an event that takes answers: payload `_E`, answer `_R` (or a dict, or None)."""
Notified: TypeAlias = Callable[[_E, ExtensionContext], object]
"""A handler of a notification: payload `_E`; what it returns is ignored."""
Messages: TypeAlias = ContextResult | Sequence[AgentMessage | Mapping[str, object]]


class EventSubscriptions:
    """The `on` of `ExtensionAPI`: one door for every extension, whatever its source."""

    _runner: ExtensionOwner
    _extension: Extension

    @overload
    def on(
        self, event: Literal["session_start"], handler: Notified[SessionStart]
    ) -> Unsubscribe: ...
    @overload
    def on(
        self, event: Literal["session_shutdown"], handler: Notified[SessionShutdown]
    ) -> Unsubscribe: ...
    @overload
    def on(
        self,
        event: Literal["session_before_switch"],
        handler: Answering[SessionBeforeSwitch, Cancel],
    ) -> Unsubscribe: ...
    @overload
    def on(
        self, event: Literal["session_before_fork"], handler: Answering[SessionBeforeFork, Cancel]
    ) -> Unsubscribe: ...
    @overload
    def on(
        self,
        event: Literal["session_before_compact"],
        handler: Answering[SessionBeforeCompact, CompactResult],
    ) -> Unsubscribe: ...
    @overload
    def on(
        self, event: Literal["session_compact"], handler: Notified[SessionCompact]
    ) -> Unsubscribe: ...
    @overload
    def on(
        self,
        event: Literal["session_before_tree"],
        handler: Answering[SessionBeforeTree, TreeResult],
    ) -> Unsubscribe: ...
    @overload
    def on(self, event: Literal["session_tree"], handler: Notified[SessionTree]) -> Unsubscribe: ...
    @overload
    def on(
        self,
        event: Literal["resources_discover"],
        handler: Answering[ResourcesDiscover, ResourcePaths],
    ) -> Unsubscribe: ...
    @overload
    def on(
        self, event: Literal["project_trust"], handler: Answering[ProjectTrust, TrustDecision]
    ) -> Unsubscribe: ...
    @overload
    def on(
        self, event: Literal["input"], handler: Answering[Input, InputResult]
    ) -> Unsubscribe: ...
    @overload
    def on(
        self,
        event: Literal["before_agent_start"],
        handler: Answering[BeforeAgentStart, AgentStartResult],
    ) -> Unsubscribe: ...
    @overload
    def on(self, event: Literal["agent_start"], handler: Notified[AgentStart]) -> Unsubscribe: ...
    @overload
    def on(self, event: Literal["agent_end"], handler: Notified[AgentEnd]) -> Unsubscribe: ...
    @overload
    def on(self, event: Literal["turn_start"], handler: Notified[TurnStart]) -> Unsubscribe: ...
    @overload
    def on(self, event: Literal["turn_end"], handler: Notified[TurnEnd]) -> Unsubscribe: ...
    @overload
    def on(
        self, event: Literal["message_start"], handler: Notified[MessageStart]
    ) -> Unsubscribe: ...
    @overload
    def on(
        self, event: Literal["message_update"], handler: Notified[MessageUpdate]
    ) -> Unsubscribe: ...
    @overload
    def on(
        self, event: Literal["message_end"], handler: Answering[MessageEnd, MessageEndResult]
    ) -> Unsubscribe: ...
    @overload
    def on(
        self, event: Literal["tool_call"], handler: Answering[ToolCallEvent, ToolCallDecision]
    ) -> Unsubscribe: ...
    @overload
    def on(
        self, event: Literal["tool_result"], handler: Answering[ToolResultEvent, ToolResultPatch]
    ) -> Unsubscribe: ...
    @overload
    def on(
        self, event: Literal["tool_execution_start"], handler: Notified[ToolExecutionStart]
    ) -> Unsubscribe: ...
    @overload
    def on(
        self, event: Literal["tool_execution_update"], handler: Notified[ToolExecutionUpdate]
    ) -> Unsubscribe: ...
    @overload
    def on(
        self, event: Literal["tool_execution_end"], handler: Notified[ToolExecutionEnd]
    ) -> Unsubscribe: ...
    @overload
    def on(
        self,
        event: Literal["context"],
        handler: Answering[ContextEvent, Messages],
        *,
        copy: bool = True,
    ) -> Unsubscribe: ...
    @overload
    def on(
        self,
        event: Literal["before_provider_request"],
        handler: Answering[BeforeProviderRequest, dict[str, object]],
    ) -> Unsubscribe: ...
    @overload
    def on(self, event: Literal["model_select"], handler: Notified[ModelSelect]) -> Unsubscribe: ...
    def on(self, event: str, handler: Handler, *, copy: bool = True) -> Unsubscribe:
        """Call `handler(event, ctx)` for `event` (see `pith.extensions.events`); returns a
        function that unregisters it. `copy=False` (`context` only) promises that the handler
        never changes a message in place: pith may then skip the copy of the history it makes
        to protect it (which costs milliseconds per request on a long one)."""
        return self._runner.on(self._extension, event, handler, copy=copy)
