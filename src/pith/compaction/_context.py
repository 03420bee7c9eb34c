"""The context of a path as the compaction policy reads it: entries and their messages.

The same selection as `pith.session.project` (the newest compaction, its kept entries, the
entries after it; context edits applied), kept as two parallel lists and without the settings
walk, because preparing a compaction of a 20 000-entry session must not cost more than Pi's.
The conformance tests hold both to Pi's projection.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    CustomMessage,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from pith.session import (
    CompactionEntry,
    ContextEditEntry,
    MessageEntry,
    ProjectedEntry,
    SessionEntry,
    SessionProjection,
    build_context_entries,
    entry_messages,
)

__all__ = ["PathContext", "apply_context_edit", "path_context"]

_EDITABLE = (UserMessage, AssistantMessage, ToolResultMessage, CustomMessage)


def apply_context_edit(
    messages: Sequence[AgentMessage], edit: ContextEditEntry
) -> list[AgentMessage]:
    """The messages of an edited entry: none when hidden, else their content replaced (a text
    replacement of a reply or tool result becomes one text block)."""
    replacement = edit.replacement
    if replacement is None:
        return []
    edited: list[AgentMessage] = []
    for message in messages:
        if not isinstance(message, _EDITABLE):
            edited.append(message)
            continue
        content: object = replacement.content
        if isinstance(message, AssistantMessage | ToolResultMessage) and isinstance(content, str):
            content = [TextContent(text=content)]
        edited.append(msgspec.structs.replace(message, content=content))
    return edited


@dataclass
class PathContext:
    """Context entries (compaction-aware) and, per entry, the messages it contributes."""

    entries: Sequence[SessionEntry]
    messages: Sequence[Sequence[AgentMessage]]

    @classmethod
    def of_projection(cls, projection: SessionProjection) -> PathContext:
        return cls.of_projection_entries(projection.entries)

    @classmethod
    def of_projection_entries(cls, entries: Sequence[ProjectedEntry]) -> PathContext:
        return cls([item.entry for item in entries], [item.messages for item in entries])


def path_context(path: Sequence[SessionEntry]) -> PathContext:
    """The context of a root-to-leaf path (what `pith.session.project` selects)."""
    entries = build_context_entries(list(path))
    edits = {entry.target_id: entry for entry in entries if type(entry) is ContextEditEntry}
    messages: list[Sequence[AgentMessage]] = []
    append = messages.append
    for entry in entries:
        found: Sequence[AgentMessage]
        if type(entry) is MessageEntry:
            found = (entry.message,)
        elif type(entry) is CompactionEntry and messages:
            found = ()  # an older compaction inside the kept range
        else:
            found = entry_messages(entry)
        if edits:
            edit = edits.get(entry.id)
            if edit is not None:
                found = apply_context_edit(found, edit)
        append(found)
    return PathContext(entries, messages)
