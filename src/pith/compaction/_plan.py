"""The summarizer requests of one compaction, as a plan the orchestrator executes.

Normally the plan is Pi's: one history summary (first summary, or an update of the previous
summary), plus a summary of a split turn's first part. When the summarizer's own input (its
system prompt, the serialized conversation and the instructions) would not fit its window minus
the room kept for its answer, the messages are cut into chunks that do fit, at boundaries that
never part a tool call from its results: the first chunk is summarized, each next chunk updates
that summary. A split turn's first part that does not fit on its own gives its leading chunks
to the history summary and keeps the last part for its own request.

Executing a plan:

    summary = plan.previous_summary
    for step in plan.history:
        reply = <ask the model: plan.system_prompt, step.request_text(summary)>
        refuse the reply if summarization_failure(reply, step.label); summary = response_text(reply)
    prefix = None
    if plan.turn_prefix is not None:
        prefix = response_text(<ask the model: step.request_text(None)>)   (same refusal rule)
    text = plan.summary(summary, prefix, files)      # what the compaction entry stores
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pith.ai import AgentMessage, ToolResultMessage, js_length
from pith.compaction._file_ops import FileLists
from pith.compaction._preparation import CompactionPreparation
from pith.compaction._prompts import (
    HISTORY_LABEL,
    NO_PRIOR_HISTORY,
    SUMMARIZER_SYSTEM_PROMPT,
    TURN_PREFIX_LABEL,
    compaction_summary_text,
    history_request_text,
    merge_split_turn,
    turn_prefix_request_text,
)
from pith.compaction._serialize import serialize_conversation

__all__ = [
    "DEFAULT_SUMMARY_ALLOWANCE_TOKENS",
    "SummaryPlan",
    "SummaryStep",
    "plan_compaction_summary",
    "plan_summary_requests",
    "summary_output_reserve",
]

DEFAULT_SUMMARY_ALLOWANCE_TOKENS = 4096
"""Room kept in a chunked update request for the summary written by the step before it, whose
length is not known when planning (the first step uses the real previous summary)."""

_CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class SummaryStep:
    """One summarizer request: its messages, their serialized text, and the user text."""

    kind: Literal["history", "turn_prefix"]
    messages: tuple[AgentMessage, ...]
    conversation: str
    custom_instructions: str | None = None
    estimated_input_tokens: int = 0
    """System prompt + user text in estimated tokens, with the summary it updates (the known
    previous summary for the first step, the allowance for later ones)."""
    oversized: bool = False
    """True when even this step is over the input budget: one message (with its tool results)
    larger than the budget, which no cut can make smaller."""

    @property
    def label(self) -> str:
        """The name used in failure messages."""
        return HISTORY_LABEL if self.kind == "history" else TURN_PREFIX_LABEL

    def request_text(self, previous_summary: str | None) -> str:
        """The exact user text: a history step updates `previous_summary` when there is one
        (non-empty) and writes a first summary otherwise; a turn-prefix step ignores it."""
        if self.kind == "turn_prefix":
            return turn_prefix_request_text(self.conversation, self.custom_instructions)
        return history_request_text(self.conversation, previous_summary, self.custom_instructions)


@dataclass(frozen=True)
class SummaryPlan:
    """The requests of one compaction, in order (see the module docstring)."""

    history: tuple[SummaryStep, ...]
    turn_prefix: SummaryStep | None
    previous_summary: str | None = None
    chunked: bool = False
    input_budget_tokens: int | None = None
    """The input budget the steps were cut for (None: no window given, no chunking)."""
    system_prompt: str = SUMMARIZER_SYSTEM_PROMPT

    @property
    def steps(self) -> tuple[SummaryStep, ...]:
        """Every request in order: history steps, then the turn prefix."""
        return self.history + ((self.turn_prefix,) if self.turn_prefix is not None else ())

    def summary(
        self, history_summary: str | None, turn_prefix_summary: str | None, files: FileLists
    ) -> str:
        """The text the compaction entry stores, from the last history summary (or the
        previous summary when no history step ran) and the turn-prefix summary."""
        if self.turn_prefix is not None:
            history = history_summary if history_summary is not None else NO_PRIOR_HISTORY
            text = merge_split_turn(history, turn_prefix_summary or "")
        else:
            text = history_summary or ""
        return compaction_summary_text(text, files)


def summary_output_reserve(context_window: int, max_tokens: int | None) -> int:
    """The room to keep for the summarizer's answer: the model's output limit, but never more
    than half its window (a model whose limit is close to its window would leave no input)."""
    half = max(context_window // 2, 0)
    if max_tokens is None or max_tokens <= 0:
        return half
    return min(max_tokens, half)


def _units(messages: Sequence[AgentMessage]) -> list[list[AgentMessage]]:
    """Messages grouped so that no boundary falls before a tool result: each group is a
    message and the tool results after it."""
    units: list[list[AgentMessage]] = []
    for message in messages:
        if units and isinstance(message, ToolResultMessage):
            units[-1].append(message)
        else:
            units.append([message])
    return units


def _tokens(chars: int) -> int:
    return math.ceil(chars / _CHARS_PER_TOKEN)


def _chunks(
    units: list[list[AgentMessage]], budget_chars: int, frames: Sequence[int]
) -> list[tuple[list[AgentMessage], str, bool]]:
    """Greedy chunks of whole units: chunk `i` gets the budget minus `frames[i]` characters
    (the last frame for every later chunk). Each chunk: messages, serialized text, oversized."""
    chunks: list[tuple[list[AgentMessage], str, bool]] = []
    messages: list[AgentMessage] = []
    texts: list[str] = []
    size = 0
    for unit in units:
        limit = budget_chars - frames[min(len(chunks), len(frames) - 1)]
        text = serialize_conversation(unit)
        extra = js_length(text) + (2 if texts and text else 0)
        if messages and size + extra > limit:
            chunks.append((messages, "\n\n".join(texts), size > limit))
            messages, texts, size = [], [], 0
            limit = budget_chars - frames[min(len(chunks), len(frames) - 1)]
            extra = js_length(text)
        messages.extend(unit)
        if text:
            texts.append(text)
        size += extra
    if messages:
        limit = budget_chars - frames[min(len(chunks), len(frames) - 1)]
        chunks.append((messages, "\n\n".join(texts), size > limit))
    return chunks


def plan_summary_requests(
    messages_to_summarize: Sequence[AgentMessage],
    turn_prefix_messages: Sequence[AgentMessage] = (),
    *,
    is_split_turn: bool = False,
    previous_summary: str | None = None,
    custom_instructions: str | None = None,
    context_window: int | None = None,
    output_reserve_tokens: int = 0,
    summary_allowance_tokens: int = DEFAULT_SUMMARY_ALLOWANCE_TOKENS,
) -> SummaryPlan:
    """The summarizer requests for these messages.

    Without `context_window` (or with one `<= 0`) the plan is Pi's, unchunked. With it, every
    request is kept within `context_window - output_reserve_tokens` estimated input tokens
    where the messages allow (see `SummaryStep.oversized`).
    """
    split = is_split_turn and len(turn_prefix_messages) > 0
    focus = custom_instructions or None

    def history_step(messages: Sequence[AgentMessage], previous: str | None) -> SummaryStep:
        conversation = serialize_conversation(messages)
        text = history_request_text(conversation, previous, focus)
        return SummaryStep(
            "history",
            tuple(messages),
            conversation,
            focus,
            _tokens(js_length(SUMMARIZER_SYSTEM_PROMPT) + js_length(text)),
        )

    def prefix_step(messages: Sequence[AgentMessage]) -> SummaryStep:
        conversation = serialize_conversation(messages)
        text = turn_prefix_request_text(conversation, focus)
        return SummaryStep(
            "turn_prefix",
            tuple(messages),
            conversation,
            focus,
            _tokens(js_length(SUMMARIZER_SYSTEM_PROMPT) + js_length(text)),
        )

    history: list[SummaryStep] = []
    if not split or messages_to_summarize:
        history.append(history_step(messages_to_summarize, previous_summary))
    prefix = prefix_step(turn_prefix_messages) if split else None
    if context_window is None or context_window <= 0:
        return SummaryPlan(tuple(history), prefix, previous_summary)
    budget = context_window - max(output_reserve_tokens, 0)
    planned = [*history, prefix] if prefix is not None else history
    if all(step.estimated_input_tokens <= budget for step in planned):
        return SummaryPlan(tuple(history), prefix, previous_summary, False, budget)
    return _chunked_plan(
        messages_to_summarize,
        turn_prefix_messages if split else (),
        previous_summary,
        focus,
        budget,
        summary_allowance_tokens,
    )


def _chunked_plan(
    to_summarize: Sequence[AgentMessage],
    prefix_messages: Sequence[AgentMessage],
    previous_summary: str | None,
    focus: str | None,
    budget: int,
    allowance_tokens: int,
) -> SummaryPlan:
    budget_chars = budget * _CHARS_PER_TOKEN
    system = js_length(SUMMARIZER_SYSTEM_PROMPT)
    first_frame = system + js_length(history_request_text("", previous_summary, focus))
    # A summary is much smaller than what it summarizes; on a small window keep a quarter of
    # the budget for it rather than an allowance the window cannot hold.
    allowance = "x" * (min(allowance_tokens, budget // 4) * _CHARS_PER_TOKEN)
    update_frame = system + js_length(history_request_text("", allowance, focus))
    if previous_summary:
        update_frame = max(update_frame, first_frame)
    prefix_frame = system + js_length(turn_prefix_request_text("", focus))

    history_units = _units(to_summarize)
    prefix_step: SummaryStep | None = None
    if prefix_messages:
        prefix_units = _units(prefix_messages)
        # The turn's last part stays for its own request: as many trailing groups as fit.
        kept: list[list[AgentMessage]] = []
        size = 0
        for unit in reversed(prefix_units):
            extra = js_length(serialize_conversation(unit)) + 2
            if kept and prefix_frame + size + extra > budget_chars:
                break
            kept.append(unit)
            size += extra
        kept.reverse()
        history_units += prefix_units[: len(prefix_units) - len(kept)]
        messages = [message for unit in kept for message in unit]
        conversation = serialize_conversation(messages)
        chars = prefix_frame + js_length(conversation)
        prefix_step = SummaryStep(
            "turn_prefix",
            tuple(messages),
            conversation,
            focus,
            _tokens(chars),
            chars > budget_chars,
        )

    history: list[SummaryStep] = []
    for index, (messages, conversation, oversized) in enumerate(
        _chunks(history_units, budget_chars, (first_frame, update_frame))
    ):
        frame = first_frame if index == 0 else update_frame
        history.append(
            SummaryStep(
                "history",
                tuple(messages),
                conversation,
                focus,
                _tokens(frame + js_length(conversation)),
                oversized,
            )
        )
    if not history and not prefix_messages:
        history.append(
            SummaryStep("history", (), "", focus, _tokens(first_frame), first_frame > budget_chars)
        )
    return SummaryPlan(tuple(history), prefix_step, previous_summary, True, budget)


def plan_compaction_summary(
    preparation: CompactionPreparation,
    *,
    custom_instructions: str | None = None,
    context_window: int | None = None,
    output_reserve_tokens: int = 0,
    summary_allowance_tokens: int = DEFAULT_SUMMARY_ALLOWANCE_TOKENS,
) -> SummaryPlan:
    """`plan_summary_requests` for a prepared compaction."""
    return plan_summary_requests(
        preparation.messages_to_summarize,
        preparation.turn_prefix_messages,
        is_split_turn=preparation.is_split_turn,
        previous_summary=preparation.previous_summary,
        custom_instructions=custom_instructions,
        context_window=context_window,
        output_reserve_tokens=output_reserve_tokens,
        summary_allowance_tokens=summary_allowance_tokens,
    )
