"""The context pruner as an extension (strategies `summarize` and `mask`).

- `session_start` / `session_tree`: read the `prune` settings, rebuild the index from the
  branch's entries (a branch left behind takes its records with it).
- `before_agent_start`: the loaded context files (AGENTS.md, CLAUDE.md) join the protected
  paths; with `summarize`, the batches the new prompt makes prunable are summarized
  (`summaries`) and each summary is recorded as a `prune-summary` custom message just before
  the prompt: while idle, so it starts no turn and steers nothing. Then the closed chains
  older than the newest `chainCompression.rollingWindow` are compressed (`chains`,
  `prune-chain` entries).
- `turn_end`: capture the turn's tool calls as one batch (`_capture`, `_indexer`), spill huge
  results, queue the entries (`_journal`); check the budget triggers (`_budget_watch`), which
  let the current task's older turns be masked.
- `agent_end`: with `summarize`, start the summaries the next prompt will record.
- `context`: stub the finished batches' results in this request only (`_render`), purge
  old failed calls' large arguments (`_purge`), apply the compressed chains (`chains`),
  sweep orphan results (`_sweep`); the same list when nothing changes.
- tool `context_tree_query`: the raw outputs back (`_query`); offered from the first run
  that starts with records in the index.
- `/pruner` and its subcommands (`commands`, through `PrunerControl`); the running totals
  (`_stats`).

`Pruner` owns the index (rebuilt from the branch) and wires the parts, each given only what it
needs: the settings in force (`_settings`), the journal of entries to write (`_journal`), the
totals (`Tally`), the footer status (`_status`), the budget watch, the indexer, the summary
recorder and the chain compressor.

Summary delivery: `api.send_message(..., display=False)` while pith is idle (the handler runs
before the run starts) records the message at once and appends it to the conversation, with
no turn and no steering (a steered summary would make the model answer it). A batch whose
summary fails is masked instead, one whose summary is longer than its results stays raw; both
outcomes are persisted (`prune-summary-outcome`) so a reload renders the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pith.agent import AbortSignal, ToolResult, UpdateCallback
from pith.ai import AgentMessage
from pith.ext.prune._budget_watch import BudgetWatch
from pith.ext.prune._index import PruneIndex
from pith.ext.prune._indexer import Indexer
from pith.ext.prune._journal import Journal
from pith.ext.prune._purge import purge_errors
from pith.ext.prune._query import QUERY_DESCRIPTION, QUERY_PARAMETERS, check_ids, format_query
from pith.ext.prune._records import SUMMARY_TYPE
from pith.ext.prune._recover import read_raw
from pith.ext.prune._render import RenderStats, render
from pith.ext.prune._settings import PrunerSettings
from pith.ext.prune._stats import PruneStats, Tally, masked_batches, stats_from_entries
from pith.ext.prune._status import StatusLine
from pith.ext.prune._stub import QUERY_TOOL
from pith.ext.prune._sweep import sweep_orphans
from pith.ext.prune.chains import ChainCompressor, apply_chains
from pith.ext.prune.commands import SUBCOMMANDS, complete, run_command
from pith.ext.prune.summaries import Summaries, SummaryRecorder
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


class Pruner:
    """The extension for one pith process: the event handlers, over parts that each get only
    what they need. It is what `/pruner` drives (`PrunerControl`)."""

    def __init__(self, api: ExtensionAPI, *, clock: Callable[[], float] | None = None) -> None:
        self.api = api
        self.summaries = Summaries()
        if clock is not None:
            self.summaries.fallback.clock = clock
        self.settings = PrunerSettings(on_configure=self.summaries.choose)
        self.journal = Journal(api.append_entry)
        self.tally = Tally()
        self.status = StatusLine(self.settings, self.tally)
        self.budget = BudgetWatch()
        self.indexer = Indexer(self.settings, self.journal)
        self.recorder = SummaryRecorder(
            self.summaries, self.settings, self.journal, self.tally, self.status, self._send
        )
        self.compressor = ChainCompressor(self.settings, self.summaries, self.tally, self.journal)
        self.index = PruneIndex()
        self.seen: list[AgentMessage] | None = None
        """The messages of the last request (what is in the context now), for summarizing."""

    # --- what `/pruner` reads ------------------------------------------------------------------

    @property
    def stats(self) -> PruneStats:
        return self.tally.current

    @property
    def agent_dir(self) -> Path | None:
        return self.api.agent_dir

    @property
    def unwritten(self) -> int:
        return len(self.journal.pending)

    @property
    def budget_fired(self) -> bool:
        return self.budget.cut is not None

    @property
    def summarizer_key(self) -> str | None:
        named = self.summaries.summarizer
        return named.key if named is not None else None

    def show_saved(self, ctx: ExtensionContext) -> None:
        self.status.show_saved(ctx)

    def flush(self, ctx: ExtensionContext) -> None:
        self.journal.flush(ctx)

    # --- set-up ------------------------------------------------------------------------------

    def rebuild(self, ctx: ExtensionContext) -> None:
        """The index, the totals and the journal from the branch's entries (a branch left
        behind takes its records with it)."""
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
        self.tally.reset(stats)
        self.journal.reset(written=any(kind.startswith("prune-") for kind, _ in entries))
        self.summaries.take_spent()
        self.seen = None
        self.budget.reset()
        self.summaries.drop()
        for problem in self.index.problems:
            ctx.ui.notify(problem, "warning")
        if self.settings.active:
            self.capture_pending(ctx)
        self.status.show_saved(ctx)

    def on_session_start(self, event: object, ctx: ExtensionContext) -> None:
        self.settings.configure(ctx)
        self.rebuild(ctx)

    def on_session_tree(self, event: object, ctx: ExtensionContext) -> None:
        self.rebuild(ctx)

    async def on_before_agent_start(self, event: BeforeAgentStart, ctx: ExtensionContext) -> None:
        options = event.system_prompt_options
        settings = self.settings
        settings.use_context_files(frozenset(item.path for item in options.context_files))
        # The recovery tool is offered from the first run that starts with records: stubs are
        # only rendered before the run's own prompt, so that run's first stub finds it there,
        # and a session that never captures anything sends what it would without the pruner.
        if (
            settings.active
            and self.index.records
            and all(t.name != QUERY_TOOL for t in options.tools)
        ):
            tool = self.api.get_tool(QUERY_TOOL)
            if tool is not None:
                options.tools.append(tool)
        if settings.active and settings.strategy(ctx) == "summarize":
            await self.summarize(ctx)
        if settings.active and settings.config.chain_enabled:
            await self.compress(ctx, settings.config.chain_window)

    async def compress(self, ctx: ExtensionContext, window: int, *, force: bool = False) -> int:
        """Compress the closed chains older than the newest `window`; returns how many. Never
        raises: a failure is a warning and the chains stay as they are."""
        try:
            return await self.compressor.compress(self.index, ctx, window, force=force)
        except Exception as error:  # chain compression is an optimization, never fatal
            ctx.ui.notify(f"chain compression failed: {type(error).__name__}: {error}", "warning")
            return 0
        finally:
            self.status.show_saved(ctx)

    # --- capture -----------------------------------------------------------------------------

    def on_turn_end(self, event: TurnEnd, ctx: ExtensionContext) -> None:
        if not self.settings.active or not event.tool_results:
            return
        self.indexer.capture(event.message, event.tool_results, self.index, ctx)
        self.budget.after_turn(event.message.timestamp, self.settings.config, ctx)

    def capture_pending(self, ctx: ExtensionContext) -> tuple[int, int]:
        """Index the branch's finished batches past the frontier (`/pruner now`); returns
        (batches, calls) indexed."""
        return self.indexer.capture_pending(self.index, ctx)

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
        settings = self.settings
        if settings.active and settings.strategy(ctx) == "summarize" and ctx.has_ui:
            self.recorder.start_early(lambda: self.context_messages(ctx), self.index, ctx)

    def on_session_shutdown(self, event: object, ctx: ExtensionContext) -> None:
        self.summaries.drop()

    def on_session_compact(self, event: object, ctx: ExtensionContext) -> None:
        # The compaction summary replaced the old results: nothing is left to summarize until
        # the next request shows what the context holds now.
        self.seen = []
        self.summaries.drop()

    async def summarize(self, ctx: ExtensionContext) -> int:
        """Summarize the batches a new prompt makes prunable; returns how many summaries were
        recorded."""
        return await self.recorder.record(lambda: self.context_messages(ctx), self.index, ctx)

    async def _send(self, text: str, details: object) -> None:
        # While pith is idle (the handler runs before the run starts) a follow-up is recorded
        # at once and appended to the conversation, with no turn and no steering.
        await self.api.send_message(
            SUMMARY_TYPE, text, display=False, details=details, deliver_as="follow_up"
        )

    # --- render --------------------------------------------------------------------------------

    def render(
        self, messages: list[AgentMessage], ctx: ExtensionContext
    ) -> tuple[list[AgentMessage], RenderStats]:
        """`messages` with the stubs the pruner's state calls for now (`_render.render`)."""
        strategy = self.settings.strategy(ctx)
        config = self.settings.config
        return render(messages, self.index, config, ctx.cwd, strategy, self.budget.cut)

    def view(self, ctx: ExtensionContext) -> RenderStats:
        """What the context masks now: the session's messages rendered as the next request
        would render them (what `/pruner status` and `/pruner tree` show, and what `pith
        context` sends through the `context` hook). Computed from the session and the index,
        which is rebuilt from the session's entries, so a resumed session shows its stubs
        before its first request. Nothing when pruning is off."""
        store = ctx.session
        if not self.settings.active or store is None:
            return RenderStats()
        return self.render(list(store.projection().messages), ctx)[1]

    def on_context(self, event: ContextEvent, ctx: ExtensionContext) -> ContextResult | None:
        if not self.settings.active:
            return None
        config = self.settings.config
        self.seen = event.messages
        messages, stats = self.render(event.messages, ctx)
        self.budget.last_saved = stats.tokens_saved
        if messages is not event.messages:
            self.journal.flush(ctx)
            if stats.budget_masked:
                reason = "budget trigger, mid-task"
                self.journal.decide(self.index, stats.budget_masked, "masked", reason, ctx)
            active = self.api.get_active_tools()
            if QUERY_TOOL not in active:  # masked mid-run (a follow-up prompt): from next request
                self.api.set_active_tools([*active, QUERY_TOOL])
            self.tally.change(
                batches_masked=masked_batches(self.index, stats.stubbed),
                tokens_saved=stats.tokens_saved,
            )
            self.tally.save(self.journal, ctx)
            self.status.show_saved(ctx)
        messages = purge_errors(messages, config, ctx.cwd)
        chained = apply_chains(messages, self.index.chains, config.chain_strip_thinking)
        messages, orphans = sweep_orphans(chained.messages)
        if orphans:
            chained.diagnostics.append(("orphan-sweep", ", ".join(orphans)))
        self.journal.diagnose(chained.diagnostics, ctx)
        if messages is event.messages:
            return None
        return ContextResult(messages)

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


def register(api: ExtensionAPI, *, clock: Callable[[], float] | None = None) -> None:
    """Load the context pruner (the `pith.extensions` entry point `prune`). `clock` (seconds,
    monotonic) times the summarizer fallback's cooldown; tests pass their own."""
    pruner = Pruner(api, clock=clock)
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
