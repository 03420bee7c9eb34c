"""Branch summaries: what a summary of the branch being left covers (docs/compaction.md).

When the user moves to another point of the session tree, the entries only the old branch
holds (from the old leaf back to the common ancestor) can be summarized and the summary
attached where the user arrives. The newest entries are kept when the branch is longer than
the summarizer's input budget; tool results are left out (the calls say what was done).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import msgspec

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from pith.compaction._file_ops import FileOps, extract_file_ops
from pith.compaction.tokens import estimate_tokens
from pith.session import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomMessageEntry,
    MessageEntry,
    RawEntry,
    SessionEntry,
    entry_messages,
)

__all__ = [
    "DEFAULT_BRANCH_CONTEXT_WINDOW",
    "DEFAULT_BRANCH_RESERVE_TOKENS",
    "BranchCollection",
    "BranchPreparation",
    "branch_token_budget",
    "collect_entries_for_branch_summary",
    "prepare_branch_entries",
]

DEFAULT_BRANCH_CONTEXT_WINDOW = 128000
"""The window assumed for a model that states none."""
DEFAULT_BRANCH_RESERVE_TOKENS = 16384
SUMMARY_FIT_RATIO = 0.9
"""A summary entry that does not fit is still taken while the budget is under 90 % used."""


@dataclass(frozen=True)
class BranchCollection:
    """The entries to summarize (oldest first) and the deepest entry both branches share
    (None when they share none)."""

    entries: list[SessionEntry]
    common_ancestor_id: str | None


@dataclass
class BranchPreparation:
    """The messages to summarize (oldest first), the files they read and changed (with those
    of earlier branch summaries in the range), and their estimated tokens."""

    messages: list[AgentMessage]
    file_ops: FileOps = field(default_factory=FileOps)
    total_tokens: int = 0


def _root_path(by_id: Mapping[str, SessionEntry], entry_id: str | None) -> list[SessionEntry]:
    path: list[SessionEntry] = []
    seen: set[str] = set()
    current = by_id.get(entry_id) if entry_id else None
    while current is not None and current.id not in seen:
        path.append(current)
        seen.add(current.id)
        current = by_id.get(current.parent_id) if current.parent_id else None
    path.reverse()
    return path


def collect_entries_for_branch_summary(
    by_id: Mapping[str, SessionEntry], old_leaf_id: str | None, target_id: str | None
) -> BranchCollection:
    """The entries from `old_leaf_id` back to (not including) the deepest entry that is also
    on `target_id`'s path, oldest first. Earlier compactions do not stop the walk (their
    summaries are part of what is summarized). Nothing without an old leaf."""
    if not old_leaf_id:
        return BranchCollection([], None)
    old_path = {entry.id for entry in _root_path(by_id, old_leaf_id)}
    common: str | None = None
    for entry in reversed(_root_path(by_id, target_id)):
        if entry.id in old_path:
            common = entry.id
            break
    collected: list[SessionEntry] = []
    seen: set[str] = set()
    current: str | None = old_leaf_id
    while current and current != common and current not in seen:
        found = by_id.get(current)
        if found is None:
            break
        collected.append(found)
        seen.add(current)
        current = found.parent_id
    collected.reverse()
    return BranchCollection(collected, common)


def branch_token_budget(context_window: int | None, reserve_tokens: int) -> int:
    """The summarizer's input budget: the model's window (128 000 when unknown) minus the
    `branchSummary.reserveTokens` setting."""
    return (context_window or DEFAULT_BRANCH_CONTEXT_WINDOW) - reserve_tokens


def _millis(timestamp: str) -> int:
    """An entry timestamp (ISO 8601) as epoch milliseconds, 0 if unreadable."""
    try:
        parsed = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return 0
    if parsed.tzinfo is None:
        parsed = parsed.astimezone()  # no offset means local time, as in JavaScript
    return round(parsed.timestamp() * 1000)


def _edited(entry: SessionEntry, edit: ContextEditEntry) -> AgentMessage | None:
    """The entry's first message with its latest context edit applied (None if hidden)."""
    replacement = edit.replacement
    messages = entry_messages(entry)
    if replacement is None or not messages:
        return None
    message = messages[0]
    if not isinstance(message, UserMessage | AssistantMessage | ToolResultMessage | CustomMessage):
        return message
    content: object = replacement.content
    if isinstance(message, AssistantMessage | ToolResultMessage) and isinstance(content, str):
        content = [TextContent(text=content)]
    return msgspec.structs.replace(message, content=content)


def _branch_message(entry: SessionEntry, edit: ContextEditEntry | None) -> AgentMessage | None:
    if isinstance(entry, MessageEntry | RawEntry):
        message = entry.message
        if message is None or isinstance(message, ToolResultMessage):
            return None
        if isinstance(entry, RawEntry) and entry.type != "message":
            return None
        return _edited(entry, edit) if edit is not None else message
    if isinstance(entry, CustomMessageEntry):
        return _edited(entry, edit) if edit is not None else entry_messages(entry)[0]
    if isinstance(entry, BranchSummaryEntry):
        # Kept even when empty, unlike in the projection (as Pi does).
        return BranchSummaryMessage(
            summary=entry.summary, from_id=entry.from_id, timestamp=_millis(entry.timestamp)
        )
    if isinstance(entry, CompactionEntry):
        return CompactionSummaryMessage(
            summary=entry.summary,
            tokens_before=entry.tokens_before,
            timestamp=_millis(entry.timestamp),
        )
    return None


def prepare_branch_entries(
    entries: Sequence[SessionEntry], token_budget: int = 0
) -> BranchPreparation:
    """The messages of `entries` (oldest first) that fit `token_budget` (0: no limit),
    keeping the newest.

    Tool results are left out; compactions and branch summaries become summary messages;
    context edits within `entries` are applied. A summary that does not fit is still taken
    while less than 90 % of the budget is used. File operations come from every tool call
    walked and from the `details` of earlier (non-extension) branch summaries in the range.
    """
    ops = FileOps()
    for entry in entries:
        if isinstance(entry, BranchSummaryEntry) and entry.from_hook is not True:
            ops.seed(entry.details)
    edits = {entry.target_id: entry for entry in entries if isinstance(entry, ContextEditEntry)}
    messages: list[AgentMessage] = []
    total = 0
    for index in range(len(entries) - 1, -1, -1):
        entry = entries[index]
        message = _branch_message(entry, edits.get(entry.id))
        if message is None:
            continue
        extract_file_ops(message, ops)
        tokens = estimate_tokens(message)
        if token_budget > 0 and total + tokens > token_budget:
            if isinstance(entry, CompactionEntry | BranchSummaryEntry) and (
                total < token_budget * SUMMARY_FIT_RATIO
            ):
                messages.append(message)
                total += tokens
            break
        messages.append(message)
        total += tokens
    messages.reverse()
    return BranchPreparation(messages, ops, total)
