"""How many output tokens a request may ask for: pi-ai's input estimate and its window clamp.

Pi 1.6 caps every request's `max_tokens` so that the estimated input plus the output fit the
model's context window with a safety margin (pi-ai `api/simple-options.js`,
`clampMaxTokensToContext`); small-window local models (Ollama, llama.cpp) would otherwise reject
the request. The input estimate is pi-ai's (`utils/estimate.js`), not the coding agent's
compaction estimate (`pith.compaction.tokens`, 4 characters per token): 3.5 characters per
token, an image as 4800 characters, and the last usable reported usage plus estimates of the
messages after it.

pith keeps the system prompt and the tools beside the messages (`Context.system_prompt`,
`Context.tools`) where pi-ai folds them into a leading system message (`normalizeContext`:
timestamp 0, the prompt as its text, the tool declarations as `toolsAdded`); they are counted as
that message would be, so the figures equal Pi's. Lengths are JavaScript string lengths (UTF-16
code units) of the text and of `JSON.stringify` output.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import accumulate

from pith.ai._js_json import js_length, js_stringify
from pith.ai._messages import (
    AssistantMessage,
    ImageContent,
    Message,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pith.ai._models import Model
from pith.ai._stream import Context, ToolSpec

__all__ = [
    "CHARS_PER_TOKEN",
    "CONTEXT_SAFETY_RATIO",
    "CONTEXT_SAFETY_TOKENS",
    "MIN_OUTPUT_WITH_RATIO_MARGIN",
    "clamp_max_tokens",
    "clamp_max_tokens_to_context",
    "estimate_input_tokens",
]

CHARS_PER_TOKEN = 3.5
ESTIMATED_IMAGE_CHARS = 4800
CONTEXT_SAFETY_TOKENS = 4096
"""Always left free besides the input."""
CONTEXT_SAFETY_RATIO = 0.15
"""Kept free in proportion to the input: OpenRouter counted prose up to 12% above the
provider's tokenizer and rejects input + max_tokens above the window (Pi's #10497)."""
MIN_OUTPUT_WITH_RATIO_MARGIN = 32768
"""The proportional margin is kept only while it leaves this much output; otherwise only the
fixed margin is, and the output is capped at this size."""


def _tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


def _content_chars(content: str | Sequence[TextContent | ImageContent]) -> int:
    if isinstance(content, str):
        return js_length(content)
    return sum(
        js_length(block.text) if isinstance(block, TextContent) else ESTIMATED_IMAGE_CHARS
        for block in content
    )


def _tools_tokens(tools: Sequence[object] | None) -> int:
    """`JSON.stringify(tools)` in tokens; 0 for no tools."""
    return _tokens(js_length(js_stringify(list(tools)))) if tools else 0


def _system_text(message: SystemMessage) -> str:
    """Pi's `getSystemMessageText`: the content, then each section, joined by blank lines."""
    content = message.content
    text = content if isinstance(content, str) else "\n".join(block.text for block in content)
    parts = [text, *(value for value in (message.sections or {}).values() if value is not None)]
    return "\n\n".join(part for part in parts if part)


def _message_tokens(message: Message) -> int:
    """pi-ai's `estimateMessageTokens` of one provider message."""
    if isinstance(message, SystemMessage):
        return (
            _tokens(js_length(_system_text(message)))
            + _tools_tokens(message.tools_added or None)
            + _tools_tokens(message.tools_removed or None)
        )
    if isinstance(message, UserMessage | ToolResultMessage):
        return _tokens(_content_chars(message.content))
    chars = 0
    for block in message.content:
        if isinstance(block, TextContent):
            chars += js_length(block.text)
        elif isinstance(block, ThinkingContent):
            chars += js_length(block.thinking)
        else:
            chars += js_length(block.name) + js_length(js_stringify(block.arguments))
    return _tokens(chars)


def _declaration(tool: ToolSpec) -> dict[str, object]:
    """The tool as pi-ai declares it to the model (`toToolDeclaration`)."""
    return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}


def _head_tokens(context: Context) -> int:
    """Tokens of the leading system message pi-ai makes of the prompt and the tools."""
    declarations = [_declaration(tool) for tool in context.tools]
    return _tokens(js_length(context.system_prompt)) + _tools_tokens(declarations)


def _usage_tokens(usage: Usage) -> int:
    return usage.total_tokens or (usage.input + usage.output + usage.cache_read + usage.cache_write)


def _last_usage(messages: Sequence[Message], head: bool) -> tuple[int, int] | None:
    """`(index, tokens)` of the last reply whose usage still measures the context: not aborted,
    not an error, reporting tokens, and not older than any message before it (a newer message
    inserted in front of it, such as a compaction summary, means its usage measured a context
    that no longer exists)."""
    # newest[i]: the newest timestamp before message i; the folded system message is stamped 0.
    newest = list(
        accumulate((m.timestamp for m in messages), max, initial=0 if head else -math.inf)
    )
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if (
            isinstance(message, AssistantMessage)
            and message.stop_reason != "aborted"
            and message.stop_reason != "error"
            and message.timestamp >= newest[index]
        ):
            tokens = _usage_tokens(message.usage)
            if tokens > 0:
                return index, tokens
    return None


def estimate_input_tokens(context: Context) -> int:
    """pi-ai's estimate of a request's input in tokens (`estimateContextTokens`).

    The last usable reported usage plus an estimate of every later message; without one, every
    message estimated, the system prompt and the tool declarations included.
    """
    head = bool(context.system_prompt or context.tools)
    messages = context.messages
    last = _last_usage(messages, head)
    if last is None:
        estimated = sum(_message_tokens(message) for message in messages)
        return estimated + (_head_tokens(context) if head else 0)
    index, tokens = last
    return tokens + sum(_message_tokens(message) for message in messages[index + 1 :])


def clamp_max_tokens(max_tokens: int, *, context_window: int, input_tokens: int) -> int:
    """`max_tokens` lowered so that `input_tokens` plus the output fit `context_window` with
    Pi's safety margin (the larger of 4096 tokens and 15% of the input; only the 4096 when the
    15% would leave less than 32768 tokens of output, and then at most 32768). At least 1 when
    `max_tokens` is, even when nothing fits; an unknown window (<= 0) clamps nothing."""
    if context_window <= 0:
        return max(1, max_tokens)
    margin = max(CONTEXT_SAFETY_TOKENS, math.ceil(input_tokens * CONTEXT_SAFETY_RATIO))
    room = context_window - input_tokens - margin
    if room < MIN_OUTPUT_WITH_RATIO_MARGIN:
        room = min(
            MIN_OUTPUT_WITH_RATIO_MARGIN, context_window - input_tokens - CONTEXT_SAFETY_TOKENS
        )
    return min(max_tokens, max(1, room))


def clamp_max_tokens_to_context(model: Model, context: Context, max_tokens: int) -> int:
    """The output limit a request to `model` with `context` asks for when `max_tokens` is
    wanted: `clamp_max_tokens` with the model's window and `estimate_input_tokens(context)`
    (Pi's `clampMaxTokensToContext`)."""
    if model.context_window <= 0:
        return max(1, max_tokens)
    return clamp_max_tokens(
        max_tokens, context_window=model.context_window, input_tokens=estimate_input_tokens(context)
    )
