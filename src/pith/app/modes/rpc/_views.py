"""What the read-only commands return, computed from the session's entries and messages:
statistics, the tree, entries, fork points, the last answer, the queues. Pure functions."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    content_text,
)
from pith.session import (
    BranchSummaryEntry,
    CompactionEntry,
    MessageEntry,
    SessionEntry,
    TreeNode,
    UsageEntry,
    encode_entry,
)

__all__ = [
    "bash_delta",
    "entries_since",
    "entry_json",
    "last_assistant_text",
    "message_text",
    "session_totals",
    "tree_json",
]


def entry_json(entry: SessionEntry) -> object:
    """An entry exactly as the session file holds it (unknown fields included)."""
    return json.loads(encode_entry(entry))


def entries_since(entries: Sequence[SessionEntry], since: str | None) -> list[SessionEntry] | None:
    """The entries appended after `since` (all for None); None when `since` is unknown."""
    if since is None:
        return list(entries)
    for index, entry in enumerate(entries):
        if entry.id == since:
            return list(entries[index + 1 :])
    return None


def tree_json(nodes: Iterable[TreeNode]) -> list[dict[str, object]]:
    """Pi's `SessionTreeNode`s: `{entry, children, label?}`."""
    out = []
    for node in nodes:
        item: dict[str, object] = {"entry": entry_json(node.entry)}
        item["children"] = tree_json(node.children)
        if node.label is not None:
            item["label"] = node.label
        out.append(item)
    return out


def message_text(message: AgentMessage) -> str:
    """The text blocks of a user or assistant message, joined."""
    return content_text(getattr(message, "content", ""))


def last_assistant_text(messages: Sequence[AgentMessage]) -> str | None:
    """The newest assistant answer's text; replies without text that did not end normally
    (aborted, failed, only tool calls) are skipped. None when there is none."""
    for message in reversed(messages):
        if not isinstance(message, AssistantMessage):
            continue
        text = message_text(message)
        if message.stop_reason != "stop" and not text.strip():
            continue
        return text.strip() or None
    return None


def session_totals(entries: Iterable[SessionEntry]) -> dict[str, object]:
    """Message counts, tokens and cost over every entry of the session (branches left and
    compacted history included: what was billed)."""
    counts = {"userMessages": 0, "assistantMessages": 0, "toolCalls": 0, "toolResults": 0}
    total_messages = 0
    usage = Usage()
    cost = 0.0
    for entry in entries:
        spent: Usage | None = None
        if isinstance(entry, UsageEntry):
            spent = entry.usage
        elif isinstance(entry, CompactionEntry | BranchSummaryEntry):
            spent = entry.usage if isinstance(entry.usage, Usage) else None
        elif isinstance(entry, MessageEntry):
            total_messages += 1
            message = entry.message
            if isinstance(message, UserMessage):
                counts["userMessages"] += 1
            elif isinstance(message, ToolResultMessage):
                counts["toolResults"] += 1
                spent = message.usage if isinstance(message.usage, Usage) else None
            elif isinstance(message, AssistantMessage):
                counts["assistantMessages"] += 1
                counts["toolCalls"] += sum(isinstance(b, ToolCall) for b in message.content)
                spent = message.usage
        if spent is not None:
            usage.input += spent.input
            usage.output += spent.output
            usage.cache_read += spent.cache_read
            usage.cache_write += spent.cache_write
            cost += float(spent.cost.total)
    tokens = {
        "input": usage.input,
        "output": usage.output,
        "cacheRead": usage.cache_read,
        "cacheWrite": usage.cache_write,
        "total": usage.input + usage.output + usage.cache_read + usage.cache_write,
    }
    return {**counts, "totalMessages": total_messages, "tokens": tokens, "cost": cost}


def bash_delta(previous: str, current: str) -> str:
    """The new output in `current`, a later snapshot of a command's visible output tail.

    A tail that has not slid extends `previous`; one that has is `previous` without some
    leading lines, then the new output. When neither fits, the whole snapshot is new (lines
    went by faster than the updates).
    """
    if current.startswith(previous):
        return current[len(previous) :]
    probe = current[: min(current.find("\n") + 1 or len(current), 64)]
    at = previous.find(probe) if probe else -1
    while at >= 0:
        kept = previous[at:]
        if current.startswith(kept):
            return current[len(kept) :]
        at = previous.find(probe, at + 1)
    return current
