"""Content blocks and messages, in Pi's JSON shapes (docs/sessions.md).

Optional Pi fields default to `UNSET`: absent in the input means absent in the output, so a
session written by Pi round-trips byte-for-byte in meaning. Timestamps inside messages are epoch
milliseconds.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import ClassVar, Literal

import msgspec

from pith.ai._wire import UNSET, UnsetType, WireStruct

__all__ = [
    "AgentMessage",
    "AssistantContent",
    "AssistantMessage",
    "BashExecutionMessage",
    "BranchSummaryMessage",
    "CompactionSummaryMessage",
    "Cost",
    "CustomMessage",
    "ImageContent",
    "Message",
    "StopReason",
    "SystemMessage",
    "TextContent",
    "ThinkingContent",
    "ToolCall",
    "ToolResultContent",
    "ToolResultMessage",
    "Usage",
    "UserContent",
    "UserMessage",
    "content_text",
    "current_system_message",
    "now_ms",
]

StopReason = Literal["stop", "length", "toolUse", "error", "aborted", "pending", "deferred"]

JsonNumber = int | float


def now_ms() -> int:
    """The current time as epoch milliseconds, the unit of every message timestamp."""
    return time.time_ns() // 1_000_000


# --- content blocks -------------------------------------------------------------------------


class TextContent(WireStruct, tag_field="type", tag="text"):
    text: str
    text_signature: str | UnsetType = UNSET


class ImageContent(WireStruct, tag_field="type", tag="image"):
    data: str
    """Base64-encoded image bytes."""
    mime_type: str


class ThinkingContent(WireStruct, tag_field="type", tag="thinking"):
    thinking: str
    thinking_signature: str | UnsetType = UNSET
    redacted: bool | UnsetType = UNSET


class ToolCall(WireStruct, tag_field="type", tag="toolCall"):
    id: str
    name: str
    arguments: dict[str, object] = msgspec.field(default_factory=dict)
    thought_signature: str | UnsetType = UNSET
    namespace: str | UnsetType = UNSET
    arguments_error: str | UnsetType = UNSET
    """Set when the model's arguments text was not a JSON object; `arguments` is then `{}`."""


UserContent = TextContent | ImageContent
ToolResultContent = TextContent | ImageContent
AssistantContent = TextContent | ThinkingContent | ToolCall


# --- usage ----------------------------------------------------------------------------------


class Cost(WireStruct):
    input: JsonNumber = 0
    output: JsonNumber = 0
    cache_read: JsonNumber = 0
    cache_write: JsonNumber = 0
    total: JsonNumber = 0
    total_from_provider: bool | UnsetType = UNSET


class Usage(WireStruct):
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cache_write1h: int | UnsetType = msgspec.field(default=UNSET, name="cacheWrite1h")
    reasoning: int | UnsetType = UNSET
    """Reasoning tokens; already counted in `output`."""
    total_tokens: int = 0
    cost: Cost = msgspec.field(default_factory=Cost)


# --- messages -------------------------------------------------------------------------------


class SystemMessage(WireStruct, tag_field="role", tag="system"):
    role: ClassVar[str] = "system"
    content: str | list[TextContent]
    sections: dict[str, str | None] | UnsetType = UNSET
    tools_added: list[dict[str, object]] | UnsetType = UNSET
    tools_removed: list[dict[str, object]] | UnsetType = UNSET
    timestamp: JsonNumber = msgspec.field(default_factory=now_ms)


class UserMessage(WireStruct, tag_field="role", tag="user"):
    role: ClassVar[str] = "user"
    content: str | list[UserContent]
    timestamp: JsonNumber = msgspec.field(default_factory=now_ms)


class AssistantMessage(WireStruct, tag_field="role", tag="assistant"):
    role: ClassVar[str] = "assistant"
    content: list[AssistantContent] = msgspec.field(default_factory=list)
    api: str = ""
    provider: str = ""
    model: str = ""
    response_model: str | UnsetType = UNSET
    response_id: str | UnsetType = UNSET
    provider_thinking_level: str | UnsetType = UNSET
    thinking_level: str | UnsetType = UNSET
    diagnostics: list[object] | UnsetType = UNSET
    usage: Usage = msgspec.field(default_factory=Usage)
    stop_reason: StopReason = "stop"
    deferred: object | UnsetType = UNSET
    error_message: str | UnsetType = UNSET
    raw_stop_reason: str | UnsetType = UNSET
    end_turn: bool | UnsetType = UNSET
    timestamp: JsonNumber = msgspec.field(default_factory=now_ms)
    duration_ms: JsonNumber | UnsetType = UNSET

    def text(self) -> str:
        """The concatenated text blocks of this message."""
        return "".join(block.text for block in self.content if isinstance(block, TextContent))

    def tool_calls(self) -> list[ToolCall]:
        """The tool calls of this message, in the order the model made them."""
        return [block for block in self.content if isinstance(block, ToolCall)]


