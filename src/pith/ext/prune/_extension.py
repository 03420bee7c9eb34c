"""The context pruner as an extension (strategies `summarize` and `mask`).

- `session_start` / `session_tree`: read the `prune` settings, rebuild the index from the
  branch's entries (a branch left behind takes its records with it).
- `before_agent_start`: the loaded context files (AGENTS.md, CLAUDE.md) join the protected
  paths; with `summarize`, the batches the new prompt makes prunable are summarized (`_summary`,
  `_summarizer`) and each summary is recorded as a `prune-summary` custom message just before
  the prompt: while idle, so it starts no turn and steers nothing.
- `turn_end`: capture the turn's tool calls as one batch (`_capture`), spill huge results,
  write the entries (`_records`); check the budget triggers (`_budget`), which let the current
  task's older turns be masked.
  Then the closed chains older than the newest `chainCompression.rollingWindow` are
  compressed (`_compress`, `prune-chain` entries).
- `agent_end`: with `summarize`, start the summaries the next prompt will record.
- `context`: stub the finished batches' results in this request only (`_render`), purge
  old failed calls' large arguments (`_purge`), apply the compressed chains (`_chain_render`),
  sweep orphan results (`_sweep`); the same list when nothing changes.
- tool `context_tree_query`: the raw outputs back (`_query`); offered from the first run
  that starts with records in the index.
- `/pruner` and its subcommands (`_commands`); the running totals (`_stats`); settings the
  commands set are saved by `_settings_file`.

Summary delivery: `api.send_message(..., display=False)` while pith is idle (the handler runs
before the run starts) records the message at once and appends it to the conversation, with
no turn and no steering (a steered summary would make the model answer it). A batch whose
summary fails is masked instead, one whose summary is longer than its results stays raw; both
outcomes are persisted (`prune-summary-outcome`) so a reload renders the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import msgspec

from pith.agent import AbortSignal, ToolResult, UpdateCallback
from pith.ai import AgentMessage
from pith.errors import PithError
from pith.ext.prune._budget import check_budget
from pith.ext.prune._capture import (
    BatchPlan,
    pending_batches,
    plan_batch,
)
from pith.ext.prune._chain_render import apply_chains
from pith.ext.prune._commands import SUBCOMMANDS, complete, run_command
from pith.ext.prune._compress import compress_chains
from pith.ext.prune._config import PruneConfig, read_config
from pith.ext.prune._index import PruneIndex
from pith.ext.prune._purge import purge_errors
from pith.ext.prune._query import (
    QUERY_DESCRIPTION,
    QUERY_PARAMETERS,
    check_ids,
    format_query,
)
from pith.ext.prune._records import (
    ALIAS_TYPE,
    DIAGNOSTIC_TYPE,
    FRONTIER_TYPE,
    INDEX_TYPE,
    OUTCOME_TYPE,
    SUMMARY_TYPE,
    Frontier,
    IndexEntry,
    SummaryOutcome,
)
from pith.ext.prune._recover import read_raw
from pith.ext.prune._render import RenderStats, render
from pith.ext.prune._spill import make_record
from pith.ext.prune._stats import (
    STATS_TYPE,
    PruneStats,
    add_usage,
    masked_batches,
    stats_from_entries,
)
from pith.ext.prune._stub import QUERY_TOOL
from pith.ext.prune._summaries import Summaries, summary_details
from pith.ext.prune._summary import (
    plan_jobs,
)
from pith.ext.prune._sweep import sweep_orphans
from pith.extensions import (
    ContextResult,
    ExtensionAPI,
    ExtensionContext,
    ToolDefinition,
    error_result,
    text_result,
)
from pith.extensions.events import BeforeAgentStart, ContextEvent, TurnEnd
from pith.session import CustomEntry, CustomMessageEntry, MessageEntry

__all__ = ["Pruner", "register"]


@dataclass
class Pruner:
    """The extension's state for one pith process."""

    api: ExtensionAPI
    config: PruneConfig = field(default_factory=PruneConfig)
    overrides: dict[str, object] = field(default_factory=dict)
    """`prune` keys set by `/pruner` in this process (also saved to settings.json), over
    the settings read at start-up."""
    index: PruneIndex = field(default_factory=PruneIndex)
    last: RenderStats = field(default_factory=RenderStats)
    status: str | None = None
    """What the footer shows for the pruner (set only when it changes)."""
    context_files: frozenset[str] = frozenset()
    pending: list[tuple[str, object]] = field(default_factory=list)
    """Entries captured but not yet written: they are written when they first matter (a
    request masks something, or `/pruner now`), so a session the pruner never changes holds
    exactly what it would without it. Capture is a function of the branch, so what was not
    written is captured again on load."""
    summaries: Summaries = field(default_factory=Summaries)
    seen: list[AgentMessage] | None = None
    """The messages of the last request (what is in the context now), for summarizing."""
    budget_cut: int | float | None = None
    """Set by a budget trigger: the assistant timestamp before which the current task's
    batches are maskable too. Only moves forward, so stubs stay byte-stable; in memory only,
    since what it masked is recorded as `masked` outcomes (`decide`)."""
    previous_fraction: float | None = None
    """The context usage share after the last turn with a batch (the delta trigger)."""
    stats: PruneStats = field(default_factory=PruneStats)
    saved_stats: PruneStats = field(default_factory=PruneStats)
    """The stats as the branch's last `prune-stats` entry holds them."""
    written: bool = False
    """Whether the branch holds any pruner entry: stats are written only after one."""
    diagnostics: set[tuple[str, str]] = field(default_factory=set)
    """(kind, detail) already written in this process."""

    @property
    def active(self) -> bool:
        return self.config.enabled

    # --- set-up ------------------------------------------------------------------------------

    def load(self, ctx: ExtensionContext) -> None:
        self.configure(ctx)
        self.rebuild(ctx)

    def configure(self, ctx: ExtensionContext) -> None:
        """Read the `prune` settings (with the `/pruner` overrides) into `config`."""
        raw = ctx.settings.get("prune")
        if self.overrides:
            raw = {**raw, **self.overrides} if isinstance(raw, Mapping) else dict(self.overrides)
        config, problems = read_config(raw)
        for problem in problems:
            ctx.ui.notify(problem, "warning")
        self.config = config.with_context_files(self.context_files)
        self.summaries.choose(self.config, ctx)

    def strategy(self, ctx: ExtensionContext) -> str:
        """`summarize` or `mask`, as things are now (no model: mask)."""
        return self.config.effective_strategy(ctx.model is not None)

    def rebuild(self, ctx: ExtensionContext) -> None:
        store = ctx.session
        branch = store.get_branch() if store is not None else []
        entries = [
            (entry.custom_type, entry.data if isinstance(entry, CustomEntry) else entry.details)
            for entry in branch
            if isinstance(entry, CustomEntry)
            or (isinstance(entry, CustomMessageEntry) and entry.custom_type == SUMMARY_TYPE)
        ]
        self.index = PruneIndex.from_entries(entries)
        stats, problems = stats_from_entries(entries)
        self.index.problems.extend(problems)
        self.stats = self.saved_stats = stats or PruneStats()
        self.written = any(custom_type.startswith("prune-") for custom_type, _ in entries)
        self.summaries.take_spent()
        self.pending = []
        self.seen = None
        self.budget_cut = None
        self.previous_fraction = None
        self.summaries.drop()
        self.last = RenderStats()
        for problem in self.index.problems:
            ctx.ui.notify(problem, "warning")
        if self.active:
            self.capture_pending(ctx)
        self.show_saved(ctx)

    def on_session_start(self, event: object, ctx: ExtensionContext) -> None:
        self.load(ctx)

    def on_session_tree(self, event: object, ctx: ExtensionContext) -> None:
        self.rebuild(ctx)

    async def on_before_agent_start(self, event: BeforeAgentStart, ctx: ExtensionContext) -> None:
        options = event.system_prompt_options
        files = frozenset(item.path for item in options.context_files)
        if files != self.context_files:
            self.context_files = files
            self.config = self.config.with_context_files(files)
        # The recovery tool is offered from the first run that starts with records: stubs are
        # only rendered before the run's own prompt, so that run's first stub finds it there,
        # and a session that never captures anything sends what it would without the pruner.
        if self.active and self.index.records and all(t.name != QUERY_TOOL for t in options.tools):
            tool = self.api.get_tool(QUERY_TOOL)
            if tool is not None:
                options.tools.append(tool)
        if self.active and self.strategy(ctx) == "summarize":
            await self.summarize(ctx)
        if self.active and self.config.chain_enabled:
            await self.compress(ctx, self.config.chain_window)

    async def compress(self, ctx: ExtensionContext, window: int, *, force: bool = False) -> int:
        """Compress the closed chains older than the newest `window` (`_compress`); returns
        how many. Never raises: a failure is a warning and the chains stay as they are."""
        try:
            return await compress_chains(self, ctx, window, force=force)
        except Exception as error:  # chain compression is an optimization, never fatal
            ctx.ui.notify(f"chain compression failed: {type(error).__name__}: {error}", "warning")
            return 0
        finally:
            self.show_saved(ctx)

    def show_saved(self, ctx: ExtensionContext) -> None:
        """The footer's pruner status: what the last pruned request saved."""
        saved = self.stats.tokens_saved
        self.set_status(ctx, f"pruned −{_tokens(saved)} tok" if self.active and saved > 0 else None)

    def set_status(self, ctx: ExtensionContext, text: str | None) -> None:
        if text != self.status:
            self.status = text
            ctx.ui.set_status(STATUS_KEY, text)

    # --- capture -----------------------------------------------------------------------------

    def on_turn_end(self, event: TurnEnd, ctx: ExtensionContext) -> None:
        if not self.active or not event.tool_results:
            return
        plan = plan_batch(event.message, event.tool_results, self.index, self.config, ctx.cwd)
        self.commit(plan, event.message.timestamp, ctx)
        self.check_budget(event.message.timestamp, ctx)

    def check_budget(self, stamp: int | float, ctx: ExtensionContext) -> None:
        """After a turn with a batch: when the context passed the budget or jumped by the
        delta, the current task's turns before this one (`stamp`) become maskable."""
        if self.config.auto_budget_threshold is None and self.config.budget_turn_delta is None:
            return
        usage = ctx.get_context_usage()
        if usage is None:
            return
        # The estimate counts the raw messages; what the last request stubbed is not sent.
        tokens = None if usage.tokens is None else max(0, usage.tokens - self.last.tokens_saved)
        check = check_budget(tokens, usage.context_window, self.config, self.previous_fraction)
        self.previous_fraction = check.fraction
        if check.fire and (self.budget_cut is None or stamp > self.budget_cut):
            self.budget_cut = stamp

    def commit(self, plan: BatchPlan, stamp: int | float, ctx: ExtensionContext) -> None:
        """Write what `plan` decided: aliases, then the index entry (spill files first) or,
        for a skipped batch, the frontier."""
        for alias in plan.aliases:
            self.pending.append((ALIAS_TYPE, msgspec.to_builtins(alias)))
            self.index.add_alias(alias)
        if plan.outcome == "indexed":
            records = [make_record(call, self.config, ctx) for call in plan.calls]
            entry = IndexEntry(assistant_timestamp=stamp, tool_calls=records)
            self.pending.append((INDEX_TYPE, msgspec.to_builtins(entry)))
            self.index.add_batch(entry)
        elif plan.outcome is not None and plan.last_call is not None:
            call_id, stamp = plan.last_call
            frontier = Frontier(
                last_tool_call_id=call_id, last_result_timestamp=stamp, outcome=plan.outcome
            )
            self.pending.append((FRONTIER_TYPE, msgspec.to_builtins(frontier)))
            self.index.frontier = frontier.key

    def flush(self, ctx: ExtensionContext) -> None:
        """Write the pending entries, in capture order (the order refs are counted in)."""
        while self.pending:
            custom_type, data = self.pending[0]
            try:
                self.api.append_entry(custom_type, data)
            except PithError as error:
                ctx.ui.notify(f"cannot record the pruner's index: {error}", "warning")
                return
            self.pending.pop(0)
            self.written = True

    def capture_pending(self, ctx: ExtensionContext) -> tuple[int, int]:
        """Index the branch's finished batches past the frontier (`/pruner now`); returns
        (batches, calls) indexed."""
        store = ctx.session
        if store is None:
            return 0, 0
        messages = [e.message for e in store.get_branch() if isinstance(e, MessageEntry)]
        batches = calls = 0
        for message, results in pending_batches(messages, self.index.frontier):
            plan = plan_batch(message, results, self.index, self.config, ctx.cwd)
            self.commit(plan, message.timestamp, ctx)
            if plan.outcome == "indexed":
                batches += 1
                calls += len(plan.calls)
        return batches, calls

    # --- summarize -----------------------------------------------------------------------------

    def context_messages(self, ctx: ExtensionContext) -> Sequence[AgentMessage]:
        if self.seen is not None:
            return self.seen
        store = ctx.session
        if store is None:
            return []
        return [e.message for e in store.get_branch() if isinstance(e, MessageEntry)]

    def on_agent_end(self, event: object, ctx: ExtensionContext) -> None:
        """Start the summaries the next prompt will record, so it need not wait for them —
        when someone is there to send a next prompt (interactive, rpc). In print and json
        modes the process usually ends here: a summary started now would be thrown away, so
        the next prompt (if any) asks for it."""
        if not self.active or self.strategy(ctx) != "summarize" or not ctx.has_ui:
            return
        jobs = plan_jobs(self.context_messages(ctx), self.index, self.config, ctx.cwd)
        self.summaries.start(jobs, self.config, ctx)

    def on_session_shutdown(self, event: object, ctx: ExtensionContext) -> None:
        self.summaries.drop()

    def on_session_compact(self, event: object, ctx: ExtensionContext) -> None:
        # The compaction summary replaced the old results: nothing is left to summarize until
        # the next request shows what the context holds now.
        self.seen = []
        self.summaries.drop()

    async def summarize(self, ctx: ExtensionContext) -> int:
        """Summarize the batches a new prompt makes prunable; returns how many summaries were
        recorded. Never raises for the summarizer's sake: a failed batch is masked."""
        if not ctx.is_idle():
            return 0  # a summary recorded mid-run would steer; the next prompt does it
        jobs = plan_jobs(self.context_messages(ctx), self.index, self.config, ctx.cwd)
        if not jobs:
            return 0
        self.flush(ctx)  # the records (and their refs) before the summaries that name them
        plural = "batch" if len(jobs) == 1 else "batches"
        self.set_status(ctx, f"pruner: summarizing {len(jobs)} {plural}…")
        try:
            replies = await self.summaries.collect(jobs, self.config, ctx)
        finally:
            self.show_saved(ctx)
        for usage in self.summaries.take_spent():
            self.stats = add_usage(self.stats, usage)
        recorded = 0
        for job, (text, model_key) in zip(jobs, replies, strict=True):
            if text is None:
                refs = f"{job.refs[0]}–{job.refs[-1]}" if len(job.refs) > 1 else job.refs[0]
                ctx.ui.notify(f"no summary for {refs} ({model_key}); masked instead", "warning")
                self.decide(job.keys, "masked", model_key, ctx)
            elif len(text) >= job.raw_chars:
                self.decide(job.keys, "kept-raw", "the summary was longer than the results", ctx)
            else:
                try:
                    await self.api.send_message(
                        SUMMARY_TYPE,
                        text,
                        display=False,
                        details=summary_details(job, model_key),
                        deliver_as="follow_up",  # idle: recorded at once, no turn
                    )
                except PithError as error:
                    ctx.ui.notify(f"cannot record a pruner summary: {error}", "warning")
                    continue
                self.index.decide(job.keys, "summarized")
                self.written = True
                recorded += 1
        self.stats = msgspec.structs.replace(self.stats, summaries=self.stats.summaries + recorded)
        self.save_stats(ctx)
        return recorded

    def save_stats(self, ctx: ExtensionContext) -> None:
        """Write the stats when they changed, once the pruner has written anything else (a
        session the pruner never changed stays as it was)."""
        if not self.written or self.stats == self.saved_stats:
            return
        try:
            self.api.append_entry(STATS_TYPE, msgspec.to_builtins(self.stats))
        except PithError as error:
            ctx.ui.notify(f"cannot record the pruner's stats: {error}", "warning")
            return
        self.saved_stats = self.stats

    def decide(
        self,
        keys: Sequence[str],
        outcome: Literal["masked", "kept-raw"],
        reason: str,
        ctx: ExtensionContext,
    ) -> None:
        """Persist that the records `keys` get no summary: masked (the summarizer failed, or a
        budget trigger masked them mid-task, so a reload renders them as stubs without the
        in-memory cut and they are not summarized later) or kept raw."""
        entry = SummaryOutcome(keys=list(keys), outcome=outcome, reason=reason)
        try:
            self.api.append_entry(OUTCOME_TYPE, msgspec.to_builtins(entry))
        except PithError as error:
            ctx.ui.notify(f"cannot record the pruner's index: {error}", "warning")
            return
        self.written = True
        self.index.decide(keys, outcome)

    # --- render --------------------------------------------------------------------------------

    def render(
        self, messages: list[AgentMessage], ctx: ExtensionContext
    ) -> tuple[list[AgentMessage], RenderStats]:
        """`messages` with the stubs the pruner's state calls for now (`_render.render`)."""
        strategy = self.strategy(ctx)
        return render(messages, self.index, self.config, ctx.cwd, strategy, self.budget_cut)

    def view(self, ctx: ExtensionContext) -> RenderStats:
        """What the context masks now: the session's messages rendered as the next request
        would render them (what `/pruner status` and `/pruner tree` show, and what `pith
        context` sends through the `context` hook). Computed from the session and the index,
        which is rebuilt from the session's entries, so a resumed session shows its stubs
        before its first request. Nothing when pruning is off."""
        store = ctx.session
        if not self.active or store is None:
            return RenderStats()
        return self.render(list(store.projection().messages), ctx)[1]

    def on_context(self, event: ContextEvent, ctx: ExtensionContext) -> ContextResult | None:
        if not self.active:
            return None
        self.seen = event.messages
        messages, stats = self.render(event.messages, ctx)
        self.last = stats
        if messages is not event.messages:
            self.flush(ctx)
            if stats.budget_masked:
                self.decide(stats.budget_masked, "masked", "budget trigger, mid-task", ctx)
            active = self.api.get_active_tools()
            if QUERY_TOOL not in active:  # masked mid-run (a follow-up prompt): from next request
                self.api.set_active_tools([*active, QUERY_TOOL])
            self.stats = msgspec.structs.replace(
                self.stats,
                batches_masked=masked_batches(self.index, stats.stubbed),
                tokens_saved=stats.tokens_saved,
            )
            self.save_stats(ctx)
            self.show_saved(ctx)
        messages = purge_errors(messages, self.config, ctx.cwd)
        chained = apply_chains(messages, self.index.chains, self.config.chain_strip_thinking)
        messages, orphans = sweep_orphans(chained.messages)
        if orphans:
            chained.diagnostics.append(("orphan-sweep", ", ".join(orphans)))
        self.diagnose(chained.diagnostics, ctx)
        if messages is event.messages:
            return None
        return ContextResult(messages)

    def diagnose(self, found: Sequence[tuple[str, str]], ctx: ExtensionContext) -> None:
        """Record each new (kind, detail) once per process as a `prune-diagnostic` entry (only
        in a session the pruner already wrote to: diagnostics never start the pruner's
        entries). It counts as recorded only once written: one that could not be written yet
        (a failed write, or no pruner entry so far) is tried again at the next request."""
        for kind, detail in found:
            if (kind, detail) in self.diagnostics or not self.written:
                continue
            try:
                self.api.append_entry(DIAGNOSTIC_TYPE, {"kind": kind, "detail": detail})
            except PithError as error:
                ctx.ui.notify(f"cannot record a pruner diagnostic: {error}", "warning")
                continue
            self.diagnostics.add((kind, detail))

    # --- recovery ----------------------------------------------------------------------------

    def query(
        self,
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
        ctx: ExtensionContext,
    ) -> ToolResult:
        ids = check_ids(args)
        if isinstance(ids, str):
            return error_result(ids)
        store = ctx.session
        return text_result(format_query(self.index, ids, lambda r: read_raw(r, store)))


