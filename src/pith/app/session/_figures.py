"""Numbers as the commands and the footer print them: token counts and a session's cost."""

from __future__ import annotations

from collections.abc import Iterable

from pith.ai import AssistantMessage
from pith.session import MessageEntry, SessionEntry

__all__ = ["format_tokens", "session_cost"]


def format_tokens(count: int) -> str:
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{round(count / 1000)}k"
    return f"{count / 1_000_000:.1f}M"


def session_cost(entries: Iterable[SessionEntry]) -> float:
    """What every model reply stored in the session cost (all branches)."""
    total = 0.0
    for entry in entries:
        if isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
            total += float(entry.message.usage.cost.total)
    return total
