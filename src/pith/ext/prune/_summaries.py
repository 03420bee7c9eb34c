"""Asking for the `summarize` strategy's summaries: which model, the fallback to the session
model, and the requests started early (at `agent_end`) so the next prompt rarely waits.

The pure half (what to summarize, the prompt, the summary text) is `_summary`; the request
itself is `_summarizer`; recording the result is the extension's (`_extension`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import msgspec

from pith.ai import Model, Usage
from pith.errors import PithError
from pith.ext.prune._config import PruneConfig
from pith.ext.prune._records import SummaryDetails, SummaryRef
from pith.ext.prune._summarizer import SummaryFailed, ask_summary
from pith.ext.prune._summary import (
    SUMMARY_SYSTEM_PROMPT,
    SummaryJob,
    finish_summary,
    serialize_batch,
)
from pith.extensions import ExtensionContext

__all__ = ["Reply", "Summaries", "summary_details"]

Reply = tuple[str | None, str]
"""(the summary message's text, the model that wrote it) or (None, why there is none)."""


def summary_details(job: SummaryJob, model_key: str) -> object:
    """The `details` of the summary message for `job` (JSON-ready)."""
    details = SummaryDetails(
        tool_call_refs=[
            SummaryRef(
                short_id=ref,
                tool_call_id=record.tool_call_id,
                result_timestamp=record.result_timestamp,
            )
            for record, ref in zip(job.records, job.refs, strict=True)
        ],
        tool_names=sorted({record.tool_name for record in job.records}),
        model=model_key,
    )
    return msgspec.to_builtins(details)


@dataclass
class Summaries:
    summarizer: Model | None = None
    """`prune.summarizerModel` when it names a known model; None: the session model."""
    started: dict[tuple[str, ...], asyncio.Task[Reply]] = field(default_factory=dict)
    """Requests started early, by the batch's keys."""
    spent: list[Usage] = field(default_factory=list)
    """The usage of every summarizer reply not yet counted in the stats (`take_spent`)."""

    def take_spent(self) -> list[Usage]:
        """The replies' usage since the last call, once."""
        spent, self.spent = self.spent, []
        return spent

    def choose(self, config: PruneConfig, ctx: ExtensionContext) -> None:
        """Resolve `prune.summarizerModel`; an unknown one is warned about once and the
        session model is used."""
        self.summarizer = None
        name = config.summarizer_model
        registry = ctx.model_registry
        if name == "default" or registry is None:
            return
        try:
            self.summarizer = registry.find(name).model
        except PithError as error:
            ctx.ui.notify(
                f'settings "prune.summarizerModel" {name!r} is not a usable model ({error}); '
                "summarizing with the session model",
                "warning",
            )

    def start(self, jobs: list[SummaryJob], config: PruneConfig, ctx: ExtensionContext) -> None:
        """Ask for the summaries of `jobs` now, without waiting for them."""
        for job in jobs:
            if job.keys not in self.started:
                self.started[job.keys] = asyncio.ensure_future(self.ask(job, config, ctx))

    def drop(self) -> None:
        """Cancel the requests started early (the branch or the session changed)."""
        for task in self.started.values():
            task.cancel()
        self.started = {}

    async def collect(
        self, jobs: list[SummaryJob], config: PruneConfig, ctx: ExtensionContext
    ) -> list[Reply]:
        """The replies for `jobs`, from the requests started early or asked for now (all at
        once); a request started for a batch not in `jobs` is cancelled."""
        tasks = [
            self.started.pop(job.keys)
            if job.keys in self.started
            else asyncio.ensure_future(self.ask(job, config, ctx))
            for job in jobs
        ]
        self.drop()
        return list(await asyncio.gather(*tasks))

    async def ask(self, job: SummaryJob, config: PruneConfig, ctx: ExtensionContext) -> Reply:
        """The summary for `job`. A named summarizer that fails is retried once on the
        session model (a notice says so). Never raises for the provider's sake."""
        models = [m for m in (self.summarizer, ctx.model) if m is not None]
        if len(models) == 2 and models[0].key == models[1].key:
            models = models[:1]
        prompt = serialize_batch(job)
        idle = config.summarizer_idle_timeout_ms / 1000
        total = config.summarizer_max_timeout_ms / 1000
        reason = "no model to summarize with"
        for position, model in enumerate(models):
            try:
                reply = await ask_summary(
                    model,
                    ctx.model_registry,
                    ctx.get_api_key(model),
                    SUMMARY_SYSTEM_PROMPT,
                    prompt,
                    idle=idle,
                    total=total,
                    spent=self.spent,
                )
            except SummaryFailed as error:
                reason = f"{model.key}: {error}"
            except Exception as error:  # a provider bug must not cost the user's turn
                reason = f"{model.key}: {type(error).__name__}: {error}"
            else:
                text = finish_summary(reply, job.refs)
                if text is not None:
                    return text, model.key
                reason = f"{model.key}: the summary was empty"
            if position + 1 < len(models):
                ctx.ui.notify(f"summarizer {reason}; trying the session model", "warning")
        return None, reason
