"""Turning token counts into dollars."""

from __future__ import annotations

from pith.ai._messages import Usage
from pith.ai._models import Model

__all__ = ["apply_cost"]


def apply_cost(model: Model, usage: Usage) -> Usage:
    """Fill `usage.cost` from the model's prices (USD per million tokens); returns `usage`."""
    cost = usage.cost
    cost.input = usage.input * model.cost.input / 1_000_000
    cost.output = usage.output * model.cost.output / 1_000_000
    cost.cache_read = usage.cache_read * model.cost.cache_read / 1_000_000
    cost.cache_write = usage.cache_write * model.cost.cache_write / 1_000_000
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write
    return usage
