"""What the pruner persists: custom entries in the session (never sent to the model).

| `customType` | `data` |
|---|---|
| `prune-index` | `{"assistantTimestamp": ms, "toolCalls": [ToolCallRecord]}`: one indexed batch |
| `prune-dedup-alias` | `DedupAlias`: a re-read whose output equals an indexed record's |
| `prune-frontier` | `Frontier`: the last call of a batch that was attempted and skipped |
| `prune-summary-outcome` | `SummaryOutcome`: a batch `summarize` masked or kept raw |
| `prune-chain` | `ChainEntry`: a closed user→final-reply chain compressed into one message |
| `prune-diagnostic` | `Diagnostic`: something the render skipped (observability only) |

(masked: the summarizer failed; kept raw: the summary was longer than the results.)
And one custom **message** (`custom_message` entry, `display: false`, sent to the model as user
text, never steering): `prune-summary`, whose content is a batch's summary and whose `details`
are `SummaryDetails` (`{"toolCallRefs": [{"shortId", "toolCallId", "resultTimestamp"}],
"toolNames": [...], "model": "provider/id"}`).

A `ToolCallRecord` is `{"toolCallId", "toolName", "args", "isError", "resultTimestamp",
"resultBytes", "resultLines", "contentHash"}` plus, for a spilled result, `"spillPath"`,
`"spillBytes"` and `"resultPreview"`. The raw text is **not** copied into the entry: the
session's own `toolResult` message (or the spill file) is the cold copy, so indexing never
doubles the file. Short refs `t1`, `t2`, … are not stored either: they are the records' order
on the branch, so rebuilding from the entries gives the same refs every time. An index entry
with `"backfilled": true` was written by chain compression for calls no batch had captured
(too small, say): it never moves the frontier and never seeds dedup.
"""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = [
    "ALIAS_TYPE",
    "CHAIN_TYPE",
    "DIAGNOSTIC_TYPE",
    "FRONTIER_TYPE",
    "INDEX_TYPE",
    "OUTCOME_TYPE",
    "SUMMARY_TYPE",
    "BodySource",
    "ChainEntry",
    "DedupAlias",
    "Diagnostic",
    "Frontier",
    "IndexEntry",
    "Outcome",
    "SummaryDetails",
    "SummaryOutcome",
    "SummaryRef",
    "ToolCallRecord",
    "occurrence_key",
]

INDEX_TYPE = "prune-index"
ALIAS_TYPE = "prune-dedup-alias"
FRONTIER_TYPE = "prune-frontier"
SUMMARY_TYPE = "prune-summary"
OUTCOME_TYPE = "prune-summary-outcome"
CHAIN_TYPE = "prune-chain"
DIAGNOSTIC_TYPE = "prune-diagnostic"

Outcome = Literal["indexed", "skipped-trivial", "skipped-deduped"]


class _Entry(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    pass


class ToolCallRecord(_Entry):
    tool_call_id: str
    tool_name: str
    args: dict[str, object]
    is_error: bool
    result_timestamp: int | float
    result_bytes: int
    result_lines: int
    content_hash: str
    spill_path: str | None = None
    spill_bytes: int | None = None
    result_preview: str | None = None

    @property
    def key(self) -> str:
        return occurrence_key(self.tool_call_id, self.result_timestamp)


class IndexEntry(_Entry):
    assistant_timestamp: int | float
    """The timestamp of the assistant message that made the calls (the same whether the batch
    was captured live or by a rescan)."""
    tool_calls: list[ToolCallRecord]
    backfilled: bool = False


class DedupAlias(_Entry):
    tool_call_id: str
    result_timestamp: int | float
    tool_name: str
    args: dict[str, object]
    original_tool_call_id: str
    original_result_timestamp: int | float
    content_hash: str

    @property
    def key(self) -> str:
        return occurrence_key(self.tool_call_id, self.result_timestamp)

    @property
    def original_key(self) -> str:
        return occurrence_key(self.original_tool_call_id, self.original_result_timestamp)


class Frontier(_Entry):
    last_tool_call_id: str
    last_result_timestamp: int | float
    outcome: Outcome

    @property
    def key(self) -> str:
        return occurrence_key(self.last_tool_call_id, self.last_result_timestamp)


class SummaryRef(_Entry):
    short_id: str
    tool_call_id: str
    result_timestamp: int | float

    @property
    def key(self) -> str:
        return occurrence_key(self.tool_call_id, self.result_timestamp)


class SummaryDetails(_Entry):
    tool_call_refs: list[SummaryRef]
    tool_names: list[str]
    model: str = ""


class SummaryOutcome(_Entry):
    keys: list[str]
    """The occurrence keys of the batch."""
    outcome: Literal["masked", "kept-raw"]
    reason: str = ""


BodySource = Literal["fused", "summary", "summaries", "deterministic"]


class ChainEntry(_Entry, kw_only=True):
    """One compressed chain: the messages strictly between its start user message and its
    final assistant message are dropped at render time, and a `<compressed-chain>` user
    message carrying `body` (and the protected outputs, pulled live) goes after the start."""

    block_id: str
    """`b1`, `b2`, … in the order chains were compressed on the branch."""
    start_user_timestamp: int | float
    final_assistant_timestamp: int | float | None
    dropped_tool_call_ids: list[str]
    dropped_occurrence_keys: list[str]
    protected_occurrence_keys: list[str] = []
    """Results relocated verbatim as `<protected-output>` (frozen at compression time)."""
    tool_refs: list[str] = []
    compressed_at: int | float
    body: str
    body_source: BodySource


class Diagnostic(_Entry):
    kind: Literal["unresolved-range", "range-id-mismatch", "overlap", "orphan-sweep"]
    detail: str


def occurrence_key(tool_call_id: str, timestamp: int | float) -> str:
    """`id@timestamp`: one result of a call (providers reuse ids such as `bash_23`)."""
    stamp = int(timestamp) if float(timestamp).is_integer() else timestamp
    return f"{tool_call_id}@{stamp}"
