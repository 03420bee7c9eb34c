"""Keeping long sessions inside the window: token accounting, cut points, summaries."""

from pith.compaction.tokens import (
    ESTIMATED_IMAGE_CHARS,
    estimate_text_tokens,
    estimate_tokens,
    estimate_total,
)

__all__ = ["ESTIMATED_IMAGE_CHARS", "estimate_text_tokens", "estimate_tokens", "estimate_total"]
