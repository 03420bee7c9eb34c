"""The context pruner: finished tool-call batches leave the outgoing context as short stubs,
the raw outputs stay recoverable, protected content stays verbatim (docs/pruning.md;
strategies `summarize` and `mask`).

Protection (`_protect`, with `pith.glob`'s segment glob), settings (`_config`), persisted entries
(`_records`), the index (`_index`), capture (`_capture`), spill files (`_spill`), stubs
(`_stub`), render-time masking (`_render`), the recovery tool (`_query`), summaries: what to
summarize and the prompt (`_summary`), the request (`_summarizer`), model choice, fallback and
early requests (`_summaries`), the outage fallback (`_fallback`); chains: detection and
selection (`_chains`), what to compress (`_chain_plan`), bodies (`_chain_body`), writing them
(`_compress`), applying them at render time (`_chain_render`); the orphan sweep (`_sweep`);
raw outputs read back (`_recover`), running totals (`_stats`),
`/pruner` (`_commands`, `_tree`, settings saved by `_settings_file`); wired to pith by
`_extension`.
"""

from pith.ext.prune._config import ALWAYS_PROTECTED, PruneConfig, read_config
from pith.ext.prune._extension import register
from pith.ext.prune._protect import is_protected
from pith.ext.prune._stub import mask_stub, summary_stub
from pith.ext.prune._summary import SUMMARY_SYSTEM_PROMPT

__all__ = [
    "ALWAYS_PROTECTED",
    "SUMMARY_SYSTEM_PROMPT",
    "PruneConfig",
    "is_protected",
    "mask_stub",
    "read_config",
    "register",
    "summary_stub",
]
