"""What the model sees of a session: the active path, compaction-aware (docs/sessions.md).

Pure functions of the entries and the leaf. The newest compaction on the path stands for
everything before its first kept entry; `context_edit` entries hide or replace earlier content
on their branch only; custom messages, branch and compaction summaries become messages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    SystemMessage,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from pith.session._entries import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomMessageEntry,
    MessageEntry,
    ModelChangeEntry,
    RawEntry,
    SessionEntry,
    ThinkingLevelChangeEntry,
    timestamp_millis,
)

__all__ = [
    "ProjectedEntry",
    "SessionProjection",
    "build_context_entries",
    "build_path",
    "entry_messages",
    "project",
]


@dataclass
class ProjectedEntry:
    entry: SessionEntry
    messages: list[AgentMessage]


@dataclass
class SessionProjection:
    entries: list[ProjectedEntry]
    messages: list[AgentMessage]
    thinking_level: str = "off"
    model: tuple[str, str] | None = None
    """(provider, model id) last set on the path."""
    compaction: CompactionEntry | None = None
    warnings: list[str] = field(default_factory=list)


def build_path(
    entries: Sequence[SessionEntry], leaf_id: str | None, by_id: Mapping[str, SessionEntry]
) -> list[SessionEntry]:
    """Root-to-leaf path. A `None` leaf means before any entry (empty); an unknown leaf id
    falls back to the last entry."""
    if leaf_id is None and entries:
        return []
    leaf = by_id.get(leaf_id) if leaf_id else None
    if leaf is None:
        if not entries:
            return []
        leaf = entries[-1]
    path = []
    seen: set[str] = set()
    current: SessionEntry | None = leaf
    while current is not None and current.id not in seen:
        path.append(current)
        seen.add(current.id)
        parent = current.parent_id
        current = by_id.get(parent) if parent else None
    path.reverse()
    return path


def build_context_entries(path: list[SessionEntry]) -> list[SessionEntry]:
    """The entries that contribute to the context: all of the path, or, after a compaction,
    the compaction, the kept entries (without system messages) and everything after it."""
    latest = None
    for index, entry in enumerate(path):
        if isinstance(entry, CompactionEntry):
            latest = index
    if latest is None:
        return list(path)
    compaction = path[latest]
    assert isinstance(compaction, CompactionEntry)
    kept: list[SessionEntry] = [compaction]
    found = False
    for entry in path[:latest]:
        if entry.id == compaction.first_kept_entry_id:
            found = True
        if found and not (
            isinstance(entry, MessageEntry) and isinstance(entry.message, SystemMessage)
        ):
            kept.append(entry)
    kept.extend(path[latest + 1 :])
    return kept


def entry_messages(entry: SessionEntry) -> list[AgentMessage]:
    """What one entry contributes to the context (Pi's `sessionEntryToContextMessages`)."""
    if isinstance(entry, MessageEntry):
        return [entry.message]
    if isinstance(entry, RawEntry):
        return [] if entry.message is None else [entry.message]
    if isinstance(entry, CustomMessageEntry):
        message = CustomMessage(
            custom_type=entry.custom_type,
            content=entry.content,
            display=entry.display,
            timestamp=_millis(entry.timestamp),
        )
        message.details = entry.details
        return [message]
    if isinstance(entry, BranchSummaryEntry):
        if not entry.summary:
            return []
        return [
            BranchSummaryMessage(
                summary=entry.summary, from_id=entry.from_id, timestamp=_millis(entry.timestamp)
            )
        ]
    if isinstance(entry, CompactionEntry):
        summary = CompactionSummaryMessage(
            summary=entry.summary,
            tokens_before=entry.tokens_before,
            timestamp=_millis(entry.timestamp),
        )
        if isinstance(entry.system_message, SystemMessage):
            return [entry.system_message, summary]
        return [summary]
    return []


def _millis(timestamp: str) -> int:
    return round(timestamp_millis(timestamp))


def _apply_edit(messages: list[AgentMessage], edit: ContextEditEntry) -> list[AgentMessage]:
    replacement = edit.replacement
    if replacement is None:
        return []
    edited: list[AgentMessage] = []
    for message in messages:
        if isinstance(message, AssistantMessage | ToolResultMessage) and isinstance(
            replacement.content, str
        ):
            content: object = [TextContent(text=replacement.content)]
        else:
            content = replacement.content
        if isinstance(message, UserMessage | AssistantMessage | ToolResultMessage | CustomMessage):
            copy = _with_content(message, content)
            edited.append(copy)
        else:
            edited.append(message)
    return edited


def _with_content(message: AgentMessage, content: object) -> AgentMessage:
    import msgspec

    return msgspec.structs.replace(message, content=content)


def project(
    entries: Sequence[SessionEntry], leaf_id: str | None, by_id: Mapping[str, SessionEntry]
) -> SessionProjection:
    """The model context of the active path (Pi's `buildSessionProjection`)."""
    path = build_path(entries, leaf_id, by_id)
    thinking = "off"
    model: tuple[str, str] | None = None
    for entry in path:
        if isinstance(entry, ThinkingLevelChangeEntry):
            thinking = entry.thinking_level
        elif isinstance(entry, ModelChangeEntry):
            model = (entry.provider, entry.model_id)
        elif isinstance(entry, MessageEntry | RawEntry) and isinstance(
            entry.message, AssistantMessage
        ):
            model = (entry.message.provider, entry.message.model)
    context_entries = build_context_entries(path)
    edits = {e.target_id: e for e in context_entries if isinstance(e, ContextEditEntry)}
    projected: list[ProjectedEntry] = []
    for index, entry in enumerate(context_entries):
        if isinstance(entry, CompactionEntry) and index > 0:
            messages: list[AgentMessage] = []  # an older compaction inside the kept range
        else:
            messages = entry_messages(entry)
            edit = edits.get(entry.id)
            if edit is not None:
                messages = _apply_edit(messages, edit)
        projected.append(ProjectedEntry(entry, messages))
    first = context_entries[0] if context_entries else None
    return SessionProjection(
        entries=projected,
        messages=[message for item in projected for message in item.messages],
        thinking_level=thinking,
        model=model,
        compaction=first if isinstance(first, CompactionEntry) else None,
    )
