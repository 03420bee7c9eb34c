"""Which chains to compress now, and what each needs (docs/pruning.md). Pure.

`plan_chains` detects the chains of the session's messages, selects those older than the
newest K (`_detect.select_chains`), defers a chain holding a `context_tree_query` output still
in its grace period, and skips a chain whose every result is protected. For each chain left it
gathers the per-batch summaries that cover it and the calls no batch captured (to be indexed
as a *backfill* before the chain is written, so every dropped output stays recoverable).

The minimum gain (`minGainTokens`, as for stubs): the chains together must free at least that
many estimated tokens (characters / 4 of what the next request would no longer hold, less what
their bodies add back), or none is compressed now — each compression costs a prompt-cache miss
from the chain's start on. `/pruner compact` (`force`) skips this check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    CustomMessage,
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pith.ext.prune._capture import CapturedCall, content_hash, result_text
from pith.ext.prune._config import PruneConfig
from pith.ext.prune._index import PruneIndex
from pith.ext.prune._protect import is_protected
from pith.ext.prune._records import SUMMARY_TYPE, occurrence_key
from pith.ext.prune._stub import QUERY_TOOL
from pith.ext.prune.chains._detect import Chain, detect_chains, select_chains, user_text
from pith.ext.prune.chains._render import summary_keys

__all__ = ["BODY_ALLOWANCE", "ChainPlan", "plan_chains"]

BODY_ALLOWANCE = 400
"""Characters a compressed chain's message adds besides its summaries (tags, a deterministic
body), for the gain estimate."""


@dataclass(frozen=True)
class ChainPlan:
    chain: Chain
    request: str
    """The start user message's text (the fusion request's context)."""
    summaries: tuple[str, ...]
    """The distinct `prune-summary` texts that name a result of the chain, in order."""
    covered: frozenset[str]
    """The occurrence keys those summaries name."""
    backfill: tuple[CapturedCall, ...]
    """Unprotected results of the chain no batch captured, in order."""
    gain_chars: int


def _size(message: AgentMessage) -> int:
    return len(msgspec.json.encode(message))


def _summaries(
    messages: Sequence[AgentMessage], keys: set[str]
) -> tuple[tuple[str, ...], frozenset[str], list[int]]:
    texts: list[str] = []
    covered: set[str] = set()
    positions: list[int] = []
    for position, message in enumerate(messages):
        if not (isinstance(message, CustomMessage) and message.custom_type == SUMMARY_TYPE):
            continue
        named = summary_keys(message)
        if not named & keys:
            continue
        text = (
            message.content
            if isinstance(message.content, str)
            else "".join(b.text for b in message.content if isinstance(b, TextContent))
        )
        positions.append(position)
        covered |= named
        if text not in texts:
            texts.append(text)
    return tuple(texts), frozenset(covered), positions


def _backfill(
    messages: Sequence[AgentMessage],
    chain: Chain,
    index: PruneIndex,
    config: PruneConfig,
    cwd: str,
) -> list[CapturedCall]:
    calls: dict[str, ToolCall] = {}
    found: list[CapturedCall] = []
    assert chain.end is not None
    for position in range(chain.start + 1, chain.end):
        message = messages[position]
        if isinstance(message, AssistantMessage):
            calls = {call.id: call for call in message.tool_calls()}
            continue
        if not isinstance(message, ToolResultMessage):
            continue
        call = calls.pop(message.tool_call_id, None)
        key = occurrence_key(message.tool_call_id, message.timestamp)
        if call is None or index.knows(key) or key in chain.protected_keys:
            continue
        if any(isinstance(block, ImageContent) for block in message.content):
            continue  # an image cannot be recovered as text
        text = result_text(message)
        found.append(
            CapturedCall(
                call.id,
                call.name,
                dict(call.arguments),
                text,
                message.is_error,
                message.timestamp,
                content_hash(call.name, text),
            )
        )
    return found


def plan_chains(
    messages: Sequence[AgentMessage],
    rendered: Sequence[AgentMessage],
    index: PruneIndex,
    config: PruneConfig,
    cwd: str = "",
    window: int = 3,
    force: bool = False,
) -> list[ChainPlan]:
    """The chains to compress now (`window` 0: every closed chain), oldest first.

    `messages` are the session's messages before the next prompt; `rendered` the same with
    the stubs the next request will carry (one for one), for the gain estimate."""
    chains = detect_chains(
        messages, lambda name, args: is_protected(name, args, config, cwd), config.protected_tools
    )
    users = [p for p, m in enumerate(messages) if isinstance(m, UserMessage)]
    group = {position: number for number, position in enumerate(users, start=1)}
    total = len(users) + 1  # the prompt about to be sent starts a group too
    grace = config.recovery_grace_turns

    def in_grace(chain: Chain) -> bool:
        """Whether `chain` holds a recovery output still in its grace period."""
        if grace <= 0 or total - group[chain.start] > grace:
            return False
        return any(
            isinstance(m, ToolResultMessage) and m.tool_name == QUERY_TOOL
            for m in messages[chain.start + 1 : chain.end]
        )

    selected = select_chains(chains, index.compressed_starts, window, in_grace)
    plans: list[ChainPlan] = []
    for chain in selected:
        assert chain.end is not None
        protected = set(chain.protected_keys)
        if all(key in protected for key in chain.keys):
            continue  # nothing but protected outputs: nothing to gain, nothing to lose
        summaries, covered, places = _summaries(messages, set(chain.keys))
        backfill = _backfill(messages, chain, index, config, cwd)
        dropped = sum(
            _size(rendered[p])
            for p in range(chain.start + 1, chain.end)
            if isinstance(rendered[p], AssistantMessage | ToolResultMessage)
        )
        moved = sum(len(text) for text in summaries) + sum(
            len(result_text(m))
            for m in messages[chain.start + 1 : chain.end]
            if isinstance(m, ToolResultMessage)
            and occurrence_key(m.tool_call_id, m.timestamp) in protected
        )
        dropped += sum(_size(rendered[p]) for p in places)
        start = messages[chain.start]
        assert isinstance(start, UserMessage)
        plans.append(
            ChainPlan(
                chain,
                user_text(start),
                summaries,
                covered,
                tuple(backfill),
                dropped - moved - BODY_ALLOWANCE,
            )
        )
    if not force and sum(plan.gain_chars for plan in plans) // 4 < max(config.min_gain_tokens, 1):
        return []
    return plans
