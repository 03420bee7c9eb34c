"""The agent loop's hooks, answered by extensions: one place maps each hook to its event."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from pith.agent import AfterHook, BeforeHook, BlockDecision, MessageEnd, Tool, ToolResult
from pith.ai import UNSET, AgentMessage, ToolCall
from pith.extensions import ExtensionRunner
from pith.extensions.events import ContextEvent, ToolCallEvent, ToolResultEvent

__all__ = ["history_hooks", "tool_hooks"]

ContextHook = Callable[[list[AgentMessage]], Awaitable[list[AgentMessage]]]
MessageHook = Callable[[AgentMessage], Awaitable[AgentMessage | None]]


def history_hooks(runner: ExtensionRunner) -> tuple[ContextHook, MessageHook]:
    """`context` before each request (this request's messages) and `message_end` before a
    message is recorded (a replacement of the same role)."""

    def context(messages: list[AgentMessage]) -> Awaitable[list[AgentMessage]]:
        return runner.emit(ContextEvent(messages))

    def message_end(message: AgentMessage) -> Awaitable[AgentMessage | None]:
        return runner.emit(MessageEnd(message))

    return context, message_end


def tool_hooks(runner: ExtensionRunner) -> tuple[BeforeHook, AfterHook]:
    """`tool_call` before a tool runs (may block; may change the arguments in place) and
    `tool_result` after it (may patch the result)."""

    async def before(tool: Tool, call: ToolCall, args: dict[str, object]) -> BlockDecision | None:
        if not runner.has_handlers("tool_call"):
            return None
        decision = await runner.emit(ToolCallEvent(call.name, call.id, args))
        if decision is None or not decision.block:
            return None
        return BlockDecision(decision.reason, decision.terminate)

    async def after(
        tool: Tool, call: ToolCall, args: dict[str, object], result: ToolResult
    ) -> ToolResult | None:
        if not runner.has_handlers("tool_result"):
            return None
        details = None if result.details is UNSET else result.details
        event = ToolResultEvent(
            call.name, call.id, args, list(result.content), details, result.is_error
        )
        patch = await runner.emit(event)
        if patch is None:
            return None
        return ToolResult(
            content=list(event.content),
            details=UNSET if event.details is None else event.details,
            is_error=event.is_error,
            terminate=result.terminate,
        )

    return before, after
