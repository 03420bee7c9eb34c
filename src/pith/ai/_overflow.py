"""Is a failed (or suspiciously successful) response a context overflow? (docs/compaction.md)

Overflow is handled by compaction, never by retrying the same request, so it must be told apart
from rate limits and server errors that merely mention tokens.
"""

from __future__ import annotations

import re

from pith.ai._messages import AssistantMessage

__all__ = ["OVERFLOW_PATTERNS", "is_context_overflow", "is_recoverable_length"]

# What providers say when the input is over the window (or the request over its byte limit).
OVERFLOW_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"prompt (?:is )?too long",  # Anthropic, z.ai
        r"prompt exceeds max length",  # z.ai (CN)
        r"request_too_large",  # Anthropic, HTTP 413
        r"input is too long for requested model",  # Bedrock
        r"exceeds the context window",  # OpenAI
        r"exceeds (?:the )?(?:model'?s )?maximum context length"
        r"(?: of [\d,]+ tokens?|\s*\([\d,]+\))",
        r"context window exceeded",  # LiteLLM
        r"input token count.*exceeds the maximum",  # Gemini
        r"maximum prompt length is \d+",  # xAI
        r"reduce the length of the messages",  # Groq
        r"maximum context length is \d+ tokens",  # OpenAI, OpenRouter
        r"exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?",
        r"input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)",
        r"exceeds the limit of \d+",  # GitHub Copilot
        r"exceeds the available context size",  # llama.cpp server
        r"greater than the context length",  # LM Studio
        r"context window exceeds limit",  # MiniMax
        r"exceeded model token limit",  # Kimi
        r"too large for model with \d+ maximum context length",  # Mistral
        r"prompt has [\d,]+ tokens?, but the configured context size is [\d,]+ tokens?",
        r"model_context_window_exceeded",
        r"prompt too long; exceeded (?:max )?context length",  # Ollama
        r"range of input length should be",  # DashScope
        r"context[_ ]length[_ ]exceeded",
        r"too many tokens",
        r"token limit exceeded",
        r"^(?:[\w -]+ API error \(413\):|413(?:\s|:|$))",
    )
)

# Throttling messages can mention tokens too ("Too many tokens, please wait"): never overflow.
_NOT_OVERFLOW = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"^(Throttling error|Service unavailable):",
        r"rate limit",
        r"too many requests",
    )
)
_BODYLESS_413 = re.compile(r"^4(?:00|13)\s*(?:status code)?\s*\(no body\)", re.IGNORECASE)


def is_context_overflow(message: AssistantMessage, context_window: int | None = None) -> bool:
    """True when `message` shows the request did not fit the model's context window.

    Three signs: an error whose text says so; a "successful" reply whose reported input is over
    the window (providers that truncate silently); a `length` stop with no output and the input
    filling the window.
    """
    error = message.error_message if isinstance(message.error_message, str) else ""
    throttled = any(pattern.search(error) for pattern in _NOT_OVERFLOW)
    if message.stop_reason == "error" and error and not throttled:
        if any(pattern.search(error) for pattern in OVERFLOW_PATTERNS):
            return True
        if message.provider == "cerebras" and _BODYLESS_413.search(error):
            return True
    if context_window:
        used = message.usage.input + message.usage.cache_read
        if message.stop_reason == "stop" and used > context_window:
            return True
        if message.stop_reason == "length" and message.usage.output == 0:
            return used >= context_window * 0.99
    return False


def is_recoverable_length(message: AssistantMessage, desired_max_output: int) -> bool:
    """A `length` stop below the output budget: the input crowded the output out."""
    return (
        message.stop_reason == "length"
        and desired_max_output > 0
        and message.usage.output < desired_max_output
    )
