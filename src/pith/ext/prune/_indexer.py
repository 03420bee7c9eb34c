"""Capture written down: a batch plan (`_capture`) becomes the pruner's entries (spill files
first, `_spill`) and joins the index at once; the entries wait in the journal until they
matter."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from pith.ai import AssistantMessage, ToolResultMessage
from pith.ext.prune._capture import BatchPlan, pending_batches, plan_batch
from pith.ext.prune._index import PruneIndex
from pith.ext.prune._journal import Journal
from pith.ext.prune._records import ALIAS_TYPE, FRONTIER_TYPE, INDEX_TYPE, Frontier, IndexEntry
from pith.ext.prune._settings import PrunerSettings
from pith.ext.prune._spill import make_record
from pith.extensions import ExtensionContext
from pith.session import MessageEntry

__all__ = ["Indexer"]


class Indexer:
    def __init__(self, settings: PrunerSettings, journal: Journal) -> None:
        self._settings = settings
        self._journal = journal

    def capture(
        self,
        message: AssistantMessage,
        results: Sequence[ToolResultMessage],
        index: PruneIndex,
        ctx: ExtensionContext,
    ) -> BatchPlan:
        """Capture one finished assistant turn's tool calls as a batch."""
        plan = plan_batch(message, results, index, self._settings.config, ctx.cwd)
        self._commit(plan, message.timestamp, index, ctx)
        return plan

    def capture_pending(self, index: PruneIndex, ctx: ExtensionContext) -> tuple[int, int]:
        """Index the branch's finished batches past the frontier; returns (batches, calls)
        indexed."""
        store = ctx.session
        if store is None:
            return 0, 0
        messages = [e.message for e in store.get_branch() if isinstance(e, MessageEntry)]
        batches = calls = 0
        for message, results in pending_batches(messages, index.frontier):
            plan = self.capture(message, results, index, ctx)
            if plan.outcome == "indexed":
                batches += 1
                calls += len(plan.calls)
        return batches, calls

    def _commit(
        self, plan: BatchPlan, stamp: int | float, index: PruneIndex, ctx: ExtensionContext
    ) -> None:
        """Queue what `plan` decided: aliases, then the index entry (spill files first) or,
        for a skipped batch, the frontier."""
        journal = self._journal
        for alias in plan.aliases:
            journal.queue(ALIAS_TYPE, msgspec.to_builtins(alias))
            index.add_alias(alias)
        if plan.outcome == "indexed":
            records = [make_record(call, self._settings.config, ctx) for call in plan.calls]
            entry = IndexEntry(assistant_timestamp=stamp, tool_calls=records)
            journal.queue(INDEX_TYPE, msgspec.to_builtins(entry))
            index.add_batch(entry)
        elif plan.outcome is not None and plan.last_call is not None:
            call_id, stamp = plan.last_call
            frontier = Frontier(
                last_tool_call_id=call_id, last_result_timestamp=stamp, outcome=plan.outcome
            )
            journal.queue(FRONTIER_TYPE, msgspec.to_builtins(frontier))
            index.frontier = frontier.key
