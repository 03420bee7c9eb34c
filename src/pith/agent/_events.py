"""What the agent loop reports while it runs: Pi's event names, in Pi's order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pith.agent._tool import ToolResult
from pith.ai import AgentMessage, AssistantMessage, StreamEvent, ToolResultMessage

__all__ = [
    "AgentEnd",
    "AgentEvent",
    "AgentStart",
    "MessageEnd",
    "MessageStart",
    "MessageUpdate",
    "ToolExecutionEnd",
    "ToolExecutionStart",
    "ToolExecutionUpdate",
    "TurnEnd",
    "TurnStart",
]


@dataclass
class AgentStart:
    type: Literal["agent_start"] = "agent_start"


@dataclass
class TurnStart:
    turn_index: int = 0
    type: Literal["turn_start"] = "turn_start"


@dataclass
class MessageStart:
    message: AgentMessage
    type: Literal["message_start"] = "message_start"


@dataclass
class MessageUpdate:
    message: AssistantMessage
    event: StreamEvent
    """The provider event: a text, thinking or tool-call delta."""
    type: Literal["message_update"] = "message_update"


@dataclass
class MessageEnd:
    message: AgentMessage
    type: Literal["message_end"] = "message_end"


@dataclass
class ToolExecutionStart:
    tool_call_id: str
    tool_name: str
    args: dict[str, object]
    type: Literal["tool_execution_start"] = "tool_execution_start"


@dataclass
class ToolExecutionUpdate:
    tool_call_id: str
    tool_name: str
    args: dict[str, object]
    partial_result: ToolResult
    type: Literal["tool_execution_update"] = "tool_execution_update"


@dataclass
class ToolExecutionEnd:
    tool_call_id: str
    tool_name: str
    result: ToolResult
    is_error: bool
    duration_ms: int | None = None
    type: Literal["tool_execution_end"] = "tool_execution_end"


@dataclass
class TurnEnd:
    message: AssistantMessage
    tool_results: list[ToolResultMessage] = field(default_factory=list)
    turn_index: int = 0
    type: Literal["turn_end"] = "turn_end"


@dataclass
class AgentEnd:
    messages: list[AgentMessage] = field(default_factory=list)
    """The messages this run added."""
    type: Literal["agent_end"] = "agent_end"


AgentEvent = (
    AgentStart
    | TurnStart
    | MessageStart
    | MessageUpdate
    | MessageEnd
    | ToolExecutionStart
    | ToolExecutionUpdate
    | ToolExecutionEnd
    | TurnEnd
    | AgentEnd
)
