"""Streaming Markdown, rendered once: what of a growing text is final, and what may change.

A reply streams in as deltas. Re-rendering the whole text on every delta costs time in
proportion to its length, so a long answer would slow down as it grows. Instead the text is cut
at its last block boundary — a blank line outside a fenced code block, or the line closing a
fence — and everything before the cut is final: it is rendered once and written to the
terminal's scroll-back. Only the tail after the cut is shown live while it grows. Each delta is
scanned once, so the work per delta does not grow with the length of the reply.
"""

from __future__ import annotations

__all__ = ["MarkdownStream", "fence_of"]


def fence_of(line: str) -> str | None:
    """The fence a line opens or closes (three or more ` or ~), else None."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3:
        return None
    for mark in ("`", "~"):
        if stripped.startswith(mark * 3):
            run = len(stripped) - len(stripped.lstrip(mark))
            return mark * run
    return None


class MarkdownStream:
    """A growing Markdown text; `append` hands out the part that has become final."""

    def __init__(self) -> None:
        self._pending = ""
        """Text after the last cut (the live tail)."""
        self._scanned = 0
        """How much of `_pending` has been judged line by line (up to a line start)."""
        self._fence: str | None = None
        self._cut = 0
        """Where in `_pending` the last block boundary found so far ends."""

    @property
    def tail(self) -> str:
        return self._pending

    @property
    def in_fence(self) -> bool:
        return self._fence is not None

    def append(self, delta: str) -> str:
        """Add `delta`; returns the text that has just become final (often "")."""
        self._pending += delta
        pending = self._pending
        while True:
            newline = pending.find("\n", self._scanned)
            if newline < 0:
                break
            line = pending[self._scanned : newline]
            self._judge(line, newline + 1)
            self._scanned = newline + 1
        if self._cut == 0:
            return ""
        done = pending[: self._cut]
        self._pending = pending[self._cut :]
        self._scanned -= self._cut
        self._cut = 0
        return done

    def _judge(self, line: str, end: int) -> None:
        mark = fence_of(line)
        if self._fence is None:
            if mark is not None:
                self._fence = mark
            elif not line.strip() and end > 1:
                self._cut = end
        elif (
            mark is not None
            and line.strip() == mark
            and mark[0] == self._fence[0]
            and len(mark) >= len(self._fence)
        ):
            self._fence = None
            self._cut = end

    def finish(self) -> str:
        """The rest, now final."""
        rest = self._pending
        self._pending = ""
        self._scanned = 0
        self._cut = 0
        self._fence = None
        return rest
