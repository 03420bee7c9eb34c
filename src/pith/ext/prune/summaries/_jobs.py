"""The `summarize` strategy's pure half: which batches to summarize, what the summarizer
reads, what its reply becomes, and the stub a summarized result reads as.

When: a batch is summarized when it becomes prunable — when the next user
prompt moves the keep-recent boundary past it (`before_agent_start`). That is the moment the
mask strategy would stub it, so the prompt prefix changes once per task, never mid-task; the
summary is recorded just before the new prompt, after the task it describes.

Batching (`batchingMode`): `turn` asks one summary per assistant turn's batch;
`agent-message` one per user turn — every batch from a prompt to its final reply together.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pith.ai import AgentMessage, TextContent, ToolResultMessage, UserMessage
from pith.ext.prune._config import PruneConfig
from pith.ext.prune._index import PruneIndex
from pith.ext.prune._protect import is_protected
from pith.ext.prune._records import ToolCallRecord, occurrence_key
from pith.ext.prune._render import boundary
from pith.ext.prune._stub import QUERY_TOOL

__all__ = [
    "INPUT_CAP",
    "SUMMARY_HEADER",
    "SUMMARY_SYSTEM_PROMPT",
    "SummaryJob",
    "finish_summary",
    "merge_spans",
    "plan_jobs",
    "serialize_batch",
]

INPUT_CAP = 2000
"""Characters of one result the summarizer reads; the rest is cut with a note."""

SUMMARY_SYSTEM_PROMPT = """You condense the tool results of a coding agent's finished work \
so the agent can keep working without the full outputs in its context.

You get one batch of tool calls. Each call is headed by its reference (t1, t2, ...), the tool \
and its arguments, and whether it succeeded, followed by what it returned (long outputs are \
cut).

Write, for each call, one to three short bullets. Start the call's first bullet with its \
reference exactly as given, then a colon (for example "- t4: ..."). Say what the call showed \
or did, keeping facts the agent may need later exactly as they appear: file paths, names of \
functions, classes and variables, signatures, commands, error messages, exit codes, line \
numbers, versions and other numbers. A call that succeeded and showed nothing worth keeping \
gets a single short bullet. Do not invent references, do not speculate, do not give advice, \
and do not address anyone: write only the bullets."""

SUMMARY_HEADER = (
    "[Context pruner note, not a message from the user: a summary of earlier tool results "
    "that were removed from the context to save space. No reply is needed.]"
)


@dataclass(frozen=True)
class SummaryJob:
    """One batch to summarize: its records (with refs) and their raw outputs."""

    keys: tuple[str, ...]
    records: tuple[ToolCallRecord, ...]
    refs: tuple[str, ...]
    texts: tuple[str, ...]

    @property
    def raw_chars(self) -> int:
        return sum(len(text) for text in self.texts)


def plan_jobs(
    messages: Sequence[AgentMessage],
    index: PruneIndex,
    config: PruneConfig,
    cwd: str = "",
) -> list[SummaryJob]:
    """The batches a new user prompt after `messages` makes prunable and that have no
    decision yet, or none when together they would free fewer than `minGainTokens`.

    Left out: records protected now, spilled records (their stub already holds a preview),
    recovery-tool outputs (they have their grace period), and results no longer on the branch.
    """
    ahead = [*messages, UserMessage(content="")]  # where the boundary will be
    end = boundary(ahead, config.keep_recent_turns)
    texts: dict[str, str] = {}
    span: dict[str, int] = {}  # occurrence key -> the user turn it belongs to
    users = 0
    for message in ahead[:end]:
        if isinstance(message, UserMessage):
            users += 1
        elif isinstance(message, ToolResultMessage):
            span[occurrence_key(message.tool_call_id, message.timestamp)] = users
            key = occurrence_key(message.tool_call_id, message.timestamp)
            if key in index.records and key not in index.decisions and key not in index.compressed:
                texts[key] = "".join(
                    block.text for block in message.content if isinstance(block, TextContent)
                )
    jobs: list[SummaryJob] = []
    for batch in index.batches:
        chosen = [
            key
            for key in batch
            if key in texts
            and index.records[key].spill_path is None
            and index.records[key].tool_name != QUERY_TOOL
            and not is_protected(index.records[key].tool_name, index.records[key].args, config, cwd)
        ]
        if chosen:
            jobs.append(
                SummaryJob(
                    tuple(chosen),
                    tuple(index.records[key] for key in chosen),
                    tuple(index.refs[key] for key in chosen),
                    tuple(texts[key] for key in chosen),
                )
            )
    if sum(job.raw_chars for job in jobs) // 4 < max(config.min_gain_tokens, 1):
        return []
    if config.batching_mode == "agent-message":
        return merge_spans(jobs, span)
    return jobs


def merge_spans(jobs: Sequence[SummaryJob], span: Mapping[str, int]) -> list[SummaryJob]:
    """`batchingMode: agent-message`: the jobs of one user turn (prompt to final reply) merged
    into one, in order."""
    merged: list[SummaryJob] = []
    last: int | None = None
    for job in jobs:
        here = span.get(job.keys[0])
        if merged and here is not None and here == last:
            head = merged[-1]
            merged[-1] = SummaryJob(
                head.keys + job.keys,
                head.records + job.records,
                head.refs + job.refs,
                head.texts + job.texts,
            )
        else:
            merged.append(job)
        last = here
    return merged


def _cut(text: str) -> str:
    if len(text) <= INPUT_CAP:
        return text
    return f"{text[:INPUT_CAP]} …[{len(text) - INPUT_CAP} more characters not shown]"


def serialize_batch(job: SummaryJob) -> str:
    """The summarizer's input: one block per call, results cut to `INPUT_CAP` characters."""
    blocks = []
    for record, ref, text in zip(job.records, job.refs, job.texts, strict=True):
        args = json.dumps(record.args, ensure_ascii=False, indent=2, sort_keys=True)
        status = "error" if record.is_error else "ok"
        blocks.append(f"{ref}: {record.tool_name}({args}) [{status}]\n{_cut(text)}")
    return "<tool-call-batch>\n" + "\n\n---\n\n".join(blocks) + "\n</tool-call-batch>"


def finish_summary(reply: str, refs: Sequence[str]) -> str | None:
    """The summary message's text from the summarizer's reply: the header, the bullets, and
    a footer naming the refs; None when the reply is blank."""
    body = reply.strip()
    if not body:
        return None
    listed = ", ".join(refs)
    first = refs[0] if refs else "t1"
    footer = f'Refs: {listed}. {QUERY_TOOL}(["{first}", ...]) returns a result\'s full output.'
    return f"{SUMMARY_HEADER}\n\n{body}\n\n{footer}"
