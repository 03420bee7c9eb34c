"""Applying compressed chains to the outgoing messages (docs/pruning.md). Pure.

For each `prune-chain` entry, in order:

- **Positional resolution, fail-closed.** Exactly one (non-synthetic) user message at the
  start timestamp and exactly one *assistant* message at the final timestamp (a tool result
  sharing that timestamp does not count), the start before the end; otherwise nothing is
  dropped and an `unresolved-range` diagnostic is returned. A range that overlaps one already
  applied is skipped (`overlap`).
- Strictly inside the range only assistant messages, tool results and per-batch summaries
  (`prune-summary`) are dropped; user messages and other extensions' messages stay. Dropping
  is positional: a later turn that reuses a dropped tool-call id is not touched.
- A `<compressed-chain id="bN" tools="t3,t4">` user message goes right after the start
  message, holding the entry's body and then, in message order, every protected result of the
  range moved there verbatim as `<protected-output tool="NAME">`. Already there (a list that
  was compressed before): not inserted twice.
- The final assistant loses its thinking blocks (`stripFinalAssistantThinking`), unless that
  would leave it empty.
- A per-batch summary outside every range whose refs name a dropped result is dropped too.

Nothing to do: the very same list comes back, so the prompt cache is untouched.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import msgspec

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    CustomMessage,
    TextContent,
    ThinkingContent,
    ToolResultMessage,
    UserMessage,
    content_text,
)
from pith.ext.prune._records import SUMMARY_TYPE, ChainEntry, occurrence_key
from pith.ext.prune.chains._detect import is_synthetic, user_text

__all__ = ["ChainRender", "apply_chains", "resolve_range", "summary_keys", "synthetic_text"]

_BLOCK_ID = re.compile(r'<compressed-chain id="([^"]*)"')


@dataclass
class ChainRender:
    messages: list[AgentMessage]
    diagnostics: list[tuple[str, str]] = field(default_factory=list)
    """(kind, detail) for each entry skipped or not matching what the range holds."""
    applied: int = 0
    """Entries whose range was found (and inserted or already present)."""


def summary_keys(message: CustomMessage) -> set[str]:
    """The occurrence keys a `prune-summary` message's `details.toolCallRefs` name."""
    details = message.details
    refs = details.get("toolCallRefs") if isinstance(details, dict) else None
    keys: set[str] = set()
    for ref in refs if isinstance(refs, list) else []:
        if not isinstance(ref, dict):
            continue
        call_id, stamp = ref.get("toolCallId"), ref.get("resultTimestamp")
        if isinstance(call_id, str) and isinstance(stamp, int | float):
            keys.add(occurrence_key(call_id, stamp))
    return keys


def _is_summary(message: AgentMessage) -> bool:
    return isinstance(message, CustomMessage) and message.custom_type == SUMMARY_TYPE


def _result_text(message: ToolResultMessage) -> str:
    return content_text(message.content)


def synthetic_text(entry: ChainEntry, protected: Sequence[tuple[str, str]] = ()) -> str:
    """The `<compressed-chain>` message text for `entry`, with the protected outputs
    (tool name, verbatim text) appended inside it in order."""
    parts = [f'<compressed-chain id="{entry.block_id}" tools="{",".join(entry.tool_refs)}">']
    parts.append(entry.body)
    for name, text in protected:
        parts.append(f'<protected-output tool="{name}">\n{text}\n</protected-output>')
    parts.append("</compressed-chain>")
    return "\n".join(parts)


def resolve_range(
    messages: Sequence[AgentMessage],
    start_timestamp: int | float,
    final_timestamp: int | float | None,
) -> tuple[int, int] | None:
    """(start, end) positions of a chain's start user message and final assistant message,
    or None unless each is unique and the start comes first."""
    if final_timestamp is None:
        return None
    starts = [
        n
        for n, m in enumerate(messages)
        if isinstance(m, UserMessage) and m.timestamp == start_timestamp and not is_synthetic(m)
    ]
    ends = [
        n
        for n, m in enumerate(messages)
        if isinstance(m, AssistantMessage) and m.timestamp == final_timestamp
    ]
    if len(starts) != 1 or len(ends) != 1 or ends[0] <= starts[0]:
        return None
    return starts[0], ends[0]


