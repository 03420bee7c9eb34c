"""Compaction, carried out: when it runs, the summarizer requests, the entry, the events.

The decisions are `pith.compaction`'s (Pi 1.6's): this module asks them, calls the model and
records the result. Automatic compaction runs before a prompt, between turns (after a tool
batch, before the next request) and after a run; a context overflow compacts and retries
exactly once per user turn, with the failed attempt hidden by a `context_edit`. `/compact`
compacts on demand and never retries. A summary that fails (an error, the output limit, a
tool call) writes nothing and says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pith.agent import AbortSignal
from pith.ai import UNSET, AssistantMessage, Usage, is_context_overflow, is_recoverable_length
from pith.app.session._events import (
    CompactionEnd,
    CompactionReason,
    CompactionResult,
    CompactionStart,
)
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
from pith.extensions import CompactionSpec
from pith.extensions.events import SessionBeforeCompact, SessionCompact
from pith.session import CompactionEntry, MessageEntry, SessionEntry, timestamp_millis

if TYPE_CHECKING:
    from pith.app.session._session import AgentSession

__all__ = [
    "OVERFLOW_RECOVERY_FAILED",
    "CompactionOutcome",
    "check_after_reply",
    "check_between_turns",
    "compact",
    "compaction_rules",
]

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


def compaction_rules(session: AgentSession) -> CompactionRules:
    model = session.model
    return resolve_compaction_settings(session.config.values.compaction, model.provider, model.id)


async def compact(
    session: AgentSession,
    reason: CompactionReason,
    *,
    custom_instructions: str | None = None,
    will_retry: bool = False,
) -> CompactionOutcome:
    """Summarize the old part of the active branch and record a compaction entry."""
    store = session.store
    path = store.get_branch()
    preparation = prepare_compaction(path, compaction_rules(session))
    if isinstance(preparation, NoCompaction):
        return CompactionOutcome(error=_no_compaction_message(preparation))
    with session.summary_signal() as signal:
        await session.emit_event(CompactionStart(reason))
        return await _compact(
            session, reason, path, preparation, custom_instructions, will_retry, signal
        )


async def _compact(
    session: AgentSession,
    reason: CompactionReason,
    path: list[SessionEntry],
    preparation: CompactionPreparation,
    custom_instructions: str | None,
    will_retry: bool,
    signal: AbortSignal,
) -> CompactionOutcome:
    store = session.store
    answer = await session.extensions.emit(
        SessionBeforeCompact(preparation, path, reason, will_retry, custom_instructions, signal)
    )
    if answer.cancel:
        outcome = CompactionOutcome(error="An extension cancelled the compaction.", aborted=True)
        await _end(session, reason, outcome, will_retry)
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
        return await _recorded(session, reason, entry, will_retry, from_extension=True)
    outcome = await _summarize(session, preparation, custom_instructions, signal)
    if outcome.entry is None:
        await _end(session, reason, outcome, will_retry)
        return outcome
    return await _recorded(session, reason, outcome.entry, will_retry, from_extension=False)


async def _summarize(
    session: AgentSession,
    preparation: CompactionPreparation,
    custom_instructions: str | None,
    signal: AbortSignal,
) -> CompactionOutcome:
    summarizer = session.summarizer()
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
    entry = session.store.append_compaction(
        summary,
        preparation.first_kept_entry_id,
        preparation.tokens_before,
        details=details,
        usage=usage,
        from_hook=False,
    )
    return CompactionOutcome(entry=entry)


async def _recorded(
    session: AgentSession,
    reason: CompactionReason,
    entry: CompactionEntry,
    will_retry: bool,
    *,
    from_extension: bool,
) -> CompactionOutcome:
    session.reload_history()
    outcome = CompactionOutcome(entry=entry)
    await _end(session, reason, outcome, will_retry)
    await session.extensions.emit(SessionCompact(entry, from_extension, reason, will_retry))
    return outcome


async def _end(
    session: AgentSession, reason: CompactionReason, outcome: CompactionOutcome, will_retry: bool
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
            session.context_tokens(),
            None if entry.details is UNSET else entry.details,
        )
    await session.emit_event(
        CompactionEnd(
            reason, result, outcome.aborted, will_retry and entry is not None, outcome.error
        )
    )


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


# --- when it runs ---------------------------------------------------------------------------


async def check_between_turns(session: AgentSession) -> None:
    """Before a request that follows tool results: compact when the context is past the
    threshold (a single long turn compacts before its next request)."""
    rules = compaction_rules(session)
    window = session.model.context_window
    if not rules.enabled or window <= 0:
        return
    if should_compact(session.context_tokens(), window, rules):
        await compact(session, "threshold")


async def check_after_reply(
    session: AgentSession, message: AssistantMessage | None, *, before_prompt: bool = False
) -> bool:
    """After a run (or before the next prompt): compact on overflow or past the threshold.
    True when the caller should run the agent again (an overflow was compacted for a retry)."""
    if message is None:
        return False
    rules = compaction_rules(session)
    if not rules.enabled:
        return False
    if message.stop_reason == "aborted" and not before_prompt:
        return False
    if _before_latest_compaction(session, message):
        return False
    model = session.model
    same_model = message.provider == model.provider and message.model == model.id
    window = model.context_window
    overflow = is_context_overflow(message, window)
    truncated = is_recoverable_length(message, model.max_tokens)
    if same_model and message.stop_reason != "stop" and (overflow or truncated):
        if session.overflow_recovery_attempted:
            error = OVERFLOW_RECOVERY_FAILED if overflow else LENGTH_RECOVERY_FAILED
            await session.emit_event(CompactionEnd("overflow", None, False, False, error))
            return False
        session.overflow_recovery_attempted = True
        _hide_failed_attempt(session, message)
        outcome = await compact(session, "overflow", will_retry=True)
        return outcome.entry is not None
    if overflow:  # a silent overflow on a finished reply: compact, no retry
        await compact(session, "overflow")
        return False
    tokens = usage_tokens(message) if message.stop_reason != "error" else 0
    if tokens <= 0 or message.stop_reason == "error":
        tokens = session.context_tokens()
    if window > 0 and should_compact(tokens, window, rules):
        await compact(session, "threshold")
    return False


def _before_latest_compaction(session: AgentSession, message: AssistantMessage) -> bool:
    """Whether `message` is older than the latest compaction on the branch (it was already
    dealt with). Told by position in the tree, so two events in the same millisecond are
    still ordered; a message not recorded is compared by time."""
    path = session.store.get_branch()
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


def _hide_failed_attempt(session: AgentSession, message: AssistantMessage) -> None:
    """Keep the failed reply (and its tool results) out of the retried request."""
    store = session.store
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
    session.reload_history()
