"""The table `pith --list-models [search]` prints, and its search: pure functions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pith.ai import Model

__all__ = ["format_count", "format_price", "matching_models", "model_table"]

_HEADER = (
    "",
    "provider",
    "model",
    "api",
    "context",
    "max-out",
    "thinking",
    "images",
    "$in/M",
    "$out/M",
    "from",
)
_RIGHT = {4, 5, 8, 9}
"""Columns of numbers, aligned right."""


def _folded(text: str) -> str:
    """Lower case, letters and digits only: `Sonnet 4.5` and `sonnet-4-5` read the same."""
    return "".join(char for char in text.lower() if char.isalnum())


def _is_subsequence(needle: str, haystack: str) -> bool:
    letters = iter(haystack)
    return all(char in letters for char in needle)


def matching_models(models: Sequence[Model], search: str) -> list[Model]:
    """The models `search` names: every word of it in the provider, id or name (case, spaces
    and punctuation ignored); when no model has them all, those where each word's letters
    appear in order (`snt45` finds Sonnet 4.5). An empty search matches every model."""
    words = [_folded(word) for word in search.split()]
    words = [word for word in words if word]
    if not words:
        return list(models)

    def text(model: Model) -> str:
        return _folded(f"{model.provider} {model.id} {model.name}")

    def every(test: Callable[[str, str], bool]) -> list[Model]:
        return [m for m in models if all(test(word, text(m)) for word in words)]

    return every(lambda word, haystack: word in haystack) or every(_is_subsequence)


def format_count(tokens: int) -> str:
    """`200K`, `1.05M`: a token count at a glance."""
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.3g}M"
    if tokens >= 1_000:
        return f"{tokens / 1_000:.3g}K"
    return str(tokens)


def format_price(dollars: float) -> str:
    """`3`, `0.125`; `-` for no price (free, local, or not known)."""
    return f"{dollars:g}" if dollars else "-"


def model_table(rows: Sequence[tuple[str, Model, str]]) -> list[str]:
    """The lines of the table, header first, for `(mark, model, origin)` rows."""
    cells = [_HEADER]
    for mark, model, origin in rows:
        cells.append(
            (
                mark,
                model.provider,
                model.id,
                model.api,
                format_count(model.context_window),
                format_count(model.max_tokens),
                "yes" if model.reasoning else "no",
                "yes" if model.supports_images() else "no",
                format_price(model.cost.input),
                format_price(model.cost.output),
                origin,
            )
        )
    widths = [max(len(row[column]) for row in cells) for column in range(len(_HEADER))]
    return [
        "  ".join(
            cell.rjust(widths[column]) if column in _RIGHT else cell.ljust(widths[column])
            for column, cell in enumerate(row)
        ).rstrip()
        for row in cells
    ]
