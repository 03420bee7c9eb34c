"""What a compressed chain says (docs/pruning.md): the body of its `<compressed-chain>` message.
Pure.

- Two or more distinct per-batch summaries cover the chain and `fuseRangeSummary` is on: one
  summarizer call fuses them (`RANGE_SYSTEM_PROMPT`, input from `serialize_range`).
- One summary: that summary's bullets. Fusion off or failed: the bullets one after another.
- No summary (the `mask` strategy, or every summary failed): a **deterministic** body written
  without any model call (`deterministic_body`): how many calls, which tools how often, how
  long the work took, the first and the last call, and the refs.

Calls of the chain that no summary covers are listed after the summaries the same way, so the
model knows every ref the chain dropped.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from pith.ext.prune._stub import QUERY_TOOL
from pith.ext.prune.summaries import SUMMARY_HEADER

__all__ = [
    "ARGS_CAP",
    "RANGE_SYSTEM_PROMPT",
    "ChainCall",
    "deterministic_body",
    "format_duration",
    "join_summaries",
    "serialize_range",
    "summary_bullets",
]

ARGS_CAP = 200
"""Characters of a call's arguments shown in a deterministic body (then `...`)."""

RANGE_SYSTEM_PROMPT = """You merge the notes a coding agent kept about one finished \
sub-task into a single note, so the agent can keep working without the details.

You get the user's request that started the sub-task and several notes, each about some of \
the tool calls made for it. Write one set of short bullets that keeps every fact the agent \
may need later exactly as written: file paths, names of functions, classes and variables, \
signatures, commands, error messages, exit codes, line numbers, versions and other numbers. \
Merge what the notes repeat, drop what a later note shows to be outdated, and keep the \
references (t12, b3) exactly as they appear, next to the facts they belong to. Do not \
speculate, do not give advice, and do not address anyone: write only the bullets."""


@dataclass(frozen=True)
class ChainCall:
    """One dropped call, as the deterministic body describes it."""

    ref: str
    tool_name: str
    args: dict[str, object]
    is_error: bool = False


def summary_bullets(text: str) -> str:
    """The bullets of a `prune-summary` message (its header and refs footer removed)."""
    body = text.strip()
    if body.startswith(SUMMARY_HEADER):
        body = body[len(SUMMARY_HEADER) :].strip()
    head, sep, last = body.rpartition("\n\n")
    if sep and last.startswith("Refs: ") and f"{QUERY_TOOL}(" in last:
        body = head.strip()
    return body


def join_summaries(summaries: Sequence[str]) -> str:
    """Per-batch summaries (their bullets) one after another."""
    return "\n".join(summary_bullets(text) for text in summaries)


def format_duration(milliseconds: float) -> str:
    """`45s`, `3m 12s`, `2h 5m` (whole seconds; under one second: `<1s`)."""
    seconds = int(max(0.0, milliseconds) // 1000)
    if seconds < 1:
        return "<1s"
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes}m"
    if minutes:
        return f"{minutes}m {seconds}s"
    return f"{seconds}s"


def _call(call: ChainCall) -> str:
    args = json.dumps(call.args, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    if len(args) > ARGS_CAP:
        args = args[:ARGS_CAP] + "..."
    status = " (error)" if call.is_error else ""
    return f"{call.ref} {call.tool_name}({args}){status}"


def deterministic_body(calls: Sequence[ChainCall], span_ms: float | None) -> str:
    """A description of `calls` written without a model: count, tools, span, first and last
    call (arguments cut at `ARGS_CAP` characters plus `...`), refs. Byte-stable."""
    if not calls:
        return ""
    histogram = Counter(call.tool_name for call in calls)
    tools = ", ".join(f"{name} ×{count}" for name, count in sorted(histogram.items()))
    noun = "call" if len(calls) == 1 else "calls"
    span = f" over {format_duration(span_ms)}" if span_ms is not None else ""
    errors = sum(call.is_error for call in calls)
    failed = f", {errors} failed" if errors else ""
    lines = [f"{len(calls)} tool {noun}{span}{failed}: {tools}", f"first: {_call(calls[0])}"]
    if len(calls) > 1:
        lines.append(f"last: {_call(calls[-1])}")
    refs = ", ".join(call.ref for call in calls)
    lines.append(f'refs: {refs} ({QUERY_TOOL}(["{calls[0].ref}", ...]) returns any in full)')
    return "\n".join(lines)


def serialize_range(request: str, summaries: Sequence[str], cap: int = 2000) -> str:
    """The fusion request's input: the user's request (cut at `cap` characters) and the
    per-batch summaries' bullets."""
    asked = request if len(request) <= cap else request[:cap] + " …"
    notes = "\n\n---\n\n".join(summary_bullets(text) for text in summaries)
    return (
        f"<user-request>\n{asked}\n</user-request>\n\n"
        f"<sub-task-summaries>\n{notes}\n</sub-task-summaries>"
    )
