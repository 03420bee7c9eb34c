"""The context pruner: finished tool-call batches leave the outgoing context as short stubs,
the raw outputs stay recoverable, protected content stays verbatim (docs/pruning.md;
strategies `summarize` and `mask`).

The core, flat: protection (`_protect`, with `pith.glob`'s segment glob), settings (`_config`, the
settings in force `_settings`), persisted entries (`_records`), the index (`_index`), capture
(`_capture`, written down by `_indexer`), what is written when (`_journal`), spill files
(`_spill`), stubs (`_stub`), render-time masking (`_render`), error purge (`_purge`), the
orphan sweep (`_sweep`), budget triggers (`_budget`, `_budget_watch`), the recovery tool
(`_query`, raw outputs read back by `_recover`), running totals (`_stats`), the footer status
(`_status`).

Subpackages, each used through its `__init__`: `summaries` (the `summarize` strategy),
`chains` (chain compression), `commands` (`/pruner`). `_extension` wires them to pith.
"""

from pith.ext.prune._config import ALWAYS_PROTECTED, PruneConfig, read_config
from pith.ext.prune._extension import register
from pith.ext.prune._protect import is_protected
from pith.ext.prune._stub import mask_stub, summary_stub
from pith.ext.prune.summaries import SUMMARY_SYSTEM_PROMPT

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
