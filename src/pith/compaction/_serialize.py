"""A conversation as plain text for the summarizer, as Pi writes it.

The summarizer reads the conversation as data inside its prompt, not as turns to answer, so
each message becomes one labelled paragraph. The labels and the tool-result cut are the same
as Pi's: the text is what the model reads, and a session summarized by either agent should
read alike. Thinking is left out, as in Pi 1.6.
"""

from __future__ import annotations

from collections.abc import Sequence

from pith.agent import convert_to_llm
from pith.ai import (
    AgentMessage,
    AssistantMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    content_text,
    js_length,
    js_object_keys,
    js_stringify,
)
from pith.tools import slice_head

__all__ = ["TOOL_RESULT_MAX_CHARS", "serialize_conversation", "truncate_for_summary"]

TOOL_RESULT_MAX_CHARS = 2000
"""Tool results are cut to this many characters (UTF-16 units) in the summarizer's input."""


def truncate_for_summary(text: str, max_chars: int = TOOL_RESULT_MAX_CHARS) -> str:
    """The head of `text` with a note of how many characters were cut."""
    length = js_length(text)
    if length <= max_chars:
        return text
    return f"{slice_head(text, max_chars)}\n\n[... {length - max_chars} more characters truncated]"


def _tool_call(call: ToolCall) -> str:
    arguments = call.arguments
    rendered = ", ".join(
        f"{key}={js_stringify(arguments[key])}" for key in js_object_keys(arguments)
    )
    return f"{call.name}({rendered})"


def serialize_conversation(messages: Sequence[AgentMessage]) -> str:
    """The messages as `[User]: …`, `[Assistant]: …`, `[Assistant tool calls]: name(k=v, …); …`
    and `[Tool result]: …` paragraphs separated by blank lines.

    Coding-agent messages (`!` commands, custom messages, summaries) are first turned into
    what the model sees (`convert_to_llm`); system messages and thinking are left out; a tool
    result longer than 2000 characters is cut with a note.
    """
    parts: list[str] = []
    for message in convert_to_llm(list(messages)):
        if isinstance(message, UserMessage):
            text = content_text(message.content, "")
            if text:
                parts.append(f"[User]: {text}")
        elif isinstance(message, AssistantMessage):
            content = message.content
            if any(isinstance(block, TextContent) for block in content):
                parts.append(f"[Assistant]: {content_text(content, chr(10))}")
            calls = [_tool_call(block) for block in content if isinstance(block, ToolCall)]
            if calls:
                parts.append(f"[Assistant tool calls]: {'; '.join(calls)}")
        elif isinstance(message, ToolResultMessage):
            text = content_text(message.content, "")
            if text:
                parts.append(f"[Tool result]: {truncate_for_summary(text)}")
    return "\n\n".join(parts)
