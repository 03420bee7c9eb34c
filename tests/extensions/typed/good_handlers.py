"""An extension mypy --strict accepts: each handler matches its event's signature."""

from __future__ import annotations

from pith.ai import AgentMessage
from pith.extensions import (
    ContextResult,
    ExtensionAPI,
    ExtensionContext,
    InputResult,
    ToolCallDecision,
    ToolResultPatch,
)
from pith.extensions.events import (
    BeforeProviderRequest,
    ContextEvent,
    Input,
    SessionStart,
    ToolCallEvent,
    ToolResultEvent,
)


def register(api: ExtensionAPI) -> None:
    def no_rm(event: ToolCallEvent, ctx: ExtensionContext) -> ToolCallDecision | None:
        if "rm " in str(event.input.get("command", "")):
            return ToolCallDecision(block=True, reason="no rm here")
        return None

    async def shout(event: Input, ctx: ExtensionContext) -> InputResult:
        return InputResult("transform", event.text.upper())

    def greet(event: SessionStart, ctx: ExtensionContext) -> None:
        ctx.ui.notify(f"started ({event.reason})")

    def keep(event: ContextEvent, ctx: ExtensionContext) -> list[AgentMessage]:
        return event.messages

    def last_two(event: ContextEvent, ctx: ExtensionContext) -> ContextResult:
        return ContextResult(event.messages[-2:])

    def quiet(event: ToolResultEvent, ctx: ExtensionContext) -> ToolResultPatch:
        return ToolResultPatch(is_error=False)

    def cheaper(event: BeforeProviderRequest, ctx: ExtensionContext) -> dict[str, object]:
        return {**event.payload, "max_tokens": 100}

    def as_dict(event: ToolCallEvent, ctx: ExtensionContext) -> dict[str, object]:
        return {"block": event.tool_name == "write"}

    def anything(event: object, ctx: object) -> None:
        pass

    api.on("tool_call", no_rm)
    api.on("tool_call", as_dict)
    api.on("tool_call", lambda event, ctx: ToolCallDecision(block=event.tool_name == "bash"))
    api.on("input", shout)
    api.on("session_start", greet)
    api.on("context", keep, copy=False)
    api.on("context", last_two)
    api.on("tool_result", quiet)
    api.on("before_provider_request", cheaper)
    api.on("turn_end", anything)
    api.on("agent_end", lambda event, ctx: ctx.ui.notify(f"{len(event.messages)} messages"))
