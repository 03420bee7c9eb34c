"""Keeping long sessions inside the window: token accounting, cut points, summaries."""

from pith.compaction.tokens import (
    ESTIMATED_IMAGE_CHARS,
    estimate_context_tokens,
    estimate_text_tokens,
    estimate_tokens,
    estimate_total,
    usage_tokens,
)

__all__ = [
    "ESTIMATED_IMAGE_CHARS",
    "estimate_context_tokens",
    "estimate_text_tokens",
    "estimate_tokens",
    "estimate_total",
    "usage_tokens",
]
