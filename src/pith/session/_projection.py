"""What the model sees of a session: the active path, compaction-aware (docs/sessions.md).

Pure functions of the entries and the leaf. The newest compaction on the path stands for
everything before its first kept entry; `context_edit` entries hide or replace earlier content
on their branch only; custom messages, branch and compaction summaries become messages.
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
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
from pith.session._tree import parent_chain

__all__ = [
    "ProjectedEntry",
    "SessionProjection",
    "build_context_entries",
    "build_path",
    "copy_projection",
    "edited_ids",
    "entry_messages",
    "extend_projection",
    "project",
    "project_branch",
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
    return parent_chain(by_id, leaf)


def _is_system(entry: SessionEntry) -> bool:
    return isinstance(entry, MessageEntry) and isinstance(entry.message, SystemMessage)


def _latest_compaction(path: Sequence[SessionEntry]) -> int | None:
    for index in range(len(path) - 1, -1, -1):
        if isinstance(path[index], CompactionEntry):
            return index
    return None


def build_context_entries(path: list[SessionEntry]) -> list[SessionEntry]:
    """The entries that contribute to the context: all of the path, or, after a compaction,
    the compaction, the kept entries (without system messages) and everything after it."""
    latest = _latest_compaction(path)
    if latest is None:
        return list(path)
    compaction = path[latest]
    assert isinstance(compaction, CompactionEntry)
    kept: list[SessionEntry] = [compaction]
    found = False
    for entry in path[:latest]:
        if entry.id == compaction.first_kept_entry_id:
            found = True
        if found and not _is_system(entry):
            kept.append(entry)
    kept.extend(path[latest + 1 :])
    return kept


def _branch_context_entries(path: Sequence[SessionEntry]) -> list[SessionEntry]:
    """`build_context_entries` of a path whose ids are all different (as `build_path` gives
    it): the first kept entry is looked for from the compaction back, not from the root."""
    latest = _latest_compaction(path)
    if latest is None:
        return list(path)
    compaction = path[latest]
    assert isinstance(compaction, CompactionEntry)
    first = latest  # not found: nothing before the compaction is kept
    target = compaction.first_kept_entry_id
    for index in range(latest - 1, -1, -1):
        if path[index].id == target:
            first = index
            break
    kept: list[SessionEntry] = [compaction]
    kept.extend(entry for entry in path[first:latest] if not _is_system(entry))
    kept.extend(path[latest + 1 :])
    return kept


def _path_settings(path: Sequence[SessionEntry]) -> tuple[str, tuple[str, str] | None]:
    """The thinking level and the (provider, model id) last set on the path, read from the
    leaf back until both are found."""
    thinking: str | None = None
    model: tuple[str, str] | None = None
    for index in range(len(path) - 1, -1, -1):
        entry = path[index]
        if isinstance(entry, ThinkingLevelChangeEntry):
            if thinking is None:
                thinking = entry.thinking_level
        elif model is None:
            if isinstance(entry, ModelChangeEntry):
                model = (entry.provider, entry.model_id)
            elif isinstance(entry, MessageEntry | RawEntry) and isinstance(
                entry.message, AssistantMessage
            ):
                model = (entry.message.provider, entry.message.model)
        if thinking is not None and model is not None:
            break
    return ("off" if thinking is None else thinking), model


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
    return project_branch(build_path(entries, leaf_id, by_id))


def project_branch(path: Sequence[SessionEntry]) -> SessionProjection:
    """The model context of a root-to-leaf path whose ids are all different (what
    `build_path` returns)."""
    thinking, model = _path_settings(path)
    context_entries = _branch_context_entries(path)
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


def edited_ids(projection: SessionProjection) -> set[str]:
    """The ids the context edits of `projection` name."""
    return {
        item.entry.target_id
        for item in projection.entries
        if isinstance(item.entry, ContextEditEntry)
    }


def extend_projection(
    projection: SessionProjection, entry: SessionEntry, edited: Container[str]
) -> bool:
    """Add `entry`, just appended at the leaf of the projected path, to `projection` in place.

    False, changing nothing, when the entry changes what came before it and the path must be
    projected again: a compaction, a context edit, or an entry that an edit (ids in `edited`)
    already names.
    """
    if isinstance(entry, CompactionEntry | ContextEditEntry) or entry.id in edited:
        return False
    if isinstance(entry, ThinkingLevelChangeEntry):
        projection.thinking_level = entry.thinking_level
    elif isinstance(entry, ModelChangeEntry):
        projection.model = (entry.provider, entry.model_id)
    elif isinstance(entry, MessageEntry | RawEntry) and isinstance(entry.message, AssistantMessage):
        projection.model = (entry.message.provider, entry.message.model)
    messages = entry_messages(entry)
    projection.entries.append(ProjectedEntry(entry, messages))
    projection.messages.extend(messages)
    return True


def copy_projection(projection: SessionProjection) -> SessionProjection:
    """A projection whose lists the caller may change without touching `projection`'s."""
    return SessionProjection(
        entries=list(projection.entries),
        messages=list(projection.messages),
        thinking_level=projection.thinking_level,
        model=projection.model,
        compaction=projection.compaction,
        warnings=list(projection.warnings),
    )
