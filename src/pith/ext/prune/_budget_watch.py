"""When the budget triggers (`_budget`) fired in this process: the cut before which the
current task's batches are maskable too."""

from __future__ import annotations

from pith.ext.prune._budget import check_budget
from pith.ext.prune._config import PruneConfig
from pith.extensions import ExtensionContext

__all__ = ["BudgetWatch"]


class BudgetWatch:
    def __init__(self) -> None:
        self.cut: int | float | None = None
        """The assistant timestamp before which the current task's batches are maskable too.
        Only moves forward, so stubs stay byte-stable; in memory only, since what it masked is
        recorded as `masked` outcomes."""
        self._previous_fraction: float | None = None
        """The context usage share after the last turn with a batch (the delta trigger)."""
        self.last_saved = 0
        """Tokens the last request's stubs saved (the usage estimate counts the raw
        messages)."""

    def reset(self) -> None:
        """A new branch: no cut, no previous turn."""
        self.cut = None
        self._previous_fraction = None
        self.last_saved = 0

    def after_turn(self, stamp: int | float, config: PruneConfig, ctx: ExtensionContext) -> None:
        """After a turn with a batch: when the context passed the budget or jumped by the
        delta, the current task's turns before this one (`stamp`) become maskable."""
        if config.auto_budget_threshold is None and config.budget_turn_delta is None:
            return
        usage = ctx.get_context_usage()
        if usage is None:
            return
        # The estimate counts the raw messages; what the last request stubbed is not sent.
        tokens = None if usage.tokens is None else max(0, usage.tokens - self.last_saved)
        check = check_budget(tokens, usage.context_window, config, self._previous_fraction)
        self._previous_fraction = check.fraction
        if check.fire and (self.cut is None or stamp > self.cut):
            self.cut = stamp
