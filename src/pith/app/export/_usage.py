"""Where a session's tokens went: context size per model request along the active branch. Pure.

For every assistant message that reports usage, the request that produced it sent
`input + cacheRead + cacheWrite` tokens. That figure is split into the system prompt, the
conversation's messages and tool outputs in the proportions pith's chars/4 estimator gives for
the context the request was built from (the branch's projection just before the reply). The
system prompt is the persisted system messages when the session has them (Pi 1.6); otherwise it
is calibrated once: what the first request reported beyond its estimated messages.

Pruning never rewrites the session, so what it removed is estimated from its records: tool
results a pruner summary names, results whose batch was recorded as masked, results a
compressed chain dropped (its body counts as a message), and (when the pruner kept no
summaries, i.e. its `mask` strategy) results it indexed before the request's task began — the
same boundary and the same default minimum gain pith's pruner uses. Compactions are marked
where they happened, with the `tokensBefore` they recorded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
)
from pith.compaction import estimate_text_tokens, estimate_tokens
from pith.session import (
    CompactionEntry,
    ContextEditEntry,
    CustomEntry,
    CustomMessageEntry,
    MessageEntry,
    RawEntry,
    SessionEntry,
    entry_messages,
    project,
)

__all__ = ["CompactionMark", "ContextTimeline", "RequestUsage", "context_timeline"]

MIN_GAIN_TOKENS = 2000
"""pith's pruner masks nothing that would free fewer tokens than this (its default)."""

# The pruners' persisted records: pith's (`prune-*`) and Pi's context-prune (`context-prune-*`).
_SUMMARY_TYPES = frozenset({"prune-summary", "context-prune-summary"})
_INDEX_TYPES = frozenset({"prune-index"})
_ALIAS_TYPE = "prune-dedup-alias"
_OUTCOME_TYPE = "prune-summary-outcome"
_CHAIN_TYPES = frozenset({"prune-chain", "context-prune-chain"})
_STATS_TYPES = frozenset({"prune-stats", "context-prune-stats"})


@dataclass(frozen=True)
class RequestUsage:
    """One model request. Token figures are the reported input split by the estimate."""

    number: int
    """1-based, among the requests of the branch."""
    entry_id: str
    """The assistant message the request produced."""
    model: str
    reported: int
    """input + cacheRead + cacheWrite, as the provider reported it."""
    system: int
    messages: int
    tool_outputs: int
    pruned: int
    """Estimated tokens pruning kept out of this request (0 when nothing was pruned)."""
    pruned_results: int
    """How many tool results that was."""


@dataclass(frozen=True)
class CompactionMark:
    after_requests: int
    """How many of the branch's requests came before it."""
    entry_id: str
    tokens_before: int
    summary_tokens: int


@dataclass
class ContextTimeline:
    requests: list[RequestUsage] = field(default_factory=list)
    compactions: list[CompactionMark] = field(default_factory=list)
    system_calibrated: bool = False
    """True when the system prompt's size was inferred from the first request."""
    prune_stats: Mapping[str, object] | None = None
    """The last pruner statistics entry on the branch (its data as written)."""

    @property
    def peak(self) -> int:
        return max((r.reported + r.pruned for r in self.requests), default=0)


@dataclass
class _Item:
    """One message of the running context."""

    position: int
    kind: str  # "system" | "messages" | "tools"
    tokens: int
    key: str = ""  # a tool result's `callId@timestamp`
    call_id: str = ""


