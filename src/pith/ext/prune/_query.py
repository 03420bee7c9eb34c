"""The recovery tool `context_tree_query`: raw outputs back by ref or raw id. Formatting is
pure; reading the raw text (spill file, then the session's own message) is passed in."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from pith.ext.prune._index import PruneIndex
from pith.ext.prune._records import ToolCallRecord
from pith.ext.prune._stub import QUERY_TOOL
from pith.tools import truncate_head

__all__ = ["QUERY_DESCRIPTION", "QUERY_PARAMETERS", "check_ids", "format_query", "resolve_keys"]

QUERY_DESCRIPTION = (
    "Get back the full original output of tool calls the context pruner replaced by a "
    '`[pruned tN: …]` stub. Pass the refs (e.g. ["t3", "t12"]) or raw tool call ids.'
)
QUERY_PARAMETERS: dict[str, object] = {
    "type": "object",
    "properties": {
        "toolCallIds": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Short refs like t12 (from a pruned stub) or raw tool call ids",
        }
    },
    "required": ["toolCallIds"],
}
NOT_FOUND = (
    "(not found in the pruner's index — it may not have been pruned yet, in which case its "
    "output is still in the context above)"
)

ReadRaw = Callable[[ToolCallRecord], str | None]


def resolve_keys(index: PruneIndex, wanted: str) -> list[str]:
    """The occurrence keys `wanted` names: a ref, an `id@timestamp` key or a raw id (every
    occurrence of a reused id, oldest result first)."""
    if wanted in index.by_ref:
        return [index.by_ref[wanted]]
    if index.knows(wanted):
        return [wanted]
    return list(index.by_id.get(wanted, []))


def _block(index: PruneIndex, key: str, label: str, read_raw: ReadRaw) -> str:
    found = index.resolve(key)
    if found is None:
        return f"## toolRef: {label}\n{NOT_FOUND}"
    record, ref = found
    alias = index.aliases.get(key)
    name, args = (alias.tool_name, alias.args) if alias else (record.tool_name, record.args)
    body = read_raw(record)
    note = ""
    if body is None:
        body = record.result_preview or ""
        note = "\n[The raw output is gone (spill file missing); this is its preview.]"
    cut = truncate_head(body)
    text = cut.content
    if cut.truncated:
        text += (
            f"\n\n[Output truncated: {cut.output_lines}/{cut.total_lines} lines shown; "
            f"full output in {record.spill_path}]"
            if record.spill_path
            else f"\n\n[Output truncated: {cut.output_lines}/{cut.total_lines} lines shown]"
        )
    header = [
        f"## toolRef: {label}" + (f" ({ref})" if label != ref else ""),
        f"Tool: {name}",
        f"Args: {json.dumps(args, ensure_ascii=False, indent=2)}",
        f"Status: {'ERROR' if record.is_error else 'OK'}",
    ]
    return "\n".join(header) + "\n\n" + text + note


def format_query(index: PruneIndex, wanted: Sequence[str], read_raw: ReadRaw) -> str:
    """One `## toolRef:` block per id (a reused raw id gives one per occurrence, labelled
    `id@timestamp`), joined by `---`. Bodies are capped like `read` (2000 lines / 50KB)."""
    blocks: list[str] = []
    for item in wanted:
        keys = resolve_keys(index, item)
        if not keys:
            blocks.append(f"## toolRef: {item}\n{NOT_FOUND}")
            continue
        for key in keys:
            label = key if len(keys) > 1 else item
            blocks.append(_block(index, key, label, read_raw))
    return "\n\n---\n\n".join(blocks)


def check_ids(args: dict[str, object]) -> list[str] | str:
    """The ids from the tool's arguments, or a message saying what is wrong."""
    ids = args.get("toolCallIds")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
        return (
            f"{QUERY_TOOL}: toolCallIds must be a non-empty list of strings such as "
            f'["t3"]; got {ids!r}'
        )
    return [str(i) for i in ids]
