"""How big the context is, in tokens, on a session path, as Pi measures it.

The last usable reported usage plus an estimate of every later message; all estimated when no
reply reported usage, or (Pi 1.6) when a `compaction` or `context_edit` was appended after the
reply whose usage would be used, since that figure measured a context that no longer exists.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice

import msgspec

from pith.ai import AgentMessage, AssistantMessage, SystemMessage, Usage, current_system_message
from pith.compaction._context import PathContext
from pith.compaction.tokens import estimate_tokens
from pith.session import (
    CompactionEntry,
    ContextEditEntry,
    MessageEntry,
    RawEntry,
    SessionEntry,
    SessionProjection,
)

__all__ = [
    "ContextEstimate",
    "calculate_context_tokens",
    "context_estimate",
    "estimate_projected_context_tokens",
    "get_last_assistant_usage",
    "get_latest_compaction_entry",
    "invalidates_usage",
    "usable_usage",
]


class ContextEstimate(msgspec.Struct, rename="camel", frozen=True, kw_only=True):
    """The context size and where it came from (Pi's `ContextUsageEstimate`)."""

    tokens: int
    usage_tokens: int
    """The reported usage the figure starts from (0 when all estimated)."""
    trailing_tokens: int
    """Estimated tokens of the messages after that usage (or of all messages)."""
    last_usage_index: int | None
    """Index of the message whose usage was used, None when all estimated."""


def calculate_context_tokens(usage: Usage) -> int:
    """`totalTokens`, or the sum of the parts when it is 0."""
    return usage.total_tokens or (usage.input + usage.output + usage.cache_read + usage.cache_write)


def usable_usage(message: AgentMessage) -> Usage | None:
    """The usage of a reply that neither aborted nor failed and reported tokens; else None."""
    if (
        isinstance(message, AssistantMessage)
        and message.stop_reason != "aborted"
        and message.stop_reason != "error"
        and calculate_context_tokens(message.usage) > 0
    ):
        return message.usage
    return None


def _entry_message(entry: SessionEntry) -> AgentMessage | None:
    if isinstance(entry, MessageEntry | RawEntry):
        return entry.message
    return None


def get_last_assistant_usage(entries: Sequence[SessionEntry]) -> Usage | None:
    """The usage of the last usable reply among message entries (Pi's getLastAssistantUsage)."""
    for index in range(len(entries) - 1, -1, -1):
        message = _entry_message(entries[index])
        if message is not None and (usage := usable_usage(message)) is not None:
            return usage
    return None


def get_latest_compaction_entry(entries: Sequence[SessionEntry]) -> CompactionEntry | None:
    """The last `compaction` entry of `entries`, if any."""
    for index in range(len(entries) - 1, -1, -1):
        entry = entries[index]
        if isinstance(entry, CompactionEntry):
            return entry
    return None


def invalidates_usage(entry: SessionEntry) -> bool:
    """A `compaction` or `context_edit`: usage reported before it no longer measures the
    context."""
    if isinstance(entry, CompactionEntry | ContextEditEntry):
        return True
    return isinstance(entry, RawEntry) and entry.type in ("compaction", "context_edit")


def context_estimate(messages: Sequence[AgentMessage]) -> ContextEstimate:
    """Pi's `estimateContextTokens`: the last usable usage plus an estimate of each later
    message (system messages included); all estimated without usable usage."""
    for index in range(len(messages) - 1, -1, -1):
        usage = usable_usage(messages[index])
        if usage is not None:
            usage_tokens = calculate_context_tokens(usage)
            trailing = sum(estimate_tokens(message) for message in messages[index + 1 :])
            return ContextEstimate(
                tokens=usage_tokens + trailing,
                usage_tokens=usage_tokens,
                trailing_tokens=trailing,
                last_usage_index=index,
            )
    estimated = sum(estimate_tokens(message) for message in messages)
    return ContextEstimate(
        tokens=estimated, usage_tokens=0, trailing_tokens=estimated, last_usage_index=None
    )


def full_estimate(messages: Sequence[AgentMessage]) -> int:
    """Every message estimated, the system messages folded into the one the model sees."""
    system = current_system_message(messages)
    tokens = estimate_tokens(system) if system is not None else 0
    return tokens + sum(
        estimate_tokens(message) for message in messages if not isinstance(message, SystemMessage)
    )


def estimate_path_context(context: PathContext, path: Sequence[SessionEntry]) -> ContextEstimate:
    """`estimate_projected_context_tokens` on a path's context (see there)."""
    entries, groups = context.entries, context.messages
    trailing = 0
    found: tuple[int, int, int] | None = None  # entry index, message index, usage tokens
    for entry_index in range(len(entries) - 1, -1, -1):
        group = groups[entry_index]
        for message_index in range(len(group) - 1, -1, -1):
            message = group[message_index]
            usage = usable_usage(message)
            if usage is not None:
                found = (entry_index, message_index, calculate_context_tokens(usage))
                break
            trailing += estimate_tokens(message)
        if found is not None:
            break
    if found is not None:
        entry_index, message_index, usage_tokens = found
        usage_entry_id = entries[entry_index].id
        # Walking back from the leaf, whichever comes first decides: the reply (its usage
        # still measures the context) or a compaction / context edit (it does not).
        for index in range(len(path) - 1, -1, -1):
            entry = path[index]
            if invalidates_usage(entry):
                break
            if usage_entry_id and entry.id == usage_entry_id:
                before = sum(map(len, islice(groups, entry_index)))
                return ContextEstimate(
                    tokens=usage_tokens + trailing,
                    usage_tokens=usage_tokens,
                    trailing_tokens=trailing,
                    last_usage_index=before + message_index,
                )
    tokens = full_estimate([message for group in groups for message in group])
    return ContextEstimate(
        tokens=tokens, usage_tokens=0, trailing_tokens=tokens, last_usage_index=None
    )


def estimate_projected_context_tokens(
    projection: SessionProjection, path: Sequence[SessionEntry]
) -> ContextEstimate:
    """The context size of `projection` (the projected `path`) for the compaction threshold.

    Usage reported by a reply is trusted only when no `compaction` or `context_edit` comes
    after that reply on the path; otherwise every message is estimated (Pi 1.6's
    `estimateProjectedContextTokens`).
    """
    return estimate_path_context(PathContext.of_projection(projection), path)
