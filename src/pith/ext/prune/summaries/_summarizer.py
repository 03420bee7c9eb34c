"""Asking for the `summarize` strategy's summaries: which model, the fallback to the session
model, and the requests started early (at `agent_end`) so the next prompt rarely waits.

The pure half (what to summarize, the prompt, the summary text) is `_jobs`; the request
itself is `_request`; recording the result is `_recorder`'s.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import msgspec

from pith.ai import Model, Usage, as_thinking_level
from pith.errors import PithError
from pith.ext.prune._config import PruneConfig
from pith.ext.prune._records import SummaryDetails, SummaryRef
from pith.ext.prune.summaries._fallback import Fallback
from pith.ext.prune.summaries._jobs import (
    SUMMARY_SYSTEM_PROMPT,
    SummaryJob,
    finish_summary,
    serialize_batch,
)
from pith.ext.prune.summaries._request import SummaryFailed, ask_summary
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
    fallback: Fallback = field(default_factory=Fallback)

    def take_spent(self) -> list[Usage]:
        """The replies' usage since the last call, once."""
        spent, self.spent = self.spent, []
        return spent

    def choose(self, config: PruneConfig, ctx: ExtensionContext) -> None:
        """Resolve `prune.summarizerModel`; an unknown one is warned about once and the
        session model is used. Another summarizer than before starts without a fallback."""
        previous = self.summarizer.key if self.summarizer is not None else None
        self.summarizer = None
        name = config.summarizer_model
        registry = ctx.model_registry
        if name != "default" and registry is not None:
            try:
                self.summarizer = registry.find(name).model
            except PithError as error:
                ctx.ui.notify(
                    f'settings "prune.summarizerModel" {name!r} is not a usable model '
                    f"({error}); summarizing with the session model",
                    "warning",
                )
        if (self.summarizer.key if self.summarizer is not None else None) != previous:
            self.fallback.reset()

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
        """The summary for `job` (see `ask_text`)."""
        text, model_key = await self.ask_text(
            SUMMARY_SYSTEM_PROMPT, serialize_batch(job), config, ctx
        )
        if text is None:
            return None, model_key
        finished = finish_summary(text, job.refs)
        return (finished, model_key) if finished is not None else (None, model_key)

    async def ask_text(
        self, system_prompt: str, prompt: str, config: PruneConfig, ctx: ExtensionContext
    ) -> Reply:
        """The summarizer's reply to `prompt`, and the model that wrote it; or None and why
        not. A named summarizer that fails transiently is retried once on the session model,
        which then stays in use for a while (`_fallback`). Never raises for the provider's
        sake."""
        primary, session = self.summarizer, ctx.model
        if primary is None or session is None or primary.key == session.key:
            model = primary or session
            if model is None:
                return None, "no model to summarize with"
            text, failure = await self._once(model, system_prompt, prompt, config, ctx)
            return (text, model.key) if text is not None else (None, failure[0])
        route = self.fallback.route()
        if route != "session":
            text, (reason, transient) = await self._once(
                primary, system_prompt, prompt, config, ctx
            )
            if text is not None:
                self.fallback.primary_ok(route)
                return text, primary.key
            self.fallback.primary_failed(route)
            if not transient:
                return None, reason
            ctx.ui.notify(f"summarizer {reason}; trying the session model", "warning")
        text, (reason, _) = await self._once(session, system_prompt, prompt, config, ctx)
        if text is None:
            return None, reason
        if route != "session":
            self.fallback.fell_back()
        return text, session.key

    async def _once(
        self,
        model: Model,
        system_prompt: str,
        prompt: str,
        config: PruneConfig,
        ctx: ExtensionContext,
    ) -> tuple[str | None, tuple[str, bool]]:
        """One request: (the reply, ("", False)) or (None, (why not, whether transient))."""
        thinking = config.summarizer_thinking
        try:
            reply = await ask_summary(
                model,
                ctx.model_registry,
                ctx.get_api_key(model),
                system_prompt,
                prompt,
                idle=config.summarizer_idle_timeout_ms / 1000,
                total=config.summarizer_max_timeout_ms / 1000,
                spent=self.spent,
                thinking=as_thinking_level(thinking) if thinking != "default" else "off",
            )
        except SummaryFailed as error:
            return None, (f"{model.key}: {error}", error.kind == "transient")
        except Exception as error:  # a provider bug must not cost the user's turn
            return None, (f"{model.key}: {type(error).__name__}: {error}", True)
        return reply, ("", False)
