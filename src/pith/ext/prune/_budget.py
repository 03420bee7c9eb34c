"""Budget and delta triggers: when the current task may be pruned too (docs/pruning.md). Pure.

Outside these triggers nothing from the last user message on is pruned (`_render`), so one
very long task never shrinks. With `autoBudgetThreshold` t, a turn that leaves the context at
`min(300000, t × window)` tokens or more fires; with `budgetTurnDelta` d, a turn that raises
the usage share (`tokens / min(window, 300000)`, not clamped) by d or more fires. A fired
trigger lets the render stub the current task's batches older than the newest turn.
"""

from __future__ import annotations

from dataclasses import dataclass

from pith.ext.prune._config import PruneConfig

__all__ = ["BUDGET_CAP", "BudgetCheck", "budget_limit", "check_budget", "usage_fraction"]

BUDGET_CAP = 300_000
"""Tokens: a window larger than this is treated as this large (very long prompts stay costly
and slow whatever the model accepts)."""


def budget_limit(threshold: float | None, window: int) -> float | None:
    """The token count at which the budget trigger fires; None when it is off."""
    if threshold is None or not 0 < threshold <= 1 or window <= 0:
        return None
    return min(BUDGET_CAP, threshold * window)


def usage_fraction(tokens: int, window: int) -> float | None:
    """`tokens` as a share of the (capped) window, may exceed 1; None for an empty window."""
    if window <= 0:
        return None
    return tokens / min(window, BUDGET_CAP)


_EPSILON = 1e-9
"""So that a rise from 0.5 to 0.6 counts as 0.1 despite binary floats."""


@dataclass(frozen=True)
class BudgetCheck:
    fire: bool
    fraction: float | None
    """The usage share to compare the next turn with (the previous one when unknown)."""
    reason: str = ""


def check_budget(
    tokens: int | None, window: int, config: PruneConfig, previous: float | None
) -> BudgetCheck:
    """Whether this turn's usage (`tokens`, None when unknown) fires a trigger, given the share
    `previous` after the last turn (None: no earlier turn, so the delta cannot fire)."""
    if tokens is None:
        return BudgetCheck(False, previous)
    fraction = usage_fraction(tokens, window)
    limit = budget_limit(config.auto_budget_threshold, window)
    if limit is not None and tokens >= limit:
        return BudgetCheck(True, fraction, f"~{tokens} tokens >= budget {int(limit)}")
    delta = config.budget_turn_delta
    if (
        delta is not None
        and fraction is not None
        and previous is not None
        and fraction - previous >= delta - _EPSILON
    ):
        return BudgetCheck(True, fraction, f"usage rose {fraction - previous:.0%} in one turn")
    return BudgetCheck(False, fraction)
