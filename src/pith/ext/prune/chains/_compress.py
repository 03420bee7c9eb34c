"""Compressing chains (docs/pruning.md): writing the `prune-chain` entries `_plan` decides on.

Runs before a new prompt (after that prompt's summaries, if any), after `/pruner now`, and for
`/pruner compact` with K = 0. For each chain, in order:

1. the calls no batch captured are indexed first, in one `prune-index` entry with
   `"backfilled": true` (spill files written before it), so every dropped output keeps a ref;
2. the body: the fused summary (one summarizer call, when two or more distinct per-batch
   summaries cover the chain and `fuseRangeSummary` is on), else the summaries' bullets, else
   the deterministic body (`_body`), plus a deterministic line for the calls no summary
   covers;
3. the `prune-chain` entry.

A chain whose entries cannot be written is skipped with a warning and nothing half-written is
used: a backfill without its chain leaves plain records, which render as stubs like any other.
"""

from __future__ import annotations

import msgspec

from pith.ai import UserMessage, now_ms
from pith.ext.prune._index import PruneIndex
from pith.ext.prune._journal import Journal
from pith.ext.prune._records import CHAIN_TYPE, INDEX_TYPE, BodySource, ChainEntry, IndexEntry
from pith.ext.prune._render import render
from pith.ext.prune._settings import PrunerSettings
from pith.ext.prune._spill import make_record
from pith.ext.prune._stats import Tally
from pith.ext.prune.chains._body import (
    RANGE_SYSTEM_PROMPT,
    ChainCall,
    deterministic_body,
    join_summaries,
    serialize_range,
)
from pith.ext.prune.chains._plan import ChainPlan, plan_chains
from pith.ext.prune.summaries import Summaries
from pith.extensions import ExtensionContext

__all__ = ["ChainCompressor"]


def _calls(index: PruneIndex, keys: list[str]) -> list[ChainCall]:
    calls: list[ChainCall] = []
    for key in keys:
        found = index.resolve(key)
        if found is None:
            continue
        record, ref = found
        alias = index.aliases.get(key)
        name, args = (alias.tool_name, alias.args) if alias else (record.tool_name, record.args)
        calls.append(ChainCall(ref, name, args, record.is_error))
    return calls


class ChainCompressor:
    def __init__(
        self, settings: PrunerSettings, summaries: Summaries, tally: Tally, journal: Journal
    ) -> None:
        self._settings = settings
        self._summaries = summaries
        self._tally = tally
        self._journal = journal

    async def compress(
        self, index: PruneIndex, ctx: ExtensionContext, window: int, *, force: bool = False
    ) -> int:
        """Compress the chains older than the newest `window` (0: all); returns how many."""
        store = ctx.session
        if store is None:
            return 0
        config, strategy = self._settings.config, self._settings.strategy(ctx)
        messages = store.projection().messages
        ahead = [*messages, UserMessage(content="")]  # where the next request's boundary will be
        rendered, _ = render(ahead, index, config, ctx.cwd, strategy)
        plans = plan_chains(messages, rendered[:-1], index, config, ctx.cwd, window, force)
        if not plans:
            return 0
        self._journal.flush(ctx)  # the records (and their refs) before the chains that name them
        done = 0
        for plan in plans:
            done += await self._compress(index, plan, ctx)
        self._tally.save(self._journal, ctx)
        return done

    async def _compress(self, index: PruneIndex, plan: ChainPlan, ctx: ExtensionContext) -> bool:
        chain = plan.chain
        if plan.backfill:
            records = [make_record(call, self._settings.config, ctx) for call in plan.backfill]
            entry = IndexEntry(
                assistant_timestamp=chain.final_timestamp or chain.start_timestamp,
                tool_calls=records,
                backfilled=True,
            )
            if not self._write(INDEX_TYPE, entry, ctx):
                return False
            index.add_batch(entry)
        protected = set(chain.protected_keys)
        keys = [
            key for key in chain.keys if key not in protected and index.resolve(key) is not None
        ]
        calls = _calls(index, keys)
        body, source = await self._body(plan, calls, keys, ctx)
        refs = list(dict.fromkeys(call.ref for call in calls))
        chain_entry = ChainEntry(
            block_id=index.next_block_id(),
            start_user_timestamp=chain.start_timestamp,
            final_assistant_timestamp=chain.final_timestamp,
            dropped_tool_call_ids=list(chain.call_ids),
            dropped_occurrence_keys=list(chain.keys),
            protected_occurrence_keys=list(chain.protected_keys),
            tool_refs=refs,
            compressed_at=now_ms(),
            body=body,
            body_source=source,
        )
        if not self._write(CHAIN_TYPE, chain_entry, ctx):
            return False
        index.add_chain(chain_entry)
        stats = self._tally.current
        self._tally.change(
            chains_compressed=stats.chains_compressed + 1,
            ranges_summarized=stats.ranges_summarized + (source == "fused"),
        )
        return True

    async def _body(
        self, plan: ChainPlan, calls: list[ChainCall], keys: list[str], ctx: ExtensionContext
    ) -> tuple[str, BodySource]:
        chain = plan.chain
        assert chain.final_timestamp is not None
        span = chain.final_timestamp - chain.start_timestamp
        if not plan.summaries:
            return deterministic_body(calls, span), "deterministic"
        joined = join_summaries(plan.summaries)
        body, source = joined, "summary" if len(plan.summaries) == 1 else "summaries"
        config = self._settings.config
        fuse = config.chain_fuse and self._settings.strategy(ctx) == "summarize"
        if len(plan.summaries) >= 2 and fuse:
            text, why = await self._summaries.ask_text(
                RANGE_SYSTEM_PROMPT, serialize_range(plan.request, plan.summaries), config, ctx
            )
            self._tally.add_spent(self._summaries.take_spent())
            if text is None:
                ctx.ui.notify(
                    f"no fused summary for a chain ({why}); its summaries are kept", "warning"
                )
            elif len(text) < len(joined):
                body, source = text, "fused"
        uncovered = [call for call, key in zip(calls, keys, strict=True) if key not in plan.covered]
        if uncovered:
            body += "\nnot in the summaries above: " + deterministic_body(uncovered, None)
        return body, source  # type: ignore[return-value]

    def _write(self, custom_type: str, data: object, ctx: ExtensionContext) -> bool:
        """Write one entry of the compression; False (with a warning) when the session refused."""
        return self._journal.write(
            custom_type, msgspec.to_builtins(data), ctx, "cannot compress a chain"
        )
