"""Render-time masking: the outgoing messages with finished batches' results as stubs. Pure.

What stays raw (so the prompt cache is busted once per task, not once per turn):

- everything from the last user message on — the task the model is working on now — and, with
  `keepRecentTurns` N, the N user turns before it. Masking mid-task would hide what the model
  is using and change the prompt prefix on every turn; masking at the next user message costs
  one cache miss per task, where the previous task's prefix is invalidated anyway;
- results the index does not know (protected, trivial, not yet captured);
- records whose call is protected *now* (render-time re-check: a record indexed under an older
  config whose path now matches is shown raw again);
- `context_tree_query` outputs inside their `recoveryGraceTurns` window.

A budget trigger (`_budget`, `autoBudgetThreshold` / `budgetTurnDelta`) moves a `budget_cut`
forward: the batches of assistant turns older than it are maskable even inside the current task
(the newest turn's results always stay raw, as the cut is that turn's timestamp). They are
masked whatever the strategy: a summary mid-run would block the run and arrive as steering.
`RenderStats.budget_masked` names the undecided ones, which the extension records as `masked`
so they stay the same stubs after the task (never summarized later) and after a reload.

And no masking at all when it would free fewer than `minGainTokens` (chars/4): then the very
same list comes back, so the prompt cache is untouched. Results of a batch the `summarize`
strategy decided on (`index.decisions`) are stubbed whatever the gain — the summary is in the
context already, and that decision was itself gated on the gain (`plan_jobs` in `summaries`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from pith.ai import AgentMessage, AssistantMessage, TextContent, ToolResultMessage, UserMessage
from pith.ext.prune._config import PruneConfig
from pith.ext.prune._index import PruneIndex
from pith.ext.prune._protect import is_protected
from pith.ext.prune._records import occurrence_key
from pith.ext.prune._stub import QUERY_TOOL, mask_stub, summary_stub

__all__ = ["RenderStats", "boundary", "render", "stub_for"]


@dataclass(frozen=True)
class RenderStats:
    masked: int = 0
    chars_before: int = 0
    chars_after: int = 0
    budget_masked: tuple[str, ...] = ()
    """Keys of records masked past the boundary (a budget trigger) with no decision yet: the
    caller records them as masked, so they stay stubs when the task ends and after a reload."""
    stubbed: tuple[str, ...] = ()
    """Occurrence keys of every result stubbed, in message order (for the stats)."""

    @property
    def tokens_saved(self) -> int:
        return (self.chars_before - self.chars_after) // 4


def boundary(messages: Sequence[AgentMessage], keep_recent_turns: int) -> int:
    """The index of the first message kept raw as recent: the last user message, or the
    `keep_recent_turns`-th user message before it; 0 (nothing maskable) when there are not
    that many user messages."""
    seen = 0
    for position in range(len(messages) - 1, -1, -1):
        if isinstance(messages[position], UserMessage):
            if seen == keep_recent_turns:
                return position
            seen += 1
    return 0


def stub_for(index: PruneIndex, key: str) -> str | None:
    """The stub text for occurrence `key`, or None when the index does not know it."""
    found = index.resolve(key)
    if found is None:
        return None
    record, ref = found
    alias = index.aliases.get(key)
    if alias is not None:
        return mask_stub(record, ref, tool_name=alias.tool_name, args=alias.args)
    return mask_stub(record, ref)


def _protected_now(index: PruneIndex, key: str, config: PruneConfig, cwd: str) -> bool:
    alias = index.aliases.get(key)
    if alias is not None:
        return is_protected(alias.tool_name, alias.args, config, cwd)
    record = index.records.get(key)
    return record is not None and is_protected(record.tool_name, record.args, config, cwd)


def _stub(index: PruneIndex, key: str, strategy: str) -> tuple[str | None, bool]:
    """The stub for `key` and whether it is forced (a decision of the `summarize` strategy,
    applied whatever the gain, since its summary is already in the context); (None, False)
    when the result stays raw."""
    found = index.resolve(key)
    if found is None:
        return None, False
    record, ref = found
    decision = index.decisions.get(record.key)
    if decision == "kept-raw":
        return None, False
    alias = index.aliases.get(key)
    if decision == "summarized":
        if alias is not None:
            return mask_stub(record, ref, tool_name=alias.tool_name, args=alias.args), True
        return summary_stub(record, ref), True
    forced = decision == "masked"
    waiting = record.spill_path is None and record.tool_name != QUERY_TOOL
    if not forced and strategy == "summarize" and waiting:
        return None, False  # its summary comes; only what is never summarized is masked now
    return stub_for(index, key), forced


def render(
    messages: list[AgentMessage],
    index: PruneIndex,
    config: PruneConfig,
    cwd: str = "",
    strategy: str = "mask",
    budget_cut: int | float | None = None,
) -> tuple[list[AgentMessage], RenderStats]:
    """`messages` with the maskable results stubbed, and what that saved; `messages` itself
    (the same object) when nothing is stubbed.

    With `strategy` `summarize`, a result waiting for its summary stays raw; results whose
    batch was summarized (or masked after a failed summary) are stubbed whatever the gain.
    With `budget_cut` (an assistant timestamp), the results of turns older than it are
    maskable past the boundary too (masked, never waiting for a summary)."""
    if not index.records:
        return messages, RenderStats()
    end = boundary(messages, config.keep_recent_turns)
    total_groups = sum(isinstance(m, UserMessage) for m in messages)
    group = 0
    forced: dict[int, str] = {}
    optional: dict[int, str] = {}
    sizes: dict[int, int] = {}
    undecided: dict[int, str] = {}
    keys: dict[int, str] = {}
    stop = len(messages) if budget_cut is not None else end
    turn_stamp: int | float | None = None
    for position in range(stop):
        message = messages[position]
        if isinstance(message, UserMessage):
            group += 1
            continue
        if isinstance(message, AssistantMessage):
            turn_stamp = message.timestamp
            continue
        if not isinstance(message, ToolResultMessage):
            continue
        mid_task = position >= end
        if mid_task and (turn_stamp is None or budget_cut is None or turn_stamp >= budget_cut):
            continue
        key = occurrence_key(message.tool_call_id, message.timestamp)
        if not index.knows(key) or _protected_now(index, key, config, cwd):
            continue
        grace = config.recovery_grace_turns
        if message.tool_name == QUERY_TOOL and grace > 0 and total_groups - group <= grace:
            continue
        stub, must = _stub(index, key, "mask" if mid_task else strategy)
        if stub is None:
            continue
        text = "".join(b.text for b in message.content if isinstance(b, TextContent))
        if len(stub) >= len(text):
            continue  # already a stub, or the stub would not be shorter
        (forced if must else optional)[position] = stub
        keys[position] = key
        if mid_task and key in index.records and key not in index.decisions:
            undecided[position] = key
        sizes[position] = len(text)
    gain = sum(sizes[p] - len(stub) for p, stub in optional.items()) // 4
    stubs = dict(forced)
    if optional and gain >= max(config.min_gain_tokens, 1):
        stubs.update(optional)
    if not stubs:
        return messages, RenderStats()
    before = sum(sizes[p] for p in stubs)
    after = sum(len(stub) for stub in stubs.values())
    out = list(messages)
    for position in sorted(stubs):
        original = out[position]
        assert isinstance(original, ToolResultMessage)
        out[position] = msgspec.structs.replace(
            original, content=[TextContent(text=stubs[position])]
        )
    budget = tuple(key for position, key in sorted(undecided.items()) if position in stubs)
    stubbed = tuple(keys[position] for position in sorted(stubs))
    return out, RenderStats(len(stubs), before, after, budget, stubbed)
