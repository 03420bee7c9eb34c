"""What a compaction of the active path would summarize and keep (docs/compaction.md).

Works on the projected path (what the model sees, context edits applied). After an earlier
compaction the range starts right after it, so the entries that compaction kept are summarized
again, with its summary handed over as the previous summary to update.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec

from pith.ai import AgentMessage, SystemMessage
from pith.compaction._accounting import estimate_path_context
from pith.compaction._context import PathContext, path_context
from pith.compaction._cut_point import cut_context
from pith.compaction._file_ops import FileOps, extract_file_ops
from pith.compaction._settings import (
    CompactionSettingsLike,
    ResolvedCompactionSettings,
)
from pith.session import CompactionEntry, SessionEntry, SessionProjection, project

__all__ = [
    "ALREADY_COMPACTED",
    "NOTHING_TO_COMPACT",
    "CompactionPreparation",
    "NoCompaction",
    "prepare_compaction",
    "project_path",
]

ALREADY_COMPACTED = "Already compacted"
NOTHING_TO_COMPACT = "Nothing to compact (session too small)"


class CompactionPreparation(msgspec.Struct, rename="camel", kw_only=True):
    """Everything the summarizer needs (Pi's `CompactionPreparation`; camelCase as JSON).

    `messages_to_summarize` are the messages before the kept part (before the turn start when
    the turn is split); `turn_prefix_messages` the first part of a split turn; both without
    system messages. `tokens_before` is the context size now; `previous_summary` the summary of
    the compaction this one replaces; `file_ops` the files read and changed in what is
    summarized, seeded from that compaction.
    """

    first_kept_entry_id: str
    messages_to_summarize: list[AgentMessage]
    turn_prefix_messages: list[AgentMessage]
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None = None
    file_ops: FileOps = msgspec.field(default_factory=FileOps)
    settings: ResolvedCompactionSettings = msgspec.field(default_factory=ResolvedCompactionSettings)


class NoCompaction(msgspec.Struct, frozen=True, kw_only=True):
    """Nothing to compact, and why: `already_compacted` (the path ends with a compaction) or
    `nothing_to_compact` (no message before the part that is kept)."""

    reason: Literal["already_compacted", "nothing_to_compact"]

    @property
    def message(self) -> str:
        """The text to show the user for a manual `/compact`."""
        return ALREADY_COMPACTED if self.reason == "already_compacted" else NOTHING_TO_COMPACT


def project_path(path_entries: Sequence[SessionEntry]) -> SessionProjection:
    """The projection of a root-to-leaf path (its last entry is the leaf)."""
    if not path_entries:
        return SessionProjection(entries=[], messages=[])
    by_id = {entry.id: entry for entry in path_entries}
    return project(path_entries, path_entries[-1].id, by_id)


def _conversation(context: PathContext, start: int, end: int) -> list[AgentMessage]:
    """Messages of entries `start:end`, leaving out compactions and system messages (prompt
    state: the compaction entry carries their replay)."""
    entries, groups = context.entries, context.messages
    messages: list[AgentMessage] = []
    append = messages.append
    for index in range(start, end):
        if type(entries[index]) is CompactionEntry:
            continue
        for message in groups[index]:
            if type(message) is not SystemMessage:
                append(message)
    return messages


def _resolved(settings: CompactionSettingsLike) -> ResolvedCompactionSettings:
    if isinstance(settings, ResolvedCompactionSettings):
        return settings
    return ResolvedCompactionSettings(
        enabled=settings.enabled,
        reserve_tokens=settings.reserve_tokens,
        keep_recent_tokens=settings.keep_recent_tokens,
    )


def prepare_compaction(
    path_entries: Sequence[SessionEntry],
    settings: CompactionSettingsLike,
    *,
    projection: SessionProjection | None = None,
) -> CompactionPreparation | NoCompaction:
    """What compacting `path_entries` (the active branch, root first) would do.

    `projection` may be passed when the caller has it already (it must be the projection of
    `path_entries`). Returns `NoCompaction` when the path ends with a compaction or when there
    is nothing before the kept part; never raises for either.
    """
    if path_entries and isinstance(path_entries[-1], CompactionEntry):
        return NoCompaction(reason="already_compacted")
    context = (
        PathContext.of_projection(projection)
        if projection is not None
        else path_context(path_entries)
    )
    entries = context.entries
    # The newest compaction comes first; an older one inside its kept range contributes nothing.
    previous: CompactionEntry | None = None
    start = 0
    if entries and isinstance(entries[0], CompactionEntry) and context.messages[0]:
        previous = entries[0]
        start = 1
    tokens_before = estimate_path_context(context, path_entries).tokens
    cut = cut_context(context, start, len(entries), settings.keep_recent_tokens)
    first_kept = cut.first_kept_entry_index
    if first_kept >= len(entries) or not entries[first_kept].id:
        return NoCompaction(reason="nothing_to_compact")
    history_end = cut.turn_start_index if cut.is_split_turn else first_kept
    to_summarize = _conversation(context, start, history_end)
    prefix = _conversation(context, cut.turn_start_index, first_kept) if cut.is_split_turn else []
    if not to_summarize and not prefix:
        return NoCompaction(reason="nothing_to_compact")
    ops = FileOps()
    if previous is not None and previous.from_hook is not True:
        ops.seed(previous.details)
    for message in to_summarize:
        extract_file_ops(message, ops)
    for message in prefix:
        extract_file_ops(message, ops)
    return CompactionPreparation(
        first_kept_entry_id=entries[first_kept].id,
        messages_to_summarize=to_summarize,
        turn_prefix_messages=prefix,
        is_split_turn=cut.is_split_turn,
        tokens_before=tokens_before,
        previous_summary=previous.summary if previous is not None else None,
        file_ops=ops,
        settings=_resolved(settings),
    )