class ToolResultMessage(WireStruct, tag_field="role", tag="toolResult"):
    role: ClassVar[str] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[ToolResultContent] = msgspec.field(default_factory=list)
    details: object | UnsetType = UNSET
    usage: Usage | UnsetType = UNSET
    nested_calls: dict[str, object] | UnsetType = UNSET
    is_error: bool = False
    timestamp: JsonNumber = msgspec.field(default_factory=now_ms)
    duration_ms: JsonNumber | UnsetType = UNSET


class BashExecutionMessage(WireStruct, tag_field="role", tag="bashExecution"):
    """A command the user ran with `!cmd` (or `!!cmd`, kept out of the model's context)."""

    role: ClassVar[str] = "bashExecution"
    command: str
    output: str
    exit_code: int | UnsetType | None = UNSET
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | UnsetType = UNSET
    timestamp: JsonNumber = msgspec.field(default_factory=now_ms)
    exclude_from_context: bool | UnsetType = UNSET


class CustomMessage(WireStruct, tag_field="role", tag="custom"):
    """A message an extension put into the context; sent to the model as user text."""

    role: ClassVar[str] = "custom"
    custom_type: str
    content: str | list[UserContent]
    display: bool = True
    details: object | UnsetType = UNSET
    timestamp: JsonNumber = msgspec.field(default_factory=now_ms)


class BranchSummaryMessage(WireStruct, tag_field="role", tag="branchSummary"):
    role: ClassVar[str] = "branchSummary"
    summary: str
    from_id: str | None
    timestamp: JsonNumber = msgspec.field(default_factory=now_ms)


class CompactionSummaryMessage(WireStruct, tag_field="role", tag="compactionSummary"):
    role: ClassVar[str] = "compactionSummary"
    summary: str
    tokens_before: int
    timestamp: JsonNumber = msgspec.field(default_factory=now_ms)


Message = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage
"""What a provider understands."""

AgentMessage = (
    SystemMessage
    | UserMessage
    | AssistantMessage
    | ToolResultMessage
    | BashExecutionMessage
    | CustomMessage
    | BranchSummaryMessage
    | CompactionSummaryMessage
)
"""Every message a session holds: the provider roles plus the coding-agent roles."""


def content_text(content: object, separator: str = "") -> str:
    """The text of a message's `content`: a string as it is, the text blocks of a list joined
    with `separator` (images, thinking and tool calls left out); "" for anything else."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return separator.join(block.text for block in content if isinstance(block, TextContent))
    return ""


def current_system_message(messages: Iterable[AgentMessage]) -> SystemMessage | None:
    """The system messages of a context folded into one (Pi's `getCurrentSystemMessage`).

    Texts are joined by a blank line, later sections replace earlier ones (None removes one),
    tools are added and removed in order; the result takes the first message's timestamp.
    None when the context has no system message and declares no tools.
    """
    texts: list[str] = []
    sections: dict[str, str] = {}
    tools: dict[str, dict[str, object]] = {}
    timestamp: JsonNumber | None = None
    for message in messages:
        if not isinstance(message, SystemMessage):
            continue
        if timestamp is None:
            timestamp = message.timestamp
        content = message.content
        text = content if isinstance(content, str) else "\n".join(b.text for b in content)
        if text:
            texts.append(text)
        for name, value in (message.sections or {}).items():
            if value is None:
                sections.pop(name, None)
            else:
                sections[name] = value
        for tool in message.tools_removed or []:
            tools.pop(str(tool.get("name")), None)
        for tool in message.tools_added or []:
            name = str(tool.get("name"))
            tools[name] = tool  # a redefinition keeps its place, as in a JavaScript Map
    if timestamp is None and not tools:
        return None
    folded = SystemMessage(content="\n\n".join(texts), timestamp=timestamp or 0)
    if sections:
        folded.sections = dict(sections)
    if tools:
        folded.tools_added = list(tools.values())
    return folded
