"""Where to cut a session for compaction: what is summarized and what is kept (docs/compaction.md).

Walking back from the newest entry, entries are kept until their estimated tokens reach
`keep_recent_tokens`; the cut lands on the nearest valid cut entry at or after that point.
A cut entry carries a user-side message or an assistant reply, never a tool result, so a tool
call always stays with its results. A cut that is not at the start of a turn splits the turn:
its start is reported so the turn's first part can be summarized on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    UserMessage,
)
from pith.compaction._context import PathContext
from pith.compaction.tokens import estimate_tokens
from pith.session import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomMessageEntry,
    MessageEntry,
    ProjectedEntry,
    RawEntry,
    SessionEntry,
    entry_messages,
)

__all__ = [
    "CutPoint",
    "cut_context",
    "find_cut_point",
    "find_projected_cut_point",
    "find_projected_turn_start_index",
    "find_turn_start_index",
]

_TURN_START = (
    UserMessage,
    BashExecutionMessage,
    CustomMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
)


@dataclass(frozen=True)
class CutPoint:
    """Entries from `first_kept_entry_index` on are kept. When the cut is inside a turn,
    `turn_start_index` is the entry that started it and `is_split_turn` is True; otherwise
    `turn_start_index` is -1."""

    first_kept_entry_index: int
    turn_start_index: int
    is_split_turn: bool


# --- what an entry contributes, without building messages where possible ----------------------

_NONE, _REPLY, _TURN = 0, 1, 2
"""Entry kinds: contributes no cut point, an assistant reply (a cut point), a turn start
(also a cut point)."""

_MESSAGE_KIND: dict[type, int] = {kind: _TURN for kind in _TURN_START}
_MESSAGE_KIND[AssistantMessage] = _REPLY


def _messages_kind(messages: Sequence[AgentMessage]) -> int:
    kind = _NONE
    for message in messages:
        found = _MESSAGE_KIND.get(type(message), _NONE)
        if found > kind:
            kind = found
    return kind


def _raw_kind(entry: SessionEntry) -> int:
    if isinstance(entry, MessageEntry):
        return _MESSAGE_KIND.get(type(entry.message), _NONE)
    if isinstance(entry, CompactionEntry):
        return _NONE  # a compaction is never a cut point nor a turn start
    if isinstance(entry, CustomMessageEntry):
        return _TURN
    if isinstance(entry, BranchSummaryEntry):
        return _TURN if entry.summary else _NONE
    if isinstance(entry, RawEntry) and entry.message is not None:
        return _MESSAGE_KIND.get(type(entry.message), _NONE)
    return _NONE


def _raw_messages(entry: SessionEntry) -> Sequence[AgentMessage]:
    if isinstance(entry, MessageEntry):
        return (entry.message,)
    return entry_messages(entry)


def _raw_visible(entry: SessionEntry) -> bool:
    """Whether the entry contributes any message to the context by itself (before edits)."""
    if isinstance(entry, MessageEntry | CustomMessageEntry | CompactionEntry):
        return True
    if isinstance(entry, BranchSummaryEntry):
        return bool(entry.summary)
    if isinstance(entry, RawEntry):
        return entry.message is not None
    return False


class _View:
    """Entries of one path seen through four questions, for raw or projected entries."""

    def __init__(
        self,
        kind: Callable[[int], int],
        tokens: Callable[[int], int],
        visible: Callable[[int], bool],
        is_compaction: Callable[[int], bool],
    ) -> None:
        self.kind = kind
        self.tokens = tokens
        self.visible = visible
        self.is_compaction = is_compaction


def _raw_view(entries: Sequence[SessionEntry]) -> _View:
    return _View(
        kind=lambda index: _raw_kind(entries[index]),
        tokens=lambda index: sum(estimate_tokens(m) for m in _raw_messages(entries[index])),
        visible=lambda index: _raw_visible(entries[index]),
        is_compaction=lambda index: type(entries[index]) is CompactionEntry,
    )


def _context_view(context: PathContext) -> _View:
    entries, messages = context.entries, context.messages

    def kind(index: int) -> int:
        return _NONE if type(entries[index]) is CompactionEntry else _messages_kind(messages[index])

    return _View(
        kind=kind,
        tokens=lambda index: sum(estimate_tokens(m) for m in messages[index]),
        visible=lambda index: bool(messages[index]),
        is_compaction=lambda index: type(entries[index]) is CompactionEntry,
    )


def _turn_start(view: _View, entry_index: int, start: int) -> int:
    for index in range(entry_index, start - 1, -1):
        if view.kind(index) == _TURN:
            return index
    return -1


def _first_cut_point(view: _View, start: int, end: int) -> int:
    for index in range(start, end):
        if view.kind(index) != _NONE:
            return index
    return -1


def _last_cut_point(view: _View, start: int, end: int) -> int:
    for index in range(end - 1, start - 1, -1):
        if view.kind(index) != _NONE:
            return index
    return -1


def _cut(
    view: _View,
    start: int,
    end: int,
    keep_recent_tokens: int,
    recovery: Callable[[int, int], bool] | None = None,
) -> CutPoint:
    """Pi's walk. Cut points are looked for only where the walk needs them (near the entry
    that reached the budget), so the cost follows the kept part, not the whole path."""
    accumulated = 0
    reached = -1
    for index in range(end - 1, start - 1, -1):
        tokens = view.tokens(index)
        if tokens == 0:
            continue
        accumulated += tokens
        if accumulated >= keep_recent_tokens:
            reached = index
            break
    if reached < 0:
        # Never reached the budget: keep from the first cut point.
        cut = _first_cut_point(view, start, end)
    else:
        # The nearest cut point at or after the entry that reached the budget; when only tool
        # results follow it (they exceeded the budget by themselves), the last cut point:
        # their call.
        cut = _first_cut_point(view, reached, end)
        if cut < 0:
            cut = _last_cut_point(view, start, reached)
    if cut < 0:
        return CutPoint(start, -1, False)  # no cut point at all: keep everything
    if reached >= 0 and recovery is not None and recovery(cut, end):
        cut += 1  # (needs a non-empty suffix, so `cut` stays inside [start, end))
    # Keep the metadata entries just before the cut with it (model or thinking changes, labels).
    while cut > start and not view.is_compaction(cut - 1) and not view.visible(cut - 1):
        cut -= 1
    if view.kind(cut) == _TURN:
        return CutPoint(cut, -1, False)
    turn_start = _turn_start(view, cut, start)
    return CutPoint(cut, turn_start, turn_start != -1)


def find_cut_point(
    entries: Sequence[SessionEntry], start: int, end: int, keep_recent_tokens: int
) -> CutPoint:
    """Where to cut `entries[start:end]` (as stored, no context edits) to keep about
    `keep_recent_tokens` (Pi's `findCutPoint`)."""
    return _cut(_raw_view(entries), start, end, keep_recent_tokens)


def find_turn_start_index(entries: Sequence[SessionEntry], entry_index: int, start: int = 0) -> int:
    """The entry at or before `entry_index` (not before `start`) that starts its turn: a user,
    `!` command, custom or summary message. -1 when there is none."""
    return _turn_start(_raw_view(entries), entry_index, start)


def find_projected_turn_start_index(
    entries: Sequence[ProjectedEntry], entry_index: int, start: int = 0
) -> int:
    """`find_turn_start_index` on projected entries (context edits applied)."""
    return _turn_start(
        _context_view(PathContext.of_projection_entries(entries)), entry_index, start
    )


def _recovery_suffix(context: PathContext) -> Callable[[int, int], bool]:
    """Pi 1.6's recovery case: the kept tail after the cut holds nothing the model would see
    except an omitted (hidden) reply attempt and its omission edits; the cut then moves one
    entry forward so the hidden attempt is not kept for nothing."""
    entries, messages = context.entries, context.messages

    def moves_forward(cut: int, end: int) -> bool:
        suffix = range(cut + 1, end)

        def visible(index: int) -> bool:
            entry = entries[index]
            return type(entry) is not ContextEditEntry and _raw_visible(entry)

        def omitted(index: int) -> bool:
            return not messages[index] and visible(index)

        def omitted_reply(index: int) -> bool:
            entry = entries[index]
            return (
                isinstance(entry, MessageEntry | RawEntry)
                and isinstance(entry.message, AssistantMessage)
                and omitted(index)
            )

        if not any(omitted_reply(index) for index in suffix):
            return False
        omitted_ids = {entries[index].id for index in suffix if omitted(index)}
        for index in suffix:
            entry = entries[index]
            if (
                isinstance(entry, ContextEditEntry)
                and entry.replacement is not None
                and entry.target_id not in omitted_ids
            ):
                return False  # an edit that replaces kept content is itself context
        return all(
            type(entries[index]) is not CompactionEntry and (not visible(index) or omitted(index))
            for index in suffix
        )

    return moves_forward


def cut_context(context: PathContext, start: int, end: int, keep_recent_tokens: int) -> CutPoint:
    """The cut point on a path's context (context edits applied), with Pi 1.6's recovery step."""
    return _cut(_context_view(context), start, end, keep_recent_tokens, _recovery_suffix(context))


def find_projected_cut_point(
    entries: Sequence[ProjectedEntry], start: int, end: int, keep_recent_tokens: int
) -> CutPoint:
    """The cut point on projected entries (Pi 1.6's `findProjectedCutPoint`): the same walk on
    what the model sees after context edits, plus the recovery step forward."""
    return cut_context(PathContext.of_projection_entries(entries), start, end, keep_recent_tokens)
