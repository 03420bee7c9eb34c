"""Compressing chains (docs/pruning.md): writing the `prune-chain` entries `_chain_plan` decides on.

Runs before a new prompt (after that prompt's summaries, if any), after `/pruner now`, and for
`/pruner compact` with K = 0. For each chain, in order:

1. the calls no batch captured are indexed first, in one `prune-index` entry with
   `"backfilled": true` (spill files written before it), so every dropped output keeps a ref;
2. the body: the fused summary (one summarizer call, when two or more distinct per-batch
   summaries cover the chain and `fuseRangeSummary` is on), else the summaries' bullets, else
   the deterministic body (`_chain_body`), plus a deterministic line for the calls no summary
   covers;
3. the `prune-chain` entry.

A chain whose entries cannot be written is skipped with a warning and nothing half-written is
used: a backfill without its chain leaves plain records, which render as stubs like any other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from pith.ai import UserMessage, now_ms
from pith.errors import PithError
from pith.ext.prune._chain_body import (
    RANGE_SYSTEM_PROMPT,
    ChainCall,
    deterministic_body,
    join_summaries,
    serialize_range,
)
from pith.ext.prune._chain_plan import ChainPlan, plan_chains
from pith.ext.prune._records import CHAIN_TYPE, INDEX_TYPE, BodySource, ChainEntry, IndexEntry
from pith.ext.prune._render import render
from pith.ext.prune._spill import make_record
from pith.ext.prune._stats import add_usage
from pith.extensions import ExtensionContext

if TYPE_CHECKING:
    from pith.ext.prune._extension import Pruner

__all__ = ["compress_chains"]


def _calls(pruner: Pruner, keys: list[str]) -> list[ChainCall]:
    calls: list[ChainCall] = []
    for key in keys:
        found = pruner.index.resolve(key)
        if found is None:
            continue
        record, ref = found
        alias = pruner.index.aliases.get(key)
        name, args = (alias.tool_name, alias.args) if alias else (record.tool_name, record.args)
        calls.append(ChainCall(ref, name, args, record.is_error))
    return calls


async def _body(
    pruner: Pruner, plan: ChainPlan, calls: list[ChainCall], keys: list[str], ctx: ExtensionContext
) -> tuple[str, BodySource]:
    chain = plan.chain
    assert chain.final_timestamp is not None
    span = chain.final_timestamp - chain.start_timestamp
    if not plan.summaries:
        return deterministic_body(calls, span), "deterministic"
    joined = join_summaries(plan.summaries)
    body, source = joined, "summary" if len(plan.summaries) == 1 else "summaries"
    config = pruner.config
    if len(plan.summaries) >= 2 and config.chain_fuse and pruner.strategy(ctx) == "summarize":
        text, why = await pruner.summaries.ask_text(
            RANGE_SYSTEM_PROMPT, serialize_range(plan.request, plan.summaries), config, ctx
        )
        for usage in pruner.summaries.take_spent():
            pruner.stats = add_usage(pruner.stats, usage)
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


async def _compress(pruner: Pruner, plan: ChainPlan, ctx: ExtensionContext) -> bool:
    chain = plan.chain
    config, index = pruner.config, pruner.index
    if plan.backfill:
        records = [make_record(call, config, ctx) for call in plan.backfill]
        entry = IndexEntry(
            assistant_timestamp=chain.final_timestamp or chain.start_timestamp,
            tool_calls=records,
            backfilled=True,
        )
        if not _append(pruner, INDEX_TYPE, entry, ctx):
            return False
        index.add_batch(entry)
    protected = set(chain.protected_keys)
    keys = [key for key in chain.keys if key not in protected and index.resolve(key) is not None]
    calls = _calls(pruner, keys)
    body, source = await _body(pruner, plan, calls, keys, ctx)
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
    if not _append(pruner, CHAIN_TYPE, chain_entry, ctx):
        return False
    index.add_chain(chain_entry)
    pruner.stats = msgspec.structs.replace(
        pruner.stats,
        chains_compressed=pruner.stats.chains_compressed + 1,
        ranges_summarized=pruner.stats.ranges_summarized + (source == "fused"),
    )
    return True


async def compress_chains(
    pruner: Pruner, ctx: ExtensionContext, window: int, *, force: bool = False
) -> int:
    """Compress the chains older than the newest `window` (0: all); returns how many."""
    store = ctx.session
    if store is None:
        return 0
    messages = store.projection().messages
    ahead = [*messages, UserMessage(content="")]  # where the next request's boundary will be
    rendered, _ = render(ahead, pruner.index, pruner.config, ctx.cwd, pruner.strategy(ctx))
    plans = plan_chains(
        messages, rendered[:-1], pruner.index, pruner.config, ctx.cwd, window, force
    )
    if not plans:
        return 0
    pruner.flush(ctx)  # the records (and their refs) before the chains that name them
    done = 0
    for plan in plans:
        done += await _compress(pruner, plan, ctx)
    pruner.save_stats(ctx)
    return done


def _append(pruner: Pruner, custom_type: str, data: object, ctx: ExtensionContext) -> bool:
    """Write one entry of the compression; False (with a warning) when the session refused."""
    try:
        pruner.api.append_entry(custom_type, msgspec.to_builtins(data))
    except PithError as error:
        ctx.ui.notify(f"cannot compress a chain: {error}", "warning")
        return False
    pruner.written = True
    return True
