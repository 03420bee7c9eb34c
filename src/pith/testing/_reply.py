"""What a wire module renders: a scripted turn served to one request, with its usage."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pith.testing._script import Turn

__all__ = ["Reply", "Usage", "usage_for"]


@dataclass(frozen=True)
class Usage:
    """Token numbers of one reply, in Pi's terms (`input` excludes cached tokens)."""

    input: int
    output: int
    cache_read: int
    cache_write: int
    reasoning: int


@dataclass(frozen=True)
class Reply:
    """What a wire module renders: a turn served to request number `request_n`."""

    turn: Turn
    model: str
    usage: Usage
    request_n: int
    created: int

    def pieces(self, text: str) -> list[str]:
        """`text` split into streamed deltas of `turn.chunk` characters (none for "")."""
        size = self.turn.chunk
        return [text[i : i + size] for i in range(0, len(text), size)]


def _ceil4(n: int) -> int:
    return (n + 3) // 4


def usage_for(turn: Turn, request_chars: int, cached: Mapping[str, int] | None = None) -> Usage:
    """The turn's usage: scripted numbers, the rest computed from sizes (chars / 4); with
    `cached` (`{"read", "write"}` from the prompt-cache model) the prompt's tokens are split
    into cache reads, cache writes and uncached input."""
    reply_chars = len(turn.text) + len(turn.thinking)
    reply_chars += sum(len(call.name) + len(call.arguments) for call in turn.tool_calls)
    prompt = _ceil4(request_chars)
    read = min(prompt, cached["read"]) if cached else 0
    write = min(prompt - read, cached["write"]) if cached else 0
    computed = {
        "input": prompt - read - write,
        "output": _ceil4(reply_chars),
        "cache_read": read,
        "cache_write": write,
        "reasoning": _ceil4(len(turn.thinking)),
    }
    computed.update(turn.usage or {})
    return Usage(**computed)
