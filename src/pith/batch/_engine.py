"""What an engine is handed: when it may start a task, and whom it tells."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from pith.batch._tasks import Task

__all__ = ["Gate", "Reporter"]

Gate = Callable[[], bool]
"""True while the engine may start another task (no abort, the cost limit not reached)."""


class Reporter(Protocol):
    def started(self, task: Task) -> None: ...

    def finished(self, row: dict[str, Any]) -> None:
        """A task's row: written to results.jsonl and counted (called from any thread)."""
