"""Compaction, carried out: when it runs, the summarizer requests, the entry, the events.

The decisions are `pith.compaction`'s (Pi 1.6's): this module asks them, calls the model and
records the result. Automatic compaction runs before a prompt, between turns (after a tool
batch, before the next request) and after a run; a context overflow compacts and retries
exactly once per user turn, with the failed attempt hidden by a `context_edit`. `/compact`
compacts on demand and never retries. A summary that fails (an error, the output limit, a
tool call) writes nothing and says why.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from pith.agent import AbortSignal, Agent
from pith.ai import (
    UNSET,
    AssistantMessage,
    Model,
    Usage,
    is_context_overflow,
    is_recoverable_length,
)
from pith.app.session._events import (
    CompactionEnd,
    CompactionReason,
    CompactionResult,
    CompactionStart,
    SessionEvent,
)
from pith.app.session._history import History
from pith.app.session._run_state import RunState
from pith.app.session._summaries import Notify, Summaries
from pith.compaction import (
    ALREADY_COMPACTED,
    CompactionPreparation,
    NoCompaction,
    compute_file_lists,
    get_latest_compaction_entry,
    plan_compaction_summary,
    prepare_compaction,
    resolve_compaction_settings,
    response_text,
    should_compact,
    summarization_failure,
    summary_output_reserve,
    usage_tokens,
)
from pith.compaction import ResolvedCompactionSettings as CompactionRules
from pith.extensions import CompactionSpec, ExtensionRunner
from pith.extensions.events import SessionBeforeCompact, SessionCompact
from pith.resources import Settings
from pith.session import CompactionEntry, MessageEntry, SessionEntry, timestamp_millis

__all__ = [
    "OVERFLOW_RECOVERY_FAILED",
    "CompactionOutcome",
    "Compactor",
    "Emit",
    "compaction_rules",
]

Emit = Callable[[SessionEvent], Awaitable[None]]

OVERFLOW_RECOVERY_FAILED = (
    "Context overflow recovery failed after one compact-and-retry attempt. Try reducing "
    "context or switching to a larger-context model."
)
LENGTH_RECOVERY_FAILED = "Truncated response recovery failed after one compact-and-retry attempt."


@dataclass
class CompactionOutcome:
    entry: CompactionEntry | None = None
    error: str | None = None
    """Why nothing was written (None when an entry was)."""
    aborted: bool = False


class Configured(Protocol):
    """Whatever knows the settings and the model (a session)."""

    @property
    def config(self) -> Settings: ...

    @property
    def model(self) -> Model: ...


def compaction_rules(session: Configured) -> CompactionRules:
    """The compaction rules for the session's settings and model."""
    return rules_for(session.config, session.model)


def rules_for(settings: Settings, model: Model) -> CompactionRules:
    return resolve_compaction_settings(settings.values.compaction, model.provider, model.id)


