"""Which provider errors are worth retrying, and how long to wait (docs/providers.md, Errors).

Transient failures (rate limits, overloaded servers, dropped connections) are retried with
exponential backoff; quota and billing errors and context overflows never are — retrying them
only wastes time and money.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pith.ai._messages import AssistantMessage
from pith.ai._overflow import is_context_overflow

__all__ = ["RetryPolicy", "is_retryable_error", "retry_delay_seconds"]

_QUOTA = re.compile(
    "|".join(
        [
            "GoUsageLimitError",
            "FreeUsageLimitError",
            "Monthly usage limit reached",
            "available balance",
            "insufficient_quota",
            "out of budget",
            "quota exceeded",
            "billing",
            "subscription_sharing_usage_limit_exceeded",
            "subscription_sharing_workplace_individual_usage_limit_exceeded",
            r'"code"\s*:\s*"?1308(?![0-9])',
        ]
    ),
    re.IGNORECASE,
)

_TRANSIENT = re.compile(
    "|".join(
        [
            "overloaded",
            "server_busy",
            "servers are currently busy",
            "currently experiencing high demand",
            "model is at capacity",
            "rate.?limit",
            "too many requests",
            "(?<![a-z0-9])(?:429|500|502|503|504|520|524)(?![a-z0-9])",
            "service.?(?:is.?)?(?:temporarily.?)?unavailable",
            "server.?error",
            "internal.?error",
            "provider.?returned.?(?:an.?)?error",
            "upstream.?request.?failed",
            "stream was interrupted",
            "network.?error",
            "connection.?error",
            "connection.?refused",
            "connection.?lost",
            "connection.?closed",
            "connection reset by peer",
            "other side closed",
            "fetch failed",
            "getaddrinfo",
            "(?<![a-z0-9_])(?:ECONNRESET|ECONNABORTED|ECONNREFUSED|ETIMEDOUT|EPIPE)(?![a-z0-9_])",
            "ENOTFOUND",
            "EAI_AGAIN",
            "upstream.?connect",
            "reset before headers",
            "socket hang up",
            "timed? out",
            "timeout",
            "terminated",
            "ended without",
            "stream ended before",
            "incomplete chunked read",
            "peer closed connection",
            "remote ?protocol ?error",
            "you can retry your request",
            "try your request again",
            "please retry your request",
            "ResourceExhausted",
        ]
    ),
    re.IGNORECASE,
)


@dataclass(frozen=True)
class RetryPolicy:
    """Settings `retry.*`: 3 attempts after the first, 2 s doubling, at most 60 s a wait."""

    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000
    max_delay_ms: int = 60_000


def is_retryable_error(message: AssistantMessage) -> bool:
    """True for an error reply that a later identical request could well succeed on."""
    if message.stop_reason != "error":
        return False
    text = message.error_message if isinstance(message.error_message, str) else ""
    if is_context_overflow(message) or _QUOTA.search(text):
        return False
    return bool(_TRANSIENT.search(text))


def retry_delay_seconds(
    policy: RetryPolicy, attempt: int, retry_after_seconds: float | None = None
) -> float:
    """Wait before retry `attempt` (1-based): the server's Retry-After if it gave one, else
    exponential backoff; never more than the policy's maximum."""
    cap = policy.max_delay_ms / 1000
    if retry_after_seconds is not None and retry_after_seconds >= 0:
        return float(min(retry_after_seconds, cap))
    backoff: float = policy.base_delay_ms * 2 ** max(0, attempt - 1) / 1000
    return float(min(backoff, cap))
