"""Handlers mypy --strict must refuse: each line marked `# refused` is one mistake."""

from __future__ import annotations

from pith.extensions import ExtensionAPI, ExtensionContext, ToolCallDecision
from pith.extensions.events import Input, ToolCallEvent, ToolResultEvent


def register(api: ExtensionAPI) -> None:
    def wrong_payload(event: ToolResultEvent, ctx: ExtensionContext) -> None:
        pass

    def wrong_answer(event: ToolCallEvent, ctx: ExtensionContext) -> str:
        return "block"

    def wrong_context(event: Input, ctx: str) -> None:
        pass

    def decision(event: ToolCallEvent, ctx: ExtensionContext) -> ToolCallDecision:
        return ToolCallDecision(block=True)

    api.on("tool_call", wrong_payload)  # refused
    api.on("tool_call", wrong_answer)  # refused
    api.on("input", wrong_context)  # refused
    api.on("input", decision)  # refused
    api.on("tool_cal", decision)  # refused
    api.on("tool_call", decision, copy=False)  # refused
    api.on("input", lambda event, ctx: event.tool_name)  # refused
