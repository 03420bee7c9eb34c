"""The mask stub: what a pruned result reads as. Pure and byte-stable: the same record and
ref always give the same text, so the prompt prefix does not change between requests."""

from __future__ import annotations

import json
from collections.abc import Mapping

from pith.ext.prune._records import ToolCallRecord
from pith.tools import format_size

__all__ = ["QUERY_TOOL", "compact_args", "mask_stub", "summary_stub"]

QUERY_TOOL = "context_tree_query"
_VALUE_CAP = 80
_ARGS_CAP = 200


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def compact_args(args: dict[str, object]) -> str:
    """`path="src/app.py", limit=50`: each value as compact JSON, long ones cut with `…`."""
    parts = []
    for name, value in args.items():
        encoded = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        parts.append(f"{name}={_cap(encoded, _VALUE_CAP)}")
    return _cap(", ".join(parts), _ARGS_CAP)


def mask_stub(
    record: ToolCallRecord,
    ref: str,
    *,
    tool_name: str | None = None,
    args: dict[str, object] | None = None,
) -> str:
    """`[pruned t12: read(path="src/app.py") → 8.1KB, 212 lines, ok. Recover with
    context_tree_query(["t12"])]`. A dedup alias passes its own call's `tool_name` and
    `args` and is said to be identical to `ref`; a spilled record also names its file and
    shows its preview."""
    name = tool_name or record.tool_name
    call = f"{name}({compact_args(args if args is not None else record.args)})"
    status = "error" if record.is_error else "ok"
    lines = "1 line" if record.result_lines == 1 else f"{record.result_lines} lines"
    facts = f"{format_size(record.result_bytes)}, {lines}, {status}"
    recover = f'Recover with {QUERY_TOOL}(["{ref}"])]'
    if tool_name is not None or args is not None:
        return f"[pruned: {call} → {facts}; identical to {ref}. {recover}"
    if record.spill_path is not None:
        head = record.result_preview or ""
        return (
            f"[pruned {ref}: {call} → {facts}; full output in {record.spill_path} "
            f"(read it with offset/limit). First {format_size(len(head.encode()))}:\n"
            f"{head}\n{recover}"
        )
    return f"[pruned {ref}: {call} → {facts}. {recover}"


def summary_stub(
    record: ToolCallRecord, ref: str, *, args: Mapping[str, object] | None = None
) -> str:
    """`[summarized t12: read(path="src/app.py") → 8.1KB, 212 lines, ok; see the pruner
    summary that names t12. Recover with context_tree_query(["t12"])]`. Pure and
    byte-stable."""
    call = f"{record.tool_name}({compact_args(dict(args if args is not None else record.args))})"
    status = "error" if record.is_error else "ok"
    lines = "1 line" if record.result_lines == 1 else f"{record.result_lines} lines"
    return (
        f"[summarized {ref}: {call} → {format_size(record.result_bytes)}, {lines}, {status}; "
        f'see the pruner summary that names {ref}. Recover with {QUERY_TOOL}(["{ref}"])]'
    )