STATUS_KEY = "prune"


def _tokens(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 1000 else str(count)


def register(api: ExtensionAPI, *, clock: Callable[[], float] | None = None) -> None:
    """Load the context pruner (the `pith.extensions` entry point `prune`). `clock` (seconds,
    monotonic) times the summarizer fallback's cooldown; tests pass their own."""
    pruner = Pruner(api)
    if clock is not None:
        pruner.summaries.fallback.clock = clock
    api.on("session_start", pruner.on_session_start)
    api.on("session_tree", pruner.on_session_tree)
    api.on("before_agent_start", pruner.on_before_agent_start)
    api.on("turn_end", pruner.on_turn_end)
    api.on("context", pruner.on_context, copy=False)
    api.on("agent_end", pruner.on_agent_end)
    api.on("session_shutdown", pruner.on_session_shutdown)
    api.on("session_compact", pruner.on_session_compact)
    api.register_tool(
        ToolDefinition(
            name=QUERY_TOOL,
            label="context tree query",
            description=QUERY_DESCRIPTION,
            parameters=QUERY_PARAMETERS,
            execute=pruner.query,
            prompt_snippet="Recover the full output of a pruned tool result by its ref",
            default_active=False,
        )
    )
    api.register_command(
        "pruner",
        lambda args, ctx: run_command(pruner, args, ctx),
        description="context pruner: " + ", ".join(SUBCOMMANDS),
        get_argument_completions=complete,
    )
