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
- `agent_end`: with `summarize`, start the summaries the next prompt will record.
- `context`: stub the finished batches' results in this request only (`_render`), then purge
  old failed calls' large arguments (`_purge`); the same list when nothing changes.
- tool `context_tree_query`: the raw outputs back (`_query`); offered from the first run
  that starts with records in the index.
- `/pruner on|off|status|now|help`.

Summary delivery: `api.send_message(..., display=False)` while pith is idle (the handler runs
before the run starts) records the message at once and appends it to the conversation, with
no turn and no steering (spec A.5: a steered summary makes the model answer it). A batch whose
summary fails is masked instead, one whose summary is longer than its results stays raw; both
outcomes are persisted (`prune-summary-outcome`) so a reload renders the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import msgspec

from pith.agent import AbortSignal, ToolResult, UpdateCallback
from pith.ai import AgentMessage, ToolResultMessage
from pith.errors import PithError
from pith.ext.prune._budget import check_budget
from pith.ext.prune._capture import (
    BatchPlan,
    CapturedCall,
    pending_batches,
    plan_batch,
    result_text,
)
from pith.ext.prune._config import ALWAYS_PROTECTED, PruneConfig, read_config
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
    FRONTIER_TYPE,
    INDEX_TYPE,
    OUTCOME_TYPE,
    SUMMARY_TYPE,
    Frontier,
    IndexEntry,
    SummaryOutcome,
    ToolCallRecord,
    occurrence_key,
)
from pith.ext.prune._render import RenderStats, render
from pith.ext.prune._spill import preview, spill_path, write_spill
from pith.ext.prune._stub import QUERY_TOOL
from pith.ext.prune._summaries import Summaries, summary_details
from pith.ext.prune._summary import (
    SummaryJob,
    plan_jobs,
)
from pith.extensions import (
    ContextResult,
    ExtensionAPI,
    ExtensionContext,
    ToolDefinition,
    error_result,
    text_result,
)
from pith.extensions.events import BeforeAgentStart, ContextEvent, TurnEnd
from pith.session import CustomEntry, CustomMessageEntry, MessageEntry, SessionStore
from pith.tools.truncate import count_lines

__all__ = ["HELP", "Pruner", "register"]

SUBCOMMANDS = ("status", "on", "off", "now", "help")

HELP = """/pruner — the context pruner (strategy summarize, or mask)
  /pruner status   what is indexed, what the last request masked, the protected paths
  /pruner on       prune in this session
  /pruner off      stop pruning in this session (settings: "prune": {"enabled": false})
  /pruner now      index every finished tool-call batch not captured yet (and summarize)
  /pruner help     this text
Pruned results read [pruned tN: …] or [summarized tN: …]; the model gets them back with
context_tree_query."""


