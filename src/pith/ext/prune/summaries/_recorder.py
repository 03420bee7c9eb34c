"""Recording summaries: the batches a new prompt makes prunable are summarized and each
summary becomes a `prune-summary` message just before the prompt.

A batch whose summary fails is masked instead, one whose summary is longer than its results
stays raw; both outcomes are persisted (`prune-summary-outcome`) so a reload renders the same
bytes. Summaries are recorded only while pith is idle: one recorded mid-run would steer the
model, so the next prompt does it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from pith.ai import AgentMessage
from pith.errors import PithError
from pith.ext.prune._index import PruneIndex
from pith.ext.prune._journal import Journal
from pith.ext.prune._settings import PrunerSettings
from pith.ext.prune._stats import Tally
from pith.ext.prune._status import StatusLine
from pith.ext.prune.summaries._jobs import plan_jobs
from pith.ext.prune.summaries._summarizer import Summaries, summary_details
from pith.extensions import ExtensionContext

__all__ = ["Messages", "SendSummary", "SummaryRecorder"]

SendSummary = Callable[[str, object], Awaitable[None]]
"""Records one summary message (its text, its JSON-ready details) at once, starting no turn;
raises `PithError` when the session refuses."""

Messages = Callable[[], Sequence[AgentMessage]]
"""What the context holds now."""


class SummaryRecorder:
    def __init__(
        self,
        summaries: Summaries,
        settings: PrunerSettings,
        journal: Journal,
        tally: Tally,
        status: StatusLine,
        send: SendSummary,
    ) -> None:
        self._summaries = summaries
        self._settings = settings
        self._journal = journal
        self._tally = tally
        self._status = status
        self._send = send

    def start_early(self, messages: Messages, index: PruneIndex, ctx: ExtensionContext) -> None:
        """Ask now for the summaries the next prompt will record, without waiting for them."""
        config = self._settings.config
        jobs = plan_jobs(messages(), index, config, ctx.cwd)
        self._summaries.start(jobs, config, ctx)

    async def record(self, messages: Messages, index: PruneIndex, ctx: ExtensionContext) -> int:
        """Summarize the batches a new prompt makes prunable; returns how many summaries were
        recorded. Never raises for the summarizer's sake: a failed batch is masked."""
        if not ctx.is_idle():
            return 0  # a summary recorded mid-run would steer; the next prompt does it
        config, journal = self._settings.config, self._journal
        jobs = plan_jobs(messages(), index, config, ctx.cwd)
        if not jobs:
            return 0
        journal.flush(ctx)  # the records (and their refs) before the summaries that name them
        plural = "batch" if len(jobs) == 1 else "batches"
        self._status.show(ctx, f"pruner: summarizing {len(jobs)} {plural}…")
        try:
            replies = await self._summaries.collect(jobs, config, ctx)
        finally:
            self._status.show_saved(ctx)
        self._tally.add_spent(self._summaries.take_spent())
        recorded = 0
        for job, (text, model_key) in zip(jobs, replies, strict=True):
            if text is None:
                refs = f"{job.refs[0]}–{job.refs[-1]}" if len(job.refs) > 1 else job.refs[0]
                ctx.ui.notify(f"no summary for {refs} ({model_key}); masked instead", "warning")
                journal.decide(index, job.keys, "masked", model_key, ctx)
            elif len(text) >= job.raw_chars:
                reason = "the summary was longer than the results"
                journal.decide(index, job.keys, "kept-raw", reason, ctx)
            else:
                try:
                    await self._send(text, summary_details(job, model_key))
                except PithError as error:
                    ctx.ui.notify(f"cannot record a pruner summary: {error}", "warning")
                    continue
                index.decide(job.keys, "summarized")
                journal.written = True
                recorded += 1
        self._tally.change(summaries=self._tally.current.summaries + recorded)
        self._tally.save(journal, ctx)
        return recorded
