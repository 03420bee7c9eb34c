"""What a session's `abort()` stops besides the agent's own run, kept in one place."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Literal

from pith.agent import AbortController, AbortSignal

__all__ = ["AbortKind", "AbortScopes"]

AbortKind = Literal["retry", "shell", "summary"]
"""The wait before an automatic retry, the user's own command (`!cmd`), a summary written
while no run is going (a compaction, a branch summary)."""


class AbortScopes:
    """The stoppable work of a session, each piece registered for as long as it lasts.

    `stop_all` stops every piece there is; `stop` one kind alone (stopping the retry wait keeps
    the user's command running, and the other way round).
    """

    def __init__(self) -> None:
        self._active: dict[AbortKind, AbortController] = {}

    @contextlib.contextmanager
    def scope(self, kind: AbortKind) -> Iterator[AbortSignal]:
        """The signal of one piece of work of `kind`, fired by `stop(kind)` or `stop_all()`."""
        controller = AbortController()
        self._active[kind] = controller
        try:
            yield controller.signal
        finally:
            if self._active.get(kind) is controller:
                del self._active[kind]

    def active(self, kind: AbortKind) -> bool:
        return kind in self._active

    def stop(self, kind: AbortKind) -> None:
        controller = self._active.get(kind)
        if controller is not None:
            controller.abort()

    def stop_all(self) -> None:
        for controller in list(self._active.values()):
            controller.abort()
