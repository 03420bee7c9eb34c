"""What a provider receives (a `Context`) and what it streams back (`StreamEvent`s).

Every provider stream ends with exactly one `DoneEvent` or `ErrorEvent` and never raises: a
failure becomes an assistant message with `stopReason` `error` (or `aborted`) and an
`errorMessage`, so the agent loop and session always have a message to record.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from pith.ai._messages import AssistantMessage, Message, ToolCall
from pith.ai._models import Model, ThinkingLevel

__all__ = [
    "Context",
    "DoneEvent",
    "ErrorEvent",
    "PayloadHook",
    "Provider",
    "StartEvent",
    "StreamEvent",
    "StreamOptions",
    "TextDelta",
    "TextEnd",
    "TextStart",
    "ThinkingDelta",
    "ThinkingEnd",
    "ThinkingStart",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "ToolSpec",
    "apply_payload_hook",
]


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model sees it."""

    name: str
    description: str
    parameters: dict[str, object]


@dataclass
class Context:
    system_prompt: str
    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)


class AbortLike(Protocol):
    @property
    def aborted(self) -> bool: ...

    def on_abort(self, callback: Callable[[], None]) -> Callable[[], None]: ...


PayloadHook = Callable[
    [dict[str, object]], dict[str, object] | Awaitable[dict[str, object] | None] | None
]


@dataclass
class StreamOptions:
    api_key: str | None = None
    signal: AbortLike | None = None
    max_tokens: int | None = None
    """Output cap; None means the model's `max_tokens`."""
    thinking: ThinkingLevel = "off"
    headers: dict[str, str] = field(default_factory=dict)
    temperature: float | None = None
    session_id: str | None = None
    timeout_seconds: float | None = None
    on_payload: PayloadHook | None = None
    """Sees (and may replace) the request body before it is sent; may be async."""
    cache_retention: Literal["short", "none"] = "short"
    """`none` for a one-off request no later request repeats (a summary of a transcript):
    Anthropic then gets no `cache_control` breakpoints, so it bills no cache write (1.25x the
    input price) for a prefix that is never read."""


async def apply_payload_hook(options: StreamOptions, body: dict[str, object]) -> dict[str, object]:
    """The body after `options.on_payload` (itself when there is no hook or it returns None)."""
    if options.on_payload is None:
        return body
    replaced = options.on_payload(body)
    if inspect.isawaitable(replaced):
        replaced = await replaced
    return body if replaced is None else replaced


@dataclass
class StartEvent:
    partial: AssistantMessage
    type: Literal["start"] = "start"


@dataclass
class TextStart:
    content_index: int
    partial: AssistantMessage
    type: Literal["text_start"] = "text_start"


@dataclass
class TextDelta:
    content_index: int
    delta: str
    partial: AssistantMessage
    type: Literal["text_delta"] = "text_delta"


@dataclass
class TextEnd:
    content_index: int
    content: str
    partial: AssistantMessage
    type: Literal["text_end"] = "text_end"


@dataclass
class ThinkingStart:
    content_index: int
    partial: AssistantMessage
    type: Literal["thinking_start"] = "thinking_start"


@dataclass
class ThinkingDelta:
    content_index: int
    delta: str
    partial: AssistantMessage
    type: Literal["thinking_delta"] = "thinking_delta"


@dataclass
class ThinkingEnd:
    content_index: int
    content: str
    partial: AssistantMessage
    type: Literal["thinking_end"] = "thinking_end"


@dataclass
class ToolCallStart:
    content_index: int
    id: str
    tool_name: str
    partial: AssistantMessage
    type: Literal["toolcall_start"] = "toolcall_start"


@dataclass
class ToolCallDelta:
    content_index: int
    delta: str
    partial: AssistantMessage
    type: Literal["toolcall_delta"] = "toolcall_delta"


@dataclass
class ToolCallEnd:
    content_index: int
    tool_call: ToolCall
    partial: AssistantMessage
    type: Literal["toolcall_end"] = "toolcall_end"


@dataclass
class DoneEvent:
    message: AssistantMessage
    type: Literal["done"] = "done"

    @property
    def reason(self) -> str:
        return self.message.stop_reason


@dataclass
class ErrorEvent:
    message: AssistantMessage
    retry_after_seconds: float | None = None
    """The server's Retry-After, when it sent one."""
    type: Literal["error"] = "error"

    @property
    def reason(self) -> str:
        return self.message.stop_reason


StreamEvent = (
    StartEvent
    | TextStart
    | TextDelta
    | TextEnd
    | ThinkingStart
    | ThinkingDelta
    | ThinkingEnd
    | ToolCallStart
    | ToolCallDelta
    | ToolCallEnd
    | DoneEvent
    | ErrorEvent
)


class Provider(Protocol):
    """Streams one assistant reply for `context` from `model`."""

    def stream(
        self, model: Model, context: Context, options: StreamOptions
    ) -> AsyncIterator[StreamEvent]: ...
