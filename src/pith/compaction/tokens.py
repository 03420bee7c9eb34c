"""Token estimates: characters / 4, per message, as Pi counts them.

Characters are JavaScript string lengths (UTF-16 code units), so estimates equal Pi's for the
same messages; an image counts as 4800 characters.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ImageContent,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
    js_length,
    js_stringify,
    to_builtins,
)

__all__ = [
    "ESTIMATED_IMAGE_CHARS",
    "estimate_context_tokens",
    "estimate_text_tokens",
    "estimate_tokens",
    "estimate_tool_tokens",
    "estimate_total",
    "usage_tokens",
]

ESTIMATED_IMAGE_CHARS = 4800


def _content_chars(content: object) -> int:
    if isinstance(content, str):
        return js_length(content)
    chars = 0
    if isinstance(content, list):
        for block in content:
            if isinstance(block, TextContent) and block.text:
                chars += js_length(block.text)
            elif isinstance(block, ImageContent):
                chars += ESTIMATED_IMAGE_CHARS
    return chars


def _json_chars(value: object) -> int:
    """`JSON.stringify(value).length`."""
    return js_length(js_stringify(value))


def estimate_tokens(message: AgentMessage) -> int:
    """Estimated tokens of one message: ceil(characters / 4)."""
    if isinstance(message, SystemMessage):
        chars = _content_chars(message.content)
        if isinstance(message.sections, dict):
            chars += sum(js_length(text) for text in message.sections.values() if text)
        if isinstance(message.tools_added, list):
            chars += _json_chars(to_builtins(message.tools_added))
    elif isinstance(message, UserMessage | CustomMessage | ToolResultMessage):
        chars = _content_chars(message.content)
    elif isinstance(message, AssistantMessage):
        chars = 0
        for block in message.content:
            if isinstance(block, TextContent):
                chars += js_length(block.text)
            elif isinstance(block, ThinkingContent):
                chars += js_length(block.thinking)
            elif isinstance(block, ToolCall):
                chars += js_length(block.name) + _json_chars(block.arguments)
    elif isinstance(message, BashExecutionMessage):
        chars = js_length(message.command) + js_length(message.output)
    else:
        assert isinstance(message, BranchSummaryMessage | CompactionSummaryMessage)
        chars = js_length(message.summary)
    return math.ceil(chars / 4)


def estimate_text_tokens(text: str) -> int:
    """Estimated tokens of plain text (a system prompt, a tool schema)."""
    return math.ceil(js_length(text) / 4)


def estimate_tool_tokens(tool: ToolSpec) -> int:
    """Estimated tokens of one tool definition: its name, description and parameter schema
    as one JSON object, the figure `pith context` shows per tool."""
    definition = {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
    return estimate_text_tokens(json.dumps(definition))


def estimate_total(messages: Sequence[AgentMessage]) -> int:
    return sum(estimate_tokens(message) for message in messages)


def usage_tokens(message: AssistantMessage) -> int:
    """The context size a reply reports: `totalTokens`, or the sum of its parts when 0."""
    usage = message.usage
    return usage.total_tokens or (usage.input + usage.output + usage.cache_read + usage.cache_write)


def estimate_context_tokens(messages: Sequence[AgentMessage]) -> int:
    """The context's size in tokens: the last usable reported usage plus an estimate of every
    later message; all estimated when no reply reported usage (Pi's estimateContextTokens).

    Usable means a reply that was neither aborted nor an error and reported tokens.
    """
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if (
            isinstance(message, AssistantMessage)
            and message.stop_reason not in ("aborted", "error")
            and usage_tokens(message) > 0
        ):
            return usage_tokens(message) + estimate_total(messages[index + 1 :])
    return estimate_total(messages)
