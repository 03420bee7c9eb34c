"""The session-local index: records by occurrence key, refs, dedup aliases, the frontier.

Rebuilt from the branch's custom entries (`from_entries`) and kept in step as new entries are
written (`add_*` are the same steps the rebuild takes, so refs always agree).
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

import msgspec

from pith.ext.prune._records import (
    ALIAS_TYPE,
    CHAIN_TYPE,
    FRONTIER_TYPE,
    INDEX_TYPE,
    OUTCOME_TYPE,
    SUMMARY_TYPE,
    ChainEntry,
    DedupAlias,
    Frontier,
    IndexEntry,
    SummaryDetails,
    SummaryOutcome,
    ToolCallRecord,
)

Decision = Literal["summarized", "masked", "kept-raw"]

__all__ = ["Decision", "PruneIndex"]


@dataclass
class PruneIndex:
    records: dict[str, ToolCallRecord] = field(default_factory=dict)
    """Occurrence key -> record, in branch order."""
    refs: dict[str, str] = field(default_factory=dict)
    """Occurrence key -> `tN`."""
    by_ref: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, DedupAlias] = field(default_factory=dict)
    by_hash: dict[str, str] = field(default_factory=dict)
    by_id: dict[str, list[str]] = field(default_factory=dict)
    """Raw tool-call id -> its occurrence keys (records and aliases) by result time (a
    backfilled record goes before a later occurrence indexed earlier; equal times keep the
    order they were indexed in)."""
    batches: list[list[str]] = field(default_factory=list)
    """The records' keys, one list per indexed batch (assistant turn), in branch order."""
    decisions: dict[str, Decision] = field(default_factory=dict)
    """What the `summarize` strategy decided for a record (none yet: not summarized)."""
    frontier: str | None = None
    """The occurrence key of the last call attempted (indexed or skipped)."""
    chains: list[ChainEntry] = field(default_factory=list)
    """Compressed chains, in the order they were compressed."""
    compressed: dict[str, str] = field(default_factory=dict)
    """Occurrence key -> the block id of the chain that dropped it."""
    problems: list[str] = field(default_factory=list)

    @classmethod
    def from_entries(cls, entries: Iterable[tuple[str, object]]) -> PruneIndex:
        """The index from `(customType, data)` pairs in branch order; entries of other types
        are ignored, malformed ones are reported in `problems`."""
        index = cls()
        for custom_type, data in entries:
            try:
                if custom_type == INDEX_TYPE:
                    index.add_batch(msgspec.convert(data, IndexEntry))
                elif custom_type == ALIAS_TYPE:
                    index.add_alias(msgspec.convert(data, DedupAlias))
                elif custom_type == FRONTIER_TYPE:
                    index.frontier = msgspec.convert(data, Frontier).key
                elif custom_type == SUMMARY_TYPE:
                    details = msgspec.convert(data, SummaryDetails)
                    index.decide([ref.key for ref in details.tool_call_refs], "summarized")
                elif custom_type == CHAIN_TYPE:
                    index.add_chain(msgspec.convert(data, ChainEntry))
                elif custom_type == OUTCOME_TYPE:
                    outcome = msgspec.convert(data, SummaryOutcome)
                    index.decide(outcome.keys, outcome.outcome)
            except msgspec.ValidationError as error:
                index.problems.append(f"a {custom_type} entry is malformed ({error}); ignored")
        return index

    def add_batch(self, entry: IndexEntry) -> None:
        keys: list[str] = []
        for record in entry.tool_calls:
            key = record.key
            if key in self.records:
                continue
            keys.append(key)
            self.records[key] = record
            ref = f"t{len(self.by_ref) + 1}"
            self.refs[key] = ref
            self.by_ref[ref] = key
            self._add_occurrence(record.tool_call_id, key)
            if not entry.backfilled:  # a backfill is old calls: neither frontier nor dedup
                self.by_hash.setdefault(record.content_hash, key)
                self.frontier = key
        if keys:
            self.batches.append(keys)

    def add_chain(self, entry: ChainEntry) -> None:
        self.chains.append(entry)
        for key in entry.dropped_occurrence_keys:
            self.compressed.setdefault(key, entry.block_id)

    @property
    def compressed_starts(self) -> set[int | float]:
        """The start user timestamps of the compressed chains."""
        return {entry.start_user_timestamp for entry in self.chains}

    def next_block_id(self) -> str:
        """`bN` one past the highest block id on the branch (monotonic)."""
        numbers = [int(e.block_id[1:]) for e in self.chains if e.block_id[1:].isdigit()]
        return f"b{max(numbers, default=0) + 1}"

    def decide(self, keys: Iterable[str], decision: Decision) -> None:
        """Record the `summarize` strategy's decision for `keys` (a later one wins)."""
        for key in keys:
            self.decisions[key] = decision

    def add_alias(self, alias: DedupAlias) -> None:
        key = alias.key
        if key in self.aliases or key in self.records:
            return
        self.aliases[key] = alias
        self._add_occurrence(alias.tool_call_id, key)

    def _add_occurrence(self, tool_call_id: str, key: str) -> None:
        insort(self.by_id.setdefault(tool_call_id, []), key, key=self._time_of)

    def _time_of(self, key: str) -> int | float:
        alias = self.aliases.get(key)
        return alias.result_timestamp if alias is not None else self.records[key].result_timestamp

    def knows(self, key: str) -> bool:
        return key in self.records or key in self.aliases

    def resolve(self, key: str) -> tuple[ToolCallRecord, str] | None:
        """The record behind `key` (following a dedup alias) and its ref."""
        alias = self.aliases.get(key)
        target = alias.original_key if alias is not None else key
        record = self.records.get(target)
        if record is None:
            return None
        return record, self.refs[target]