def _positions(
    messages: Sequence[AgentMessage],
) -> tuple[dict[int | float, list[int]], dict[int | float, list[int]], set[str]]:
    """One pass: user timestamps and assistant timestamps -> positions; the block ids of the
    synthetic messages present."""
    users: dict[int | float, list[int]] = {}
    assistants: dict[int | float, list[int]] = {}
    present: set[str] = set()
    for n, message in enumerate(messages):
        if isinstance(message, UserMessage):
            if is_synthetic(message):
                found = _BLOCK_ID.match(user_text(message))
                if found:
                    present.add(found.group(1))
            else:
                users.setdefault(message.timestamp, []).append(n)
        elif isinstance(message, AssistantMessage):
            assistants.setdefault(message.timestamp, []).append(n)
    return users, assistants, present


def _stripped(message: AssistantMessage) -> AssistantMessage | None:
    kept = [b for b in message.content if not isinstance(b, ThinkingContent)]
    if len(kept) == len(message.content) or not kept:
        return None
    return msgspec.structs.replace(message, content=kept)


def apply_chains(
    messages: list[AgentMessage], chains: Sequence[ChainEntry], strip_thinking: bool = True
) -> ChainRender:
    """`messages` with every resolvable chain compressed (see the module docstring)."""
    if not chains:
        return ChainRender(messages)
    users, assistants, present = _positions(messages)
    out = ChainRender(messages)
    ranges: list[tuple[int, int, ChainEntry]] = []
    for entry in chains:
        starts = users.get(entry.start_user_timestamp, [])
        ends = (
            assistants.get(entry.final_assistant_timestamp, [])
            if entry.final_assistant_timestamp is not None
            else []
        )
        if len(starts) != 1 or len(ends) != 1 or ends[0] <= starts[0]:
            out.diagnostics.append(
                ("unresolved-range", f"{entry.block_id}: start or final message not found once")
            )
            continue
        start, end = starts[0], ends[0]
        if any(start < other_end and other_start < end for other_start, other_end, _ in ranges):
            out.diagnostics.append(("overlap", f"{entry.block_id}: overlaps another chain"))
            continue
        ranges.append((start, end, entry))
    out.applied = len(ranges)
    if not ranges:
        return out
    drop: set[int] = set()
    inserts: dict[int, AgentMessage] = {}
    replace: dict[int, AgentMessage] = {}
    dropped_keys: set[str] = set()
    for start, end, entry in ranges:
        expected = set(entry.dropped_occurrence_keys)
        protected_keys = set(entry.protected_occurrence_keys)
        dropped_keys |= expected
        relocated: list[tuple[str, str]] = []
        for position in range(start + 1, end):
            message = messages[position]
            if isinstance(message, ToolResultMessage):
                key = occurrence_key(message.tool_call_id, message.timestamp)
                if key in protected_keys:
                    relocated.append((message.tool_name, _result_text(message)))
                elif key not in expected:
                    out.diagnostics.append(
                        ("range-id-mismatch", f"{entry.block_id}: {key} was not in the chain")
                    )
                drop.add(position)
            elif isinstance(message, AssistantMessage) or _is_summary(message):
                drop.add(position)
        if entry.block_id not in present:
            text = synthetic_text(entry, relocated)
            inserts[start] = UserMessage(
                content=[TextContent(text=text)], timestamp=entry.compressed_at
            )
        final = messages[end]
        if strip_thinking and isinstance(final, AssistantMessage):
            stripped = _stripped(final)
            if stripped is not None:
                replace[end] = stripped
    for position, message in enumerate(messages):
        if position not in drop and _is_summary(message):
            assert isinstance(message, CustomMessage)
            if summary_keys(message) & dropped_keys:
                drop.add(position)
    if not drop and not inserts and not replace:
        return out
    result: list[AgentMessage] = []
    for position, message in enumerate(messages):
        if position not in drop:
            result.append(replace.get(position, message))
        if position in inserts:
            result.append(inserts[position])
    out.messages = result
    return out