@dataclass
class Pruner:
    """The extension's state for one pith process."""

    api: ExtensionAPI
    config: PruneConfig = field(default_factory=PruneConfig)
    override: bool | None = None
    """`/pruner on|off` for this session; None follows the settings."""
    index: PruneIndex = field(default_factory=PruneIndex)
    last: RenderStats = field(default_factory=RenderStats)
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
    since what it masked is recorded as `masked` outcomes (`keep_masked`)."""
    previous_fraction: float | None = None
    """The context usage share after the last turn with a batch (the delta trigger)."""

    @property
    def active(self) -> bool:
        return self.config.enabled if self.override is None else self.override

    # --- set-up ------------------------------------------------------------------------------

    def load(self, ctx: ExtensionContext) -> None:
        config, problems = read_config(ctx.settings.get("prune"))
        for problem in problems:
            ctx.ui.notify(problem, "warning")
        self.config = config.with_context_files(self.context_files)
        self.summaries.choose(self.config, ctx)
        self.rebuild(ctx)

    def strategy(self, ctx: ExtensionContext) -> str:
        """`summarize` or `mask`, as things are now (no model: mask)."""
        return self.config.effective_strategy(ctx.model is not None)

    def rebuild(self, ctx: ExtensionContext) -> None:
        store = ctx.session
        branch = store.get_branch() if store is not None else []
        self.index = PruneIndex.from_entries(
            (entry.custom_type, entry.data if isinstance(entry, CustomEntry) else entry.details)
            for entry in branch
            if isinstance(entry, CustomEntry)
            or (isinstance(entry, CustomMessageEntry) and entry.custom_type == SUMMARY_TYPE)
        )
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

    def on_session_start(self, event: object, ctx: ExtensionContext) -> None:
        self.override = None
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
            records = [self.record(call, ctx) for call in plan.calls]
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

    def record(self, call: CapturedCall, ctx: ExtensionContext) -> ToolCallRecord:
        size = len(call.text.encode())
        record = ToolCallRecord(
            tool_call_id=call.tool_call_id,
            tool_name=call.tool_name,
            args=call.args,
            is_error=call.is_error,
            result_timestamp=call.result_timestamp,
            result_bytes=size,
            result_lines=count_lines(call.text),
            content_hash=call.content_hash,
        )
        store = ctx.session
        if len(call.text) < self.config.spill_threshold or store is None or store.path is None:
            return record
        path = spill_path(store.path.parent, store.id, call.key)
        try:
            written = write_spill(path, call.text)
        except OSError as error:
            ctx.ui.notify(f"cannot spill {call.key} to {path}: {error}; kept inline", "warning")
            return record
        record.spill_path = str(path)
        record.spill_bytes = written
        record.result_preview = preview(call.text, self.config.spill_preview_bytes)
        return record

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
        replies = await self.summaries.collect(jobs, self.config, ctx)
        recorded = 0
        for job, (text, model_key) in zip(jobs, replies, strict=True):
            if text is None:
                self.decide(job, "masked", model_key, ctx)
            elif len(text) >= job.raw_chars:
                self.decide(job, "kept-raw", "the summary was longer than the results", ctx)
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
                recorded += 1
        return recorded

    def decide(
        self,
        job: SummaryJob,
        outcome: Literal["masked", "kept-raw"],
        reason: str,
        ctx: ExtensionContext,
    ) -> None:
        """Persist a batch that gets no summary: masked (the summarizer failed) or kept raw."""
        if outcome == "masked":
            refs = f"{job.refs[0]}–{job.refs[-1]}" if len(job.refs) > 1 else job.refs[0]
            ctx.ui.notify(f"no summary for {refs} ({reason}); masked instead", "warning")
        entry = SummaryOutcome(keys=list(job.keys), outcome=outcome, reason=reason)
        try:
            self.api.append_entry(OUTCOME_TYPE, msgspec.to_builtins(entry))
        except PithError as error:
            ctx.ui.notify(f"cannot record the pruner's index: {error}", "warning")
            return
        self.index.decide(job.keys, entry.outcome)

    # --- render --------------------------------------------------------------------------------

    def on_context(self, event: ContextEvent, ctx: ExtensionContext) -> ContextResult | None:
        if not self.active:
            return None
        self.seen = event.messages
        strategy = self.strategy(ctx)
        messages, stats = render(
            event.messages, self.index, self.config, ctx.cwd, strategy, self.budget_cut
        )
        self.last = stats
        if messages is not event.messages:
            self.flush(ctx)
            if stats.budget_masked:
                self.keep_masked(list(stats.budget_masked), ctx)
            active = self.api.get_active_tools()
            if QUERY_TOOL not in active:  # masked mid-run (a follow-up prompt): from next request
                self.api.set_active_tools([*active, QUERY_TOOL])
        messages = purge_errors(messages, self.config, ctx.cwd)
        if messages is event.messages:
            return None
        return ContextResult(messages)

    def keep_masked(self, keys: list[str], ctx: ExtensionContext) -> None:
        """Persist that the records `keys`, masked mid-task by a budget trigger, stay masked:
        with `summarize` they are not summarized later (the stub would change), and a reload
        renders them as stubs without the in-memory cut."""
        entry = SummaryOutcome(keys=keys, outcome="masked", reason="budget trigger, mid-task")
        try:
            self.api.append_entry(OUTCOME_TYPE, msgspec.to_builtins(entry))
        except PithError as error:
            ctx.ui.notify(f"cannot record the pruner's index: {error}", "warning")
            return
        self.index.decide(keys, "masked")

    # --- recovery ----------------------------------------------------------------------------

    def read_raw(self, record: ToolCallRecord, store: SessionStore | None) -> str | None:
        if record.spill_path is not None:
            try:
                return Path(record.spill_path).read_bytes().decode("utf-8", errors="replace")
            except OSError:
                pass  # gone: the session's own message is the other copy
        if store is None:
            return None
        key = record.key
        for entry in store.get_branch():
            message = entry.message if isinstance(entry, MessageEntry) else None
            if (
                isinstance(message, ToolResultMessage)
                and occurrence_key(message.tool_call_id, message.timestamp) == key
            ):
                return result_text(message)
        return None

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
        return text_result(format_query(self.index, ids, lambda r: self.read_raw(r, store)))

    # --- /pruner -------------------------------------------------------------------------------

    def strategy_name(self) -> str:
        if self.config.strategy == "mask":
            return "mask"
        named = self.summaries.summarizer
        model = named.key if named is not None else "the session model"
        return f"summarize with {model} (mask without a model)"

    def status(self) -> str:
        state = "on" if self.active else "off"
        source = "settings" if self.override is None else "this session"
        aliases = len(self.index.aliases)
        lines = [
            f"pruner: {state} ({source}), strategy {self.strategy_name()}",
            f"indexed: {len(self.index.records)} results, {aliases} identical re-reads",
            f"frontier: {self.index.frontier or 'none'}"
            + (f" ({len(self.pending)} entries not written yet)" if self.pending else ""),
            f"last request: {self.last.masked} results masked, "
            f"~{self.last.tokens_saved} tokens saved",
            "protected paths: "
            + ", ".join((*self.config.protected_paths, *ALWAYS_PROTECTED, *self.context_files)),
            "protected tools: " + (", ".join(self.config.protected_tools) or "none"),
            self.budget_status(),
            self.purge_status(),
        ]
        return "\n".join(lines)

    def budget_status(self) -> str:
        threshold, delta = self.config.auto_budget_threshold, self.config.budget_turn_delta
        if threshold is None and delta is None:
            return "budget triggers: off (the current task is never pruned)"
        parts = [
            f"threshold {threshold:g} of the window" if threshold is not None else "",
            f"delta {delta:g} per turn" if delta is not None else "",
        ]
        fired = "fired" if self.budget_cut is not None else "not fired"
        return f"budget triggers: {', '.join(p for p in parts if p)}; {fired}"

    def purge_status(self) -> str:
        if not self.config.purge_errors_enabled:
            return "error purge: off"
        return (
            f"error purge: failed calls' arguments of {self.config.purge_errors_min_arg_chars}+ "
            f"chars, after {self.config.purge_errors_cooldown_turns} turns"
        )

    async def command(self, args: str, ctx: ExtensionContext) -> None:
        word = args.strip().split()[0] if args.strip() else "status"
        if word == "on":
            self.override = True
            ctx.ui.notify("pruning is on for this session")
        elif word == "off":
            self.override = False
            ctx.ui.notify("pruning is off for this session; stored results show raw again")
        elif word == "status":
            ctx.ui.notify(self.status())
        elif word == "now":
            batches, calls = self.capture_pending(ctx)
            self.flush(ctx)
            ctx.ui.notify(f"indexed {batches} batches ({calls} tool results)")
            if self.active and self.strategy(ctx) == "summarize":
                summaries = await self.summarize(ctx)
                ctx.ui.notify(f"summarized {summaries} batches")
        elif word == "help":
            ctx.ui.notify(HELP)
        else:
            ctx.ui.notify(f"/pruner {word}: unknown subcommand\n{HELP}", "warning")


def register(api: ExtensionAPI) -> None:
    """Load the context pruner (the `pith.extensions` entry point `prune`)."""
    pruner = Pruner(api)
    api.on("session_start", pruner.on_session_start)
    api.on("session_tree", pruner.on_session_tree)
    api.on("before_agent_start", pruner.on_before_agent_start)
    api.on("turn_end", pruner.on_turn_end)
    api.on("context", pruner.on_context)
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
        pruner.command,
        description="context pruner: on, off, status, now, help",
        get_argument_completions=lambda prefix: [w for w in SUBCOMMANDS if w.startswith(prefix)],
    )
