"""What every request converter does to a transcript before shaping it for one API (pure).

The strict APIs (Anthropic, Gemini, OpenAI Responses) all need the same repairs, so they live
here once: failed replies dropped, unanswered tool calls closed with an error result, results
that answer nothing dropped; text without lone surrogates; images replaced by a placeholder for
models that cannot see them; tool call ids another model wrote made acceptable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pith.ai._messages import (
    AssistantMessage,
    ImageContent,
    Message,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
)
from pith.ai._models import Model

__all__ = [
    "NO_RESULT",
    "TOOL_IMAGE_OMITTED",
    "USER_IMAGE_OMITTED",
    "clean_text",
    "normalise_transcript",
    "safe_tool_id",
    "same_model",
    "without_images",
]

NO_RESULT = "No result provided"
USER_IMAGE_OMITTED = "(image omitted: model does not support images)"
TOOL_IMAGE_OMITTED = "(tool image omitted: model does not support images)"

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_TOOL_ID_INVALID = re.compile(r"[^a-zA-Z0-9_-]")


def clean_text(text: str) -> str:
    """`text` without lone surrogates (from a broken tool output), which would make the JSON
    body invalid UTF-8."""
    return _LONE_SURROGATE.sub("", text)


def safe_tool_id(call_id: str) -> str:
    """A tool call id as the strict APIs accept it: `[a-zA-Z0-9_-]`, at most 64 characters."""
    return _TOOL_ID_INVALID.sub("_", call_id)[:64]


def same_model(message: AssistantMessage, model: Model) -> bool:
    """Whether `model` wrote `message` (then its signatures and item ids are valid)."""
    return (
        message.provider == model.provider
        and message.api == model.api
        and message.model == model.id
    )


def without_images(
    content: Sequence[TextContent | ImageContent], placeholder: str
) -> list[TextContent | ImageContent]:
    """`content` with each run of images replaced by one `placeholder` text block."""
    out: list[TextContent | ImageContent] = []
    for block in content:
        if isinstance(block, ImageContent):
            if not (out and isinstance(out[-1], TextContent) and out[-1].text == placeholder):
                out.append(TextContent(text=placeholder))
        else:
            out.append(block)
    return out


def _system_text(message: SystemMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "\n".join(block.text for block in message.content)


def normalise_transcript(messages: Sequence[Message]) -> tuple[list[Message], list[str]]:
    """The transcript the strict APIs accept, and the texts of system messages (folded into
    the system prompt by the caller).

    Drops failed or aborted replies (their partial blocks cannot be replayed), answers tool
    calls left without a result with an error result, and drops results that do not answer a
    call of the reply just before them.
    """
    out: list[Message] = []
    system: list[str] = []
    pending: list[ToolCall] = []
    answered: set[str] = set()

    def close_pending() -> None:
        for call in pending:
            if call.id not in answered:
                out.append(
                    ToolResultMessage(
                        tool_call_id=call.id,
                        tool_name=call.name,
                        content=[TextContent(text=NO_RESULT)],
                        is_error=True,
                    )
                )
        pending.clear()
        answered.clear()

    for message in messages:
        if isinstance(message, SystemMessage):
            text = _system_text(message)
            if text:
                system.append(text)
        elif isinstance(message, AssistantMessage):
            close_pending()
            if message.stop_reason in ("error", "aborted"):
                continue
            pending.extend(message.tool_calls())
            out.append(message)
        elif isinstance(message, ToolResultMessage):
            if any(call.id == message.tool_call_id for call in pending):
                answered.add(message.tool_call_id)
                out.append(message)
        else:
            close_pending()
            out.append(message)
    close_pending()
    return out, system
