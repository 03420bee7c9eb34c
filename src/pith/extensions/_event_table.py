"""The event table: for every event `api.on` accepts, its payload class and how the answers
of several handlers combine (the rules of `_combine`). The runner's `emit` reads its row and
nothing else, so an event's behaviour is declared here, in one place."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import msgspec

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
from pith.ai import (
    AgentMessage,
    CustomMessage,
    ImageContent,
    ToolResultContent,
    UserContent,
    convert,
)
from pith.extensions._combine import (
    Chain,
    FirstWins,
    Notify,
    Rule,
    coerce,
    describe_error,
    from_mapping,
)
from pith.extensions._registry import Extension, Subscription
from pith.extensions.events import (
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

__all__ = ["EVENT_TABLE", "AgentStartOutcome", "DiscoveredPaths", "EventRow"]


@dataclass(frozen=True)
class EventRow:
    payload: type
    """The dataclass a handler receives (its `type` field is the event's name)."""
    combine: Rule
    """How the handlers' answers make the emit's outcome."""


@dataclass
class DiscoveredPaths:
    """`resources_discover`'s outcome: every handler's paths, as (path, extension name)."""

    skill_paths: list[tuple[str, str]] = field(default_factory=list)
    prompt_paths: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class AgentStartOutcome:
    """`before_agent_start`'s outcome: every handler's message; the last system prompt."""

    messages: list[CustomMessage]
    system_prompt: str | None


# --- first wins -------------------------------------------------------------------------------


def _blocked(extension: Extension, error: BaseException) -> ToolCallDecision:
    """A guard that crashed must not let the call through."""
    return ToolCallDecision(
        block=True,
        reason=(
            f"Blocked: extension {extension.name} failed while checking this call "
            f"({describe_error(error)})"
        ),
    )


_CANCEL = FirstWins(Cancel, lambda answer: answer.cancel, Cancel)
_COMPACT = FirstWins(
    CompactResult, lambda answer: answer.cancel or answer.compaction is not None, CompactResult
)
_TREE = FirstWins(
    TreeResult,
    lambda answer: answer.cancel or answer.summary is not None,
    TreeResult,
    merge=("custom_instructions", "replace_instructions", "label"),
)
_TRUST = FirstWins(TrustDecision, lambda answer: answer.trusted in ("yes", "no"), lambda: None)
_TOOL_CALL = FirstWins(
    ToolCallDecision, lambda answer: answer.block, lambda: None, fail_closed=_blocked
)


# --- resources_discover: every handler's paths --------------------------------------------------


@dataclass
class _Discovering:
    event: ResourcesDiscover
    found: DiscoveredPaths = field(default_factory=DiscoveredPaths)


def _collect(state: _Discovering, extension: Extension, value: object) -> bool:
    answer = coerce(value, ResourcePaths)
    if answer is not None:
        found = state.found
        skills = [(str(path), extension.name) for path in answer.skill_paths]
        prompts = [(str(path), extension.name) for path in answer.prompt_paths]
        found.skill_paths.extend(skills)
        found.prompt_paths.extend(prompts)
    return False


_DISCOVER = Chain(
    lambda event, subscriptions: _Discovering(event),
    lambda state: state.event,
    _collect,
    lambda state: state.found,
)


# --- input: transforms chain, `handled` stops -------------------------------------------------


@dataclass
class _Typed:
    event: Input
    text: str
    images: list[ImageContent]
    handled: InputResult | None = None


def _next_input(state: _Typed) -> Input:
    return Input(text=state.text, images=state.images, source=state.event.source)


def _transform(state: _Typed, extension: Extension, value: object) -> bool:
    answer = coerce(value, InputResult)
    if answer is None:
        return False
    if answer.action == "handled":
        state.handled = answer
        return True
    if answer.action == "transform":
        if not isinstance(answer.text, str):
            raise TypeError("a transform needs text")
        state.text = answer.text
        state.images = answer.images if answer.images is not None else state.images
    return False


def _input_outcome(state: _Typed) -> InputResult:
    if state.handled is not None:
        return state.handled
    if state.text != state.event.text or state.images is not state.event.images:
        return InputResult("transform", state.text, state.images)
    return InputResult()


_INPUT = Chain(
    lambda event, subscriptions: _Typed(event, event.text, event.images),
    _next_input,
    _transform,
    _input_outcome,
)


# --- before_agent_start: messages from all; the last system prompt wins -----------------------


@dataclass
class _Starting:
    event: BeforeAgentStart
    messages: list[CustomMessage] = field(default_factory=list)
    forced: str | None = None


def _prompt_so_far(state: _Starting) -> BeforeAgentStart:
    """Each handler sees the prompt as it stands: the last one returned, else the options
    rendered again (an earlier handler may have changed them)."""
    event = state.event
    if state.forced is not None:
        event.system_prompt = state.forced
    elif event.render is not None:
        event.system_prompt = event.render()
    return event


def _add_start(state: _Starting, extension: Extension, value: object) -> bool:
    answer = coerce(value, AgentStartResult)
    if answer is None:
        return False
    message = None
    if answer.message is not None:
        spec = answer.message
        if isinstance(spec, Mapping):
            spec = from_mapping(CustomMessageSpec, spec)
        message = _custom_message(spec)
    if message is not None:
        state.messages.append(message)
    if answer.system_prompt is not None:
        state.forced = str(answer.system_prompt)
    return False


def _custom_message(spec: CustomMessageSpec) -> CustomMessage:
    content = spec.content
    blocks = content if isinstance(content, str) else convert(content, list[UserContent])
    message = CustomMessage(custom_type=spec.custom_type, content=blocks, display=spec.display)
    if spec.details is not None:
        message.details = spec.details
    return message


_AGENT_START = Chain(
    lambda event, subscriptions: _Starting(event),
    _prompt_so_far,
    _add_start,
    lambda state: AgentStartOutcome(state.messages, state.forced),
)


# --- message_end: replacements of the same role, chained --------------------------------------


@dataclass
class _Ending:
    current: AgentMessage
    changed: bool = False


def _replace(state: _Ending, extension: Extension, value: object) -> bool:
    answer = coerce(value, MessageEndResult)
    if answer is None:
        return False
    message = answer.message
    if isinstance(message, Mapping):
        message = convert(dict(message), AgentMessage)  # type: ignore[arg-type]
    if getattr(message, "role", None) != state.current.role:
        raise TypeError(
            f"message_end must return a message of the same role ({state.current.role})"
        )
    state.current = message
    state.changed = True
    return False


_MESSAGE_END = Chain(
    lambda event, subscriptions: _Ending(event.message),
    lambda state: MessageEnd(state.current),
    _replace,
    lambda state: state.current if state.changed else None,
)


# --- tool_result: patches chained on the event itself -----------------------------------------


@dataclass
class _Patching:
    event: ToolResultEvent
    changed: bool = False


def _patch(state: _Patching, extension: Extension, value: object) -> bool:
    answer = coerce(value, ToolResultPatch)
    if answer is None:
        return False
    event = state.event
    if not isinstance(answer.content, msgspec.UnsetType):
        event.content = convert(list(answer.content), list[ToolResultContent])
        state.changed = True
    if not isinstance(answer.details, msgspec.UnsetType):
        event.details = answer.details
        state.changed = True
    if not isinstance(answer.is_error, msgspec.UnsetType):
        event.is_error = bool(answer.is_error)
        state.changed = True
    return False


def _patched(state: _Patching) -> ToolResultPatch | None:
    event = state.event
    return ToolResultPatch(event.content, event.details, event.is_error) if state.changed else None


_TOOL_RESULT = Chain(
    lambda event, subscriptions: _Patching(event), lambda s: s.event, _patch, _patched
)


# --- context: this request's messages, chained ------------------------------------------------


@dataclass
class _Request:
    current: list[AgentMessage]


def _own_copy(event: ContextEvent, subscriptions: Sequence[Subscription]) -> _Request:
    """The messages handlers start from: a deep copy, so no handler can change the stored
    history, unless every handler promised (`copy=False`) never to change one in place: a copy
    costs milliseconds per request on a long history."""
    if not subscriptions:
        return _Request(event.messages)
    if any(subscription.copy for subscription in subscriptions):
        return _Request(_deep_copy(event.messages))
    return _Request(list(event.messages))


def _new_messages(state: _Request, extension: Extension, value: object) -> bool:
    if isinstance(value, list):
        value = ContextResult(value)
    answer = coerce(value, ContextResult)
    if answer is not None and answer.messages is not state.current:
        state.current = _as_messages(answer.messages)
    return False


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


_MESSAGES = msgspec.json.Decoder(list[AgentMessage])
_ENCODER = msgspec.json.Encoder()


def _deep_copy(messages: list[AgentMessage]) -> list[AgentMessage]:
    """A deep copy through JSON: ~6x faster than `copy.deepcopy` for a long history."""
    return _MESSAGES.decode(_ENCODER.encode(messages))


_CONTEXT = Chain(
    _own_copy,
    lambda state: ContextEvent(state.current),
    _new_messages,
    lambda state: state.current,
)


# --- before_provider_request: the body to send, chained ---------------------------------------


@dataclass
class _Body:
    current: dict[str, object]


def _new_body(state: _Body, extension: Extension, value: object) -> bool:
    if value is None:
        return False
    if not isinstance(value, dict):
        raise TypeError(
            f"before_provider_request returns the body (a dict), not {type(value).__name__}"
        )
    state.current = value
    return False


_PROVIDER_REQUEST = Chain(
    lambda event, subscriptions: _Body(event.payload),
    lambda state: BeforeProviderRequest(state.current),
    _new_body,
    lambda state: state.current,
)


# --- the table --------------------------------------------------------------------------------

_NOTIFY = Notify()

EVENT_TABLE: Mapping[str, EventRow] = {
    "session_start": EventRow(SessionStart, _NOTIFY),
    "session_shutdown": EventRow(SessionShutdown, _NOTIFY),
    "session_before_switch": EventRow(SessionBeforeSwitch, _CANCEL),
    "session_before_fork": EventRow(SessionBeforeFork, _CANCEL),
    "session_before_compact": EventRow(SessionBeforeCompact, _COMPACT),
    "session_compact": EventRow(SessionCompact, _NOTIFY),
    "session_before_tree": EventRow(SessionBeforeTree, _TREE),
    "session_tree": EventRow(SessionTree, _NOTIFY),
    "resources_discover": EventRow(ResourcesDiscover, _DISCOVER),
    "project_trust": EventRow(ProjectTrust, _TRUST),
    "input": EventRow(Input, _INPUT),
    "before_agent_start": EventRow(BeforeAgentStart, _AGENT_START),
    "agent_start": EventRow(AgentStart, _NOTIFY),
    "agent_end": EventRow(AgentEnd, _NOTIFY),
    "turn_start": EventRow(TurnStart, _NOTIFY),
    "turn_end": EventRow(TurnEnd, _NOTIFY),
    "message_start": EventRow(MessageStart, _NOTIFY),
    "message_update": EventRow(MessageUpdate, _NOTIFY),
    "message_end": EventRow(MessageEnd, _MESSAGE_END),
    "tool_call": EventRow(ToolCallEvent, _TOOL_CALL),
    "tool_result": EventRow(ToolResultEvent, _TOOL_RESULT),
    "tool_execution_start": EventRow(ToolExecutionStart, _NOTIFY),
    "tool_execution_update": EventRow(ToolExecutionUpdate, _NOTIFY),
    "tool_execution_end": EventRow(ToolExecutionEnd, _NOTIFY),
    "context": EventRow(ContextEvent, _CONTEXT),
    "before_provider_request": EventRow(BeforeProviderRequest, _PROVIDER_REQUEST),
    "model_select": EventRow(ModelSelect, _NOTIFY),
}