class Compactor:
    """Compaction for one conversation: `history` is where it reads and records, `summaries`
    who writes the summary, `emit` where the session's events go; `settings` is read each
    time (it may change while the session lives)."""

    def __init__(
        self,
        *,
        agent: Agent,
        history: History,
        summaries: Summaries,
        extensions: ExtensionRunner,
        emit: Emit,
        settings: Callable[[], Settings],
        notify: Notify,
    ) -> None:
        self._agent = agent
        self._history = history
        self._summaries = summaries
        self._extensions = extensions
        self._emit = emit
        self._settings = settings
        self._notify = notify

    def rules(self) -> CompactionRules:
        return rules_for(self._settings(), self._agent.model)

    async def manual(self, custom_instructions: str | None = None) -> CompactionOutcome:
        """`/compact [instructions]` (the run already stopped): compact now, never retry; a
        compaction that wrote nothing says why."""
        outcome = await self.compact("manual", custom_instructions=custom_instructions)
        if outcome.entry is None and outcome.error and not outcome.aborted:
            self._notify(outcome.error, "info")
        return outcome

    async def compact(
        self,
        reason: CompactionReason,
        *,
        custom_instructions: str | None = None,
        will_retry: bool = False,
    ) -> CompactionOutcome:
        """Summarize the old part of the active branch and record a compaction entry."""
        path = self._history.store.get_branch()
        preparation = prepare_compaction(path, self.rules())
        if isinstance(preparation, NoCompaction):
            return CompactionOutcome(error=_no_compaction_message(preparation))
        with self._summaries.signal() as signal:
            await self._emit(CompactionStart(reason))
            return await self._compact(
                reason, path, preparation, custom_instructions, will_retry, signal
            )

    async def _compact(
        self,
        reason: CompactionReason,
        path: list[SessionEntry],
        preparation: CompactionPreparation,
        custom_instructions: str | None,
        will_retry: bool,
        signal: AbortSignal,
    ) -> CompactionOutcome:
        store = self._history.store
        answer = await self._extensions.emit(
            SessionBeforeCompact(preparation, path, reason, will_retry, custom_instructions, signal)
        )
        if answer.cancel:
            outcome = CompactionOutcome(
                error="An extension cancelled the compaction.", aborted=True
            )
            await self._end(reason, outcome, will_retry)
            return outcome
        spec = _spec(answer.compaction)
        if spec is not None:
            entry = store.append_compaction(
                spec.summary,
                spec.first_kept_entry_id,
                spec.tokens_before,
                details=spec.details,
                from_hook=True,
            )
            return await self._recorded(reason, entry, will_retry, from_extension=True)
        outcome = await self._summarize(preparation, custom_instructions, signal)
        if outcome.entry is None:
            await self._end(reason, outcome, will_retry)
            return outcome
        return await self._recorded(reason, outcome.entry, will_retry, from_extension=False)

    async def _summarize(
        self,
        preparation: CompactionPreparation,
        custom_instructions: str | None,
        signal: AbortSignal,
    ) -> CompactionOutcome:
        summarizer = self._summaries.summarizer()
        model = summarizer.model
        plan = plan_compaction_summary(
            preparation,
            custom_instructions=custom_instructions,
            context_window=model.context_window or None,
            output_reserve_tokens=summary_output_reserve(model.context_window, model.max_tokens),
        )
        usage = Usage()
        history: str | None = plan.previous_summary
        prefix: str | None = None
        for step in plan.steps:
            reply = await summarizer.ask(plan.system_prompt, step.request_text(history), signal)
            _add_usage(usage, reply)
            if reply.stop_reason == "aborted" or signal.aborted:
                return CompactionOutcome(error="Compaction was aborted.", aborted=True)
            failure = summarization_failure(reply, step.label)
            if failure is not None:
                return CompactionOutcome(error=failure)
            if step.kind == "history":
                history = response_text(reply)
            else:
                prefix = response_text(reply)
        files = compute_file_lists(preparation.file_ops)
        summary = plan.summary(history, prefix, files)
        details = {"readFiles": files.read_files, "modifiedFiles": files.modified_files}
        entry = self._history.store.append_compaction(
            summary,
            preparation.first_kept_entry_id,
            preparation.tokens_before,
            details=details,
            usage=usage,
            from_hook=False,
        )
        return CompactionOutcome(entry=entry)

    async def _recorded(
        self,
        reason: CompactionReason,
        entry: CompactionEntry,
        will_retry: bool,
        *,
        from_extension: bool,
    ) -> CompactionOutcome:
        self._history.reload()
        outcome = CompactionOutcome(entry=entry)
        await self._end(reason, outcome, will_retry)
        await self._extensions.emit(SessionCompact(entry, from_extension, reason, will_retry))
        return outcome

    async def _end(
        self, reason: CompactionReason, outcome: CompactionOutcome, will_retry: bool
    ) -> None:
        result = None
        entry = outcome.entry
        if entry is not None:
            result = CompactionResult(
                entry.summary,
                entry.first_kept_entry_id,
                entry.tokens_before,
                # The projected estimate: usage reported before the compaction measured a
                # context that no longer exists (Pi's `estimatedTokensAfter` ignores it too).
                self._history.context_tokens(),
                None if entry.details is UNSET else entry.details,
            )
        await self._emit(
            CompactionEnd(
                reason, result, outcome.aborted, will_retry and entry is not None, outcome.error
            )
        )

    # --- when it runs -----------------------------------------------------------------------

    async def check_between_turns(self) -> None:
        """Before a request that follows tool results: compact when the context is past the
        threshold (a single long turn compacts before its next request)."""
        rules = self.rules()
        window = self._agent.model.context_window
        if not rules.enabled or window <= 0:
            return
        if should_compact(self._history.context_tokens(), window, rules):
            await self.compact("threshold")

    async def check_after_reply(
        self, message: AssistantMessage | None, run: RunState, *, before_prompt: bool = False
    ) -> bool:
        """After a run (or before the next prompt): compact on overflow or past the threshold.
        True when the caller should run the agent again (an overflow was compacted for a
        retry); `run` tells whether this turn already tried that."""
        if message is None:
            return False
        rules = self.rules()
        if not rules.enabled:
            return False
        if message.stop_reason == "aborted" and not before_prompt:
            return False
        if self._before_latest_compaction(message):
            return False
        model = self._agent.model
        same_model = message.provider == model.provider and message.model == model.id
        window = model.context_window
        overflow = is_context_overflow(message, window)
        truncated = is_recoverable_length(message, model.max_tokens)
        if same_model and message.stop_reason != "stop" and (overflow or truncated):
            if run.overflow_recovery_attempted:
                error = OVERFLOW_RECOVERY_FAILED if overflow else LENGTH_RECOVERY_FAILED
                await self._emit(CompactionEnd("overflow", None, False, False, error))
                return False
            run.overflow_recovery_attempted = True
            self._hide_failed_attempt(message)
            outcome = await self.compact("overflow", will_retry=True)
            return outcome.entry is not None
        if overflow:  # a silent overflow on a finished reply: compact, no retry
            await self.compact("overflow")
            return False
        tokens = usage_tokens(message) if message.stop_reason != "error" else 0
        if tokens <= 0 or message.stop_reason == "error":
            tokens = self._history.context_tokens()
        if window > 0 and should_compact(tokens, window, rules):
            await self.compact("threshold")
        return False

    def _before_latest_compaction(self, message: AssistantMessage) -> bool:
        """Whether `message` is older than the latest compaction on the branch (it was already
        dealt with). Told by position in the tree, so two events in the same millisecond are
        still ordered; a message not recorded is compared by time."""
        path = self._history.store.get_branch()
        compaction_at = max(
            (index for index, entry in enumerate(path) if isinstance(entry, CompactionEntry)),
            default=-1,
        )
        if compaction_at < 0:
            return False
        for index in range(len(path) - 1, -1, -1):
            entry = path[index]
            if isinstance(entry, MessageEntry) and entry.message is message:
                return index < compaction_at
        latest = get_latest_compaction_entry(path)
        return latest is not None and message.timestamp < timestamp_millis(latest.timestamp)

    def _hide_failed_attempt(self, message: AssistantMessage) -> None:
        """Keep the failed reply (and its tool results) out of the retried request."""
        store = self._history.store
        target = next(
            (
                entry
                for entry in reversed(store.get_branch())
                if isinstance(entry, MessageEntry) and entry.message is message
            ),
            None,
        )
        if target is None:
            return
        hidden = [target.id]
        for entry in store.get_branch():
            if (
                isinstance(entry, MessageEntry)
                and entry.parent_id in hidden
                and entry.message.role == "toolResult"
            ):
                hidden.append(entry.id)
        for entry_id in hidden:
            store.append_context_edit(entry_id, None)
        self._history.reload()


def _spec(value: object) -> CompactionSpec | None:
    if value is None or isinstance(value, CompactionSpec):
        return value
    if isinstance(value, Mapping):
        summary = value.get("summary")
        first = value.get("firstKeptEntryId", value.get("first_kept_entry_id"))
        tokens = value.get("tokensBefore", value.get("tokens_before"))
        if isinstance(summary, str) and isinstance(first, str) and isinstance(tokens, int):
            return CompactionSpec(summary, first, tokens, value.get("details"))
    raise TypeError(
        "session_before_compact: compaction needs summary, firstKeptEntryId, tokensBefore"
    )


def _add_usage(total: Usage, reply: AssistantMessage) -> None:
    total.input += reply.usage.input
    total.output += reply.usage.output
    total.cache_read += reply.usage.cache_read
    total.cache_write += reply.usage.cache_write
    total.total_tokens += reply.usage.total_tokens


def _no_compaction_message(result: NoCompaction) -> str:
    if result.reason == ALREADY_COMPACTED:
        return "Already compacted: nothing new since the last compaction."
    return "Nothing to compact: the session is too small."
