"""Capture: one assistant turn's tool calls and results become a batch plan. Pure.

Order of judgement per call: protected → already indexed → dedup → kept. The
kept calls of a batch are indexed only when together they hold at least `minBatchChars` raw
characters; a smaller batch is skipped and the frontier records that it was tried.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    ImageContent,
    ToolResultMessage,
    content_text,
)
from pith.ext.prune._config import PruneConfig
from pith.ext.prune._index import PruneIndex
from pith.ext.prune._protect import is_protected
from pith.ext.prune._records import DedupAlias, Outcome, occurrence_key

__all__ = [
    "BatchPlan",
    "CapturedCall",
    "content_hash",
    "pending_batches",
    "plan_batch",
    "result_text",
]


@dataclass(frozen=True)
class CapturedCall:
    """A call that will be indexed, with its full output (for spilling and sizes)."""

    tool_call_id: str
    tool_name: str
    args: dict[str, object]
    text: str
    is_error: bool
    result_timestamp: int | float
    content_hash: str

    @property
    def key(self) -> str:
        return occurrence_key(self.tool_call_id, self.result_timestamp)


@dataclass
class BatchPlan:
    calls: list[CapturedCall] = field(default_factory=list)
    aliases: list[DedupAlias] = field(default_factory=list)
    outcome: Outcome | None = None
    """None when the turn had nothing the pruner could take (no calls, all protected)."""
    last_call: tuple[str, int | float] | None = None
    """The last call (id, result timestamp) of the batch: the frontier after this batch."""

    @property
    def last_key(self) -> str | None:
        return occurrence_key(*self.last_call) if self.last_call is not None else None


def result_text(message: ToolResultMessage) -> str:
    """The joined text blocks of a result (what the model read)."""
    return content_text(message.content)


def content_hash(tool_name: str, text: str) -> str:
    """sha1 of the tool name and the text with CRLF→LF, trailing blanks per line stripped,
    and the whole trimmed, so outputs that differ only in line ends or trailing blanks dedup."""
    lines = text.replace("\r\n", "\n").split("\n")
    normal = "\n".join(line.rstrip(" \t") for line in lines).strip()
    return hashlib.sha1(f"{tool_name}\0{normal}".encode()).hexdigest()


def plan_batch(
    message: AssistantMessage,
    results: Sequence[ToolResultMessage],
    index: PruneIndex,
    config: PruneConfig,
    cwd: str = "",
) -> BatchPlan:
    """What to record for one assistant turn."""
    plan = BatchPlan()
    by_id: dict[str, ToolResultMessage] = {}
    for item in results:
        by_id.setdefault(item.tool_call_id, item)  # the first result for an id wins
    for call in message.tool_calls():
        result = by_id.get(call.id)
        if result is None:
            continue
        key = occurrence_key(call.id, result.timestamp)
        plan.last_call = (call.id, result.timestamp)
        if is_protected(call.name, call.arguments, config, cwd) or index.knows(key):
            continue
        if any(isinstance(block, ImageContent) for block in result.content):
            continue  # an image cannot be recovered as text: leave it alone
        text = result_text(result)
        digest = content_hash(call.name, text)
        original = index.by_hash.get(digest) if config.dedup_by_content_hash else None
        if original is not None:
            record = index.records[original]
            plan.aliases.append(
                DedupAlias(
                    tool_call_id=call.id,
                    result_timestamp=result.timestamp,
                    tool_name=call.name,
                    args=dict(call.arguments),
                    original_tool_call_id=record.tool_call_id,
                    original_result_timestamp=record.result_timestamp,
                    content_hash=digest,
                )
            )
            continue
        plan.calls.append(
            CapturedCall(
                call.id,
                call.name,
                dict(call.arguments),
                text,
                result.is_error,
                result.timestamp,
                digest,
            )
        )
    if plan.last_call is None:
        return plan
    raw = sum(len(call.text) for call in plan.calls)
    if plan.calls and raw >= config.min_batch_chars:
        plan.outcome = "indexed"
    elif plan.calls:
        plan.outcome = "skipped-trivial"
        plan.calls = []
    elif plan.aliases:
        plan.outcome = "skipped-deduped"
    return plan


def pending_batches(
    messages: Sequence[AgentMessage], frontier: str | None
) -> list[tuple[AssistantMessage, list[ToolResultMessage]]]:
    """The assistant turns of `messages` (with their results) after the frontier: what a
    rescan (`/pruner now`) may still capture. Turns up to and including the one holding the
    frontier were already attempted and are never retried."""
    batches: list[tuple[AssistantMessage, list[ToolResultMessage]]] = []
    current: tuple[AssistantMessage, list[ToolResultMessage]] | None = None
    for message in messages:
        if isinstance(message, AssistantMessage):
            current = (message, []) if message.tool_calls() else None
            if current is not None:
                batches.append(current)
        elif isinstance(message, ToolResultMessage) and current is not None:
            current[1].append(message)
        else:
            current = None  # a result after a user or custom message belongs to no turn
    if frontier is None:
        return batches
    for position, (_, results) in enumerate(batches):
        keys = {occurrence_key(r.tool_call_id, r.timestamp) for r in results}
        if frontier in keys:
            return batches[position + 1 :]
    return batches
