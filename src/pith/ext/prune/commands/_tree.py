"""`/pruner tree`: the indexed calls as text, one block per batch. Pure.

Each call reads `t3  read(path="app.py")  6.6KB  masked`; the state is `in b2` when a
compressed chain dropped it, else `protected` when the call's tool or path is protected now,
else the `summarize` decision (`summarized`, `masked`, `raw` for a batch kept raw), else
`masked` when the context stubs it now (`stubbed`, from `PrunerControl.view`), else `raw`.
"""

from __future__ import annotations

from collections.abc import Collection

from pith.ext.prune._config import PruneConfig
from pith.ext.prune._index import PruneIndex
from pith.ext.prune._protect import is_protected
from pith.ext.prune._stub import compact_args
from pith.tools import format_size

__all__ = ["call_state", "format_tree"]


def call_state(
    index: PruneIndex, key: str, config: PruneConfig, cwd: str, stubbed: Collection[str]
) -> str:
    """`in bN` (inside a compressed chain), `protected`, `summarized`, `masked` or `raw`: what
    the record `key` is now."""
    record = index.records[key]
    if key in index.compressed:
        return f"in {index.compressed[key]}"
    if is_protected(record.tool_name, record.args, config, cwd):
        return "protected"
    decision = index.decisions.get(key)
    if decision == "kept-raw":
        return "raw"
    if decision is not None:
        return decision
    return "masked" if key in stubbed else "raw"


def format_tree(
    index: PruneIndex, config: PruneConfig, cwd: str = "", stubbed: Collection[str] = ()
) -> str:
    """The listing, or a line saying nothing is indexed."""
    if not index.batches:
        return "nothing indexed yet"
    lines: list[str] = []
    for number, keys in enumerate(index.batches, start=1):
        lines.append(f"batch {number} ({len(keys)} calls)")
        for key in keys:
            record = index.records[key]
            state = call_state(index, key, config, cwd, stubbed)
            call = f"{record.tool_name}({compact_args(record.args)})"
            lines.append(
                f"  {index.refs[key]}  {call}  {format_size(record.result_bytes)}  {state}"
            )
    aliases = len(index.aliases)
    if aliases:
        lines.append(f"{aliases} identical re-reads point at the calls above")
    return "\n".join(lines)
