"""The pruner's running totals (`prune-stats`): what the summarizer
cost, how many summaries it wrote, and what the last pruning request masked and saved.

One custom entry holds the whole state (the last one on the branch wins), so a reload or a move
in the tree reads it back in one step. `Tally` writes a new one only when the totals changed
and only once the pruner has written something else (the pruner writes lazily).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

from pith.ai import Usage
from pith.ext.prune._index import PruneIndex
from pith.ext.prune._journal import Journal
from pith.extensions import ExtensionContext

__all__ = [
    "STATS_TYPE",
    "PruneStats",
    "Tally",
    "add_usage",
    "format_stats",
    "masked_batches",
    "stats_from_entries",
]

STATS_TYPE = "prune-stats"


class PruneStats(msgspec.Struct, rename="camel", kw_only=True, frozen=True):
    input_tokens: int = 0
    """Summarizer input tokens, all requests of the branch."""
    output_tokens: int = 0
    cost: float = 0.0
    """Summarizer cost in dollars, from the replies' `usage.cost.total`."""
    summaries: int = 0
    """Summary messages recorded."""
    batches_masked: int = 0
    """Batches sent as mask stubs by the last request that pruned anything."""
    tokens_saved: int = 0
    """Estimated tokens (chars / 4) the last request that pruned anything saved."""
    chains_compressed: int = 0
    """`prune-chain` entries written on the branch."""
    ranges_summarized: int = 0
    """Compressed chains whose body is one fused summary (one extra summarizer call each)."""


def add_usage(stats: PruneStats, usage: Usage) -> PruneStats:
    """`stats` with one summarizer reply's usage added."""
    return msgspec.structs.replace(
        stats,
        input_tokens=stats.input_tokens + usage.input + usage.cache_read + usage.cache_write,
        output_tokens=stats.output_tokens + usage.output,
        cost=stats.cost + float(usage.cost.total),
    )


def stats_from_entries(
    entries: Iterable[tuple[str, object]],
) -> tuple[PruneStats | None, list[str]]:
    """The last well-formed `prune-stats` entry among `(customType, data)` pairs (None when
    there is none), and one line per malformed entry."""
    found: PruneStats | None = None
    problems: list[str] = []
    for custom_type, data in entries:
        if custom_type != STATS_TYPE:
            continue
        try:
            found = msgspec.convert(data, PruneStats)
        except msgspec.ValidationError as error:
            problems.append(f"a {STATS_TYPE} entry is malformed ({error}); ignored")
    return found, problems


def format_stats(stats: PruneStats) -> str:
    """The `/pruner stats` text."""
    return "\n".join(
        [
            f"summarizer: {stats.input_tokens} input tokens, {stats.output_tokens} output tokens, "
            f"${stats.cost:.4f}",
            f"summaries recorded: {stats.summaries}",
            f"last pruning request: {stats.batches_masked} batches masked, "
            f"~{stats.tokens_saved} tokens saved",
            f"chains compressed: {stats.chains_compressed} "
            f"({stats.ranges_summarized} with a fused summary)",
        ]
    )


def masked_batches(index: PruneIndex, stubbed: Sequence[str]) -> int:
    """How many indexed batches the stubs `stubbed` (occurrence keys, dedup aliases
    included) mask; summarized results do not count."""
    batch_of = {key: n for n, keys in enumerate(index.batches) for key in keys}
    batches: set[int] = set()
    for key in stubbed:
        found = index.resolve(key)
        if found is None or index.decisions.get(found[0].key) == "summarized":
            continue
        number = batch_of.get(found[0].key)
        if number is not None:
            batches.add(number)
    return len(batches)


class Tally:
    """The running totals now, and as the branch's last `prune-stats` entry holds them."""

    def __init__(self) -> None:
        self.current = PruneStats()
        self.saved = PruneStats()

    def reset(self, stats: PruneStats | None) -> None:
        """A new branch, whose last `prune-stats` entry holds `stats` (None: none)."""
        self.current = self.saved = stats or PruneStats()

    def add_spent(self, spent: Iterable[Usage]) -> None:
        """Count the summarizer replies' usage."""
        for usage in spent:
            self.current = add_usage(self.current, usage)

    def change(self, **fields: int) -> None:
        self.current = msgspec.structs.replace(self.current, **fields)

    def save(self, journal: Journal, ctx: ExtensionContext) -> None:
        """Write the stats when they changed, once the pruner has written anything else (a
        session the pruner never changed stays as it was)."""
        if not journal.written or self.current == self.saved:
            return
        data = msgspec.to_builtins(self.current)
        if journal.write(STATS_TYPE, data, ctx, "cannot record the pruner's stats"):
            self.saved = self.current
