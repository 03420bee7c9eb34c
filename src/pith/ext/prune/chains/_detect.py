"""Chains (docs/pruning.md, "Chain compression"): detection and selection. Pure.

A *chain* is one user message and the work it started: the assistant messages that called
tools and their results (the *middle*), up to the assistant message without tool calls that
answered (the *final*). A new user message before that answer closes the chain as
*interrupted* (no final). The chain still open at the end of the history is not a chain yet.

- A `<compressed-chain` user message (what a compression renders) starts nothing.
- Other messages (custom messages, summaries, a user's `!command`) neither start nor end one.
- A middle call is protected when its tool and arguments are (`is_protected`); a result when
  its call was, or when its tool is protected by name.

Selection keeps the newest K closed chains raw and picks the older ones that are not yet
compressed; interrupted chains and chains that called no tool never count.

pith runs detection on the session's own messages before the next prompt, when the closing
reply is already stored (pith fires `message_end` before storing the message, like Pi, which
is why Pi appends the closing message itself; at `before_agent_start` there is nothing to add).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    ToolResultMessage,
    UserMessage,
    content_text,
)
from pith.ext.prune._records import occurrence_key

__all__ = [
    "SYNTHETIC_PREFIX",
    "Chain",
    "detect_chains",
    "is_synthetic",
    "select_chains",
    "user_text",
]

SYNTHETIC_PREFIX = "<compressed-chain"

Protected = Callable[[str, object], bool]
"""(tool name, arguments) -> whether the call is protected."""


@dataclass(frozen=True)
class Chain:
    start: int
    """Position of the start user message in the messages detected."""
    start_timestamp: int | float
    end: int | None
    """Position of the final assistant message; None for an interrupted chain."""
    final_timestamp: int | float | None
    call_ids: tuple[str, ...]
    """Tool call ids of the middle, in order."""
    keys: tuple[str, ...]
    """Occurrence keys of the middle's results, in order."""
    protected_keys: tuple[str, ...]

    @property
    def closed(self) -> bool:
        return self.final_timestamp is not None


def user_text(message: UserMessage) -> str:
    """The text of a user message (its text blocks joined)."""
    return content_text(message.content)


def is_synthetic(message: AgentMessage) -> bool:
    """Whether `message` is a rendered `<compressed-chain>` message."""
    return isinstance(message, UserMessage) and user_text(message).startswith(SYNTHETIC_PREFIX)


@dataclass
class _Open:
    start: int
    timestamp: int | float
    call_ids: list[str]
    keys: list[str]
    protected_calls: set[str]
    protected_keys: list[str]

    def close(self, end: int | None, final: int | float | None) -> Chain:
        return Chain(
            self.start,
            self.timestamp,
            end,
            final,
            tuple(self.call_ids),
            tuple(self.keys),
            tuple(self.protected_keys),
        )


def detect_chains(
    messages: Sequence[AgentMessage],
    protected: Protected,
    protected_tools: Collection[str] = (),
) -> list[Chain]:
    """The closed and interrupted chains of `messages`, oldest first."""
    chains: list[Chain] = []
    current: _Open | None = None
    for position, message in enumerate(messages):
        if isinstance(message, UserMessage):
            if is_synthetic(message):
                continue
            if current is not None:
                chains.append(current.close(None, None))
            current = _Open(position, message.timestamp, [], [], set(), [])
        elif current is None:
            continue
        elif isinstance(message, AssistantMessage):
            calls = message.tool_calls()
            if not calls:
                chains.append(current.close(position, message.timestamp))
                current = None
                continue
            for call in calls:
                current.call_ids.append(call.id)
                if protected(call.name, call.arguments):
                    current.protected_calls.add(call.id)
        elif isinstance(message, ToolResultMessage):
            key = occurrence_key(message.tool_call_id, message.timestamp)
            current.keys.append(key)
            if message.tool_call_id in current.protected_calls or (
                message.tool_name in protected_tools
            ):
                current.protected_keys.append(key)
    return chains


def select_chains(
    chains: Sequence[Chain],
    compressed_starts: Collection[int | float],
    window: int,
    deferred: Callable[[Chain], bool] = lambda chain: False,
) -> list[Chain]:
    """The chains to compress now: closed, with a middle, not compressed yet, and older than
    the newest `window` such chains (0: all of them). A chain `deferred` says to wait for
    (a recovered output still in grace) is left for later and still counts as one of the
    older chains, so the window does not shrink."""
    candidates = [
        chain
        for chain in chains
        if chain.closed and chain.call_ids and chain.start_timestamp not in compressed_starts
    ]
    older = candidates[: max(0, len(candidates) - window)]
    return [chain for chain in older if not deferred(chain)]
