"""The context size kept up to date as entries are appended, for the between-turn check.

Pi re-projects the whole path and re-estimates it before every model call. The figure only
changes by what was appended since, so the tracker estimates each new message once: the cost
of a check no longer grows with the history. A compaction, a context edit or a move of the
leaf changes what came before; the tracker then asks to be reset from a fresh projection.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pith.ai import AgentMessage, SystemMessage, current_system_message
from pith.compaction._accounting import (
    ContextEstimate,
    calculate_context_tokens,
    estimate_projected_context_tokens,
    invalidates_usage,
    usable_usage,
)
from pith.compaction._settings import CompactionSettingsLike, should_compact
from pith.compaction.tokens import estimate_tokens
from pith.session import SessionEntry, SessionProjection, entry_messages

__all__ = ["ContextTokenTracker", "StaleTrackerError"]


class StaleTrackerError(RuntimeError):
    """The tracker saw a compaction, a context edit or a leaf move and needs `reset`."""


class ContextTokenTracker:
    """`estimate_projected_context_tokens` of the active path, updated per appended entry.

    Build it with `ContextTokenTracker.start(projection, path)`, feed every entry appended to
    the active branch to `add_entry` (or messages to `add_messages`), read `tokens` or call
    `exceeds` before the next model call. After a compaction, a context edit or tree
    navigation `stale` is True and `reset` must be called with the new projection and path.
    """

    def __init__(self) -> None:
        self._leaf_id: str | None = None
        self._count = 0
        self._usage: int | None = None
        self._usage_index: int | None = None
        self._trailing = 0
        self._estimated = 0
        self._systems: list[SystemMessage] = []
        self._system_tokens = 0
        self._stale = False

    @classmethod
    def start(
        cls, projection: SessionProjection, path: Sequence[SessionEntry]
    ) -> ContextTokenTracker:
        """A tracker for the context of `path` (projected as `projection`)."""
        tracker = cls()
        tracker.reset(projection, path)
        return tracker

    def reset(self, projection: SessionProjection, path: Sequence[SessionEntry]) -> None:
        """Start over from a full estimate of `projection` (one pass over the context)."""
        estimate = estimate_projected_context_tokens(projection, path)
        messages = projection.messages
        self._leaf_id = path[-1].id if path else None
        self._count = len(messages)
        self._stale = False
        if estimate.last_usage_index is not None:
            self._usage = estimate.usage_tokens
            self._usage_index = estimate.last_usage_index
            self._trailing = estimate.trailing_tokens
            self._systems = []
            self._estimated = self._system_tokens = 0
            return
        self._usage = self._usage_index = None
        self._trailing = 0
        self._systems = [message for message in messages if isinstance(message, SystemMessage)]
        self._system_tokens = self._fold_tokens()
        self._estimated = estimate.tokens - self._system_tokens

    def _fold_tokens(self) -> int:
        system = current_system_message(self._systems)
        return estimate_tokens(system) if system is not None else 0

    @property
    def stale(self) -> bool:
        """True once something changed the earlier context: call `reset`."""
        return self._stale

    @property
    def leaf_id(self) -> str | None:
        """The last entry the tracker has seen."""
        return self._leaf_id

    def add_messages(self, messages: Iterable[AgentMessage]) -> None:
        """Account for messages appended at the end of the context."""
        for message in messages:
            usage = usable_usage(message)
            if usage is not None:
                self._usage = calculate_context_tokens(usage)
                self._usage_index = self._count
                self._trailing = 0
            elif self._usage is not None:
                self._trailing += estimate_tokens(message)
            elif isinstance(message, SystemMessage):
                self._systems.append(message)
                self._system_tokens = self._fold_tokens()
            else:
                self._estimated += estimate_tokens(message)
            self._count += 1

    def add_entry(self, entry: SessionEntry) -> None:
        """Account for an entry appended to the session. An entry that is not a child of the
        last one seen (the leaf moved), a compaction or a context edit makes the tracker
        stale."""
        if self._stale:
            return
        if entry.parent_id != self._leaf_id or invalidates_usage(entry):
            self._stale = True
            return
        self._leaf_id = entry.id
        self.add_messages(entry_messages(entry))

    def estimate(self) -> ContextEstimate:
        """The current figure, as `estimate_projected_context_tokens` would give it."""
        if self._stale:
            raise StaleTrackerError(
                "the context changed before its end (compaction, context edit or leaf move); "
                "reset the tracker from the new projection"
            )
        if self._usage is not None:
            return ContextEstimate(
                tokens=self._usage + self._trailing,
                usage_tokens=self._usage,
                trailing_tokens=self._trailing,
                last_usage_index=self._usage_index,
            )
        tokens = self._estimated + self._system_tokens
        return ContextEstimate(
            tokens=tokens, usage_tokens=0, trailing_tokens=tokens, last_usage_index=None
        )

    @property
    def tokens(self) -> int:
        """The current context size in tokens."""
        return self.estimate().tokens

    def exceeds(self, context_window: int, settings: CompactionSettingsLike) -> bool:
        """`should_compact` for the current size."""
        return should_compact(self.tokens, context_window, settings)