@dataclass
class _PruneRecords:
    indexed: set[str] = field(default_factory=set)
    forced_keys: set[str] = field(default_factory=set)
    forced_ids: set[str] = field(default_factory=set)
    summaries: int = 0

    def add(self, custom_type: str, data: object) -> None:
        if custom_type in _SUMMARY_TYPES:
            self.summaries += 1
            for ref in _dicts(_get(data, "toolCallRefs")):
                self._force(ref.get("toolCallId"), ref.get("resultTimestamp"))
        elif custom_type in _INDEX_TYPES:
            for record in _dicts(_get(data, "toolCalls")):
                key = _key(record.get("toolCallId"), record.get("resultTimestamp"))
                if key:
                    self.indexed.add(key)
        elif custom_type == _ALIAS_TYPE and isinstance(data, dict):
            key = _key(data.get("toolCallId"), data.get("resultTimestamp"))
            if key:
                self.indexed.add(key)
        elif custom_type == _OUTCOME_TYPE and _get(data, "outcome") == "masked":
            self.forced_keys.update(k for k in _list(_get(data, "keys")) if isinstance(k, str))
        elif custom_type in _CHAIN_TYPES:
            # A compressed chain drops its results; protected ones are moved in verbatim.
            kept = {k for k in _list(_get(data, "protectedOccurrenceKeys")) if isinstance(k, str)}
            keys = [k for k in _list(_get(data, "droppedOccurrenceKeys")) if isinstance(k, str)]
            if keys:
                self.forced_keys.update(k for k in keys if k not in kept)
            else:
                ids = _list(_get(data, "droppedToolCallIds"))
                self.forced_ids.update(i for i in ids if isinstance(i, str))

    def _force(self, call_id: object, timestamp: object) -> None:
        key = _key(call_id, timestamp)
        if key:
            self.forced_keys.add(key)
        elif isinstance(call_id, str):
            self.forced_ids.add(call_id)

    def forced(self, item: _Item) -> bool:
        return item.key in self.forced_keys or item.call_id in self.forced_ids


def context_timeline(path: Sequence[SessionEntry]) -> ContextTimeline:
    """The requests and compactions of the root-to-leaf `path`, oldest first."""
    timeline = ContextTimeline()
    by_id = {entry.id: entry for entry in path}
    records = _PruneRecords()
    items: list[_Item] = []
    last_user = -1
    calibrated: int | None = None
    for position, entry in enumerate(path):
        if isinstance(entry, CustomEntry):
            records.add(entry.custom_type, entry.data)
            body = _get(entry.data, "body") or _get(entry.data, "rangeSummaryText")
            if entry.custom_type in _CHAIN_TYPES and isinstance(body, str):
                items.append(_Item(position, "messages", estimate_text_tokens(body)))
            if entry.custom_type in _STATS_TYPES and isinstance(entry.data, dict):
                timeline.prune_stats = entry.data
        elif isinstance(entry, CustomMessageEntry) and entry.custom_type in _SUMMARY_TYPES:
            records.add(entry.custom_type, entry.details)
        message = _message_of(entry)
        if isinstance(message, AssistantMessage):
            usage = message.usage
            reported = usage.input + usage.cache_read + usage.cache_write
            if reported > 0:
                system = calibrated
                if not any(item.kind == "system" for item in items) and system is None:
                    system = calibrated = _calibrate(reported, items, records, last_user)
                number = len(timeline.requests) + 1
                timeline.requests.append(
                    _request(number, entry.id, message, reported, items, records, last_user, system)
                )
        if isinstance(entry, CompactionEntry | ContextEditEntry):
            items = _rebuild(path[: position + 1], by_id, {e.id: i for i, e in enumerate(path)})
            if isinstance(entry, CompactionEntry):
                timeline.compactions.append(
                    CompactionMark(
                        len(timeline.requests),
                        entry.id,
                        entry.tokens_before,
                        estimate_text_tokens(entry.summary),
                    )
                )
        else:
            items.extend(_items(position, entry))
        if isinstance(message, UserMessage):
            last_user = position
    timeline.system_calibrated = calibrated is not None
    return timeline


