"""Session-level events (on top of the agent's) and their JSON form for `--mode json`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pith.agent import (
    AgentEnd,
    AgentEvent,
    AgentStart,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    ToolResult,
    TurnEnd,
    TurnStart,
)
from pith.ai import (
    UNSET,
    TextEnd,
    ThinkingEnd,
    ToolCallEnd,
    ToolCallStart,
    to_builtins,
)

__all__ = [
    "AgentSettled",
    "AutoRetryEnd",
    "AutoRetryStart",
    "CompactionEnd",
    "CompactionReason",
    "CompactionResult",
    "CompactionStart",
    "SessionEvent",
    "event_to_json",
    "retry_notice",
]


@dataclass
class AutoRetryStart:
    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str
    type: Literal["auto_retry_start"] = "auto_retry_start"


@dataclass
class AutoRetryEnd:
    success: bool
    attempt: int
    final_error: str | None = None
    type: Literal["auto_retry_end"] = "auto_retry_end"


def retry_notice(event: AutoRetryStart) -> str:
    """What the user is told when a failed request is about to be retried: why, how long the
    wait is, and which attempt comes next (the same words in every mode)."""
    seconds = event.delay_ms / 1000
    wait = f"{round(seconds)}" if seconds >= 10 else f"{seconds:.3g}"
    return (
        f"The request failed ({event.error_message}); retrying in {wait} s "
        f"(attempt {event.attempt} of {event.max_attempts})."
    )


@dataclass
class AgentSettled:
    """The session is idle: no run, no retry, nothing queued."""

    aborted: bool
    type: Literal["agent_settled"] = "agent_settled"


CompactionReason = Literal["manual", "threshold", "overflow"]


@dataclass
class CompactionStart:
    reason: CompactionReason
    type: Literal["compaction_start"] = "compaction_start"


@dataclass
class CompactionResult:
    summary: str
    first_kept_entry_id: str
    tokens_before: int
    estimated_tokens_after: int
    details: object = None


@dataclass
class CompactionEnd:
    reason: CompactionReason
    result: CompactionResult | None = None
    aborted: bool = False
    will_retry: bool = False
    error_message: str | None = None
    """Why no compaction was written (a failed summary, nothing to compact, cancelled)."""
    type: Literal["compaction_end"] = "compaction_end"


SessionEvent = (
    AgentEvent | AutoRetryStart | AutoRetryEnd | AgentSettled | CompactionStart | CompactionEnd
)


def _result(result: ToolResult) -> dict[str, object]:
    out: dict[str, object] = {"content": to_builtins(result.content)}
    if result.details is not UNSET:
        out["details"] = to_builtins(result.details)
    return out


def _stream_event(event: MessageUpdate) -> dict[str, object]:
    inner = event.event
    out: dict[str, object] = {"type": inner.type}
    index = getattr(inner, "content_index", None)
    if index is not None:
        out["contentIndex"] = index
    if isinstance(inner, ToolCallStart):
        out["id"] = inner.id
        out["toolName"] = inner.tool_name
    elif isinstance(inner, ToolCallEnd):
        out["toolCall"] = to_builtins(inner.tool_call)
    elif isinstance(inner, TextEnd | ThinkingEnd):
        out["content"] = inner.content
    else:
        delta = getattr(inner, "delta", None)
        if delta is not None:
            out["delta"] = delta
    return out


def event_to_json(event: SessionEvent, *, will_retry: bool = False) -> dict[str, object]:
    """One event in Pi's JSON shape (`message_update` carries only the delta and usage)."""
    if isinstance(event, AgentStart | TurnStart):
        return {"type": event.type}
    if isinstance(event, MessageStart | MessageEnd):
        return {"type": event.type, "message": to_builtins(event.message)}
    if isinstance(event, MessageUpdate):
        return {
            "type": "message_update",
            "usage": to_builtins(event.message.usage),
            "assistantMessageEvent": _stream_event(event),
        }
    if isinstance(event, ToolExecutionStart):
        return {
            "type": event.type,
            "toolCallId": event.tool_call_id,
            "toolName": event.tool_name,
            "args": event.args,
        }
    if isinstance(event, ToolExecutionUpdate):
        return {
            "type": event.type,
            "toolCallId": event.tool_call_id,
            "toolName": event.tool_name,
            "args": event.args,
            "partialResult": _result(event.partial_result),
        }
    if isinstance(event, ToolExecutionEnd):
        out: dict[str, object] = {
            "type": event.type,
            "toolCallId": event.tool_call_id,
            "toolName": event.tool_name,
            "result": _result(event.result),
            "isError": event.is_error,
        }
        if event.duration_ms is not None:
            out["durationMs"] = event.duration_ms
        return out
    if isinstance(event, TurnEnd):
        return {
            "type": event.type,
            "message": to_builtins(event.message),
            "toolResults": to_builtins(event.tool_results),
        }
    if isinstance(event, AgentEnd):
        return {
            "type": event.type,
            "messages": to_builtins(event.messages),
            "willRetry": will_retry,
        }
    if isinstance(event, AutoRetryStart):
        return {
            "type": event.type,
            "attempt": event.attempt,
            "maxAttempts": event.max_attempts,
            "delayMs": event.delay_ms,
            "errorMessage": event.error_message,
        }
    if isinstance(event, AutoRetryEnd):
        out = {"type": event.type, "success": event.success, "attempt": event.attempt}
        if event.final_error is not None:
            out["finalError"] = event.final_error
        return out
    if isinstance(event, CompactionStart):
        return {"type": event.type, "reason": event.reason}
    if isinstance(event, CompactionEnd):
        out = {
            "type": event.type,
            "reason": event.reason,
            "aborted": event.aborted,
            "willRetry": event.will_retry,
        }
        if event.result is not None:
            result = event.result
            out["result"] = {
                "summary": result.summary,
                "firstKeptEntryId": result.first_kept_entry_id,
                "tokensBefore": result.tokens_before,
                "estimatedTokensAfter": result.estimated_tokens_after,
                "details": to_builtins(result.details),
            }
        if event.error_message is not None:
            out["errorMessage"] = event.error_message
        return out
    return {"type": event.type, "aborted": event.aborted}