def _request(
    number: int,
    entry_id: str,
    message: AssistantMessage,
    reported: int,
    items: list[_Item],
    records: _PruneRecords,
    last_user: int,
    calibrated: int | None,
) -> RequestUsage:
    system = sum(item.tokens for item in items if item.kind == "system")
    if system == 0 and calibrated is not None:
        system = calibrated
    conversation = sum(item.tokens for item in items if item.kind == "messages")
    tools = sum(item.tokens for item in items if item.kind == "tools")
    pruned, count = _pruned(items, records, last_user)
    total = system + conversation + tools - pruned
    scale = reported / total if total > 0 else 0.0
    split_system = round(system * scale)
    split_messages = round(conversation * scale)
    return RequestUsage(
        number=number,
        entry_id=entry_id,
        model=f"{message.provider}/{message.model}" if message.provider else message.model,
        reported=reported,
        system=split_system,
        messages=split_messages,
        tool_outputs=max(0, reported - split_system - split_messages),
        pruned=round(pruned * scale),
        pruned_results=count,
    )


def _calibrate(reported: int, items: list[_Item], records: _PruneRecords, last_user: int) -> int:
    """The system prompt and tool schemas of a session that does not persist them: what the
    first request reported beyond the estimate of everything else it sent."""
    sent = sum(item.tokens for item in items if item.kind != "system")
    return max(0, reported - sent + _pruned(items, records, last_user)[0])


def _pruned(items: Iterable[_Item], records: _PruneRecords, last_user: int) -> tuple[int, int]:
    """Estimated tokens (and results) pruning removed from a request with context `items`."""
    forced = 0
    optional = 0
    forced_count = 0
    optional_count = 0
    mask_strategy = records.summaries == 0
    for item in items:
        if item.kind != "tools" or not item.key:
            continue
        if records.forced(item):
            forced += item.tokens
            forced_count += 1
        elif mask_strategy and item.position < last_user and item.key in records.indexed:
            optional += item.tokens
            optional_count += 1
    if optional < MIN_GAIN_TOKENS:
        optional, optional_count = 0, 0
    return forced + optional, forced_count + optional_count


def _rebuild(
    prefix: Sequence[SessionEntry], by_id: Mapping[str, SessionEntry], positions: dict[str, int]
) -> list[_Item]:
    """The context items after a compaction or a context edit: the projection, recounted."""
    projection = project(prefix, prefix[-1].id, by_id)
    items: list[_Item] = []
    for projected in projection.entries:
        position = positions.get(projected.entry.id, 0)
        for message in projected.messages:
            items.append(_item(position, message))
    return items


def _items(position: int, entry: SessionEntry) -> list[_Item]:
    return [_item(position, message) for message in entry_messages(entry)]


def _item(position: int, message: AgentMessage) -> _Item:
    if isinstance(message, SystemMessage):
        return _Item(position, "system", estimate_tokens(message))
    if isinstance(message, ToolResultMessage):
        key = _key(message.tool_call_id, message.timestamp) or ""
        return _Item(position, "tools", estimate_tokens(message), key, message.tool_call_id)
    if isinstance(message, BashExecutionMessage):
        tokens = 0 if message.exclude_from_context else estimate_tokens(message)
        return _Item(position, "tools", tokens)
    return _Item(position, "messages", estimate_tokens(message))


def _message_of(entry: SessionEntry) -> AgentMessage | None:
    if isinstance(entry, MessageEntry):
        return entry.message
    if isinstance(entry, RawEntry):
        return entry.message
    return None


def _key(call_id: object, timestamp: object) -> str | None:
    """`id@timestamp`, as the pruner keys one result of a call (integral stamps as ints)."""
    if not isinstance(call_id, str) or isinstance(timestamp, bool):
        return None
    if not isinstance(timestamp, int | float):
        return None
    stamp = int(timestamp) if float(timestamp).is_integer() else timestamp
    return f"{call_id}@{stamp}"


def _get(data: object, name: str) -> object:
    return data.get(name) if isinstance(data, dict) else None


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _dicts(value: object) -> list[dict[str, object]]:
    return [item for item in _list(value) if isinstance(item, dict)]
