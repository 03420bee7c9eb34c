"""The footer under the editor: model, thinking level, context use, cost, and what pruning and
compaction saved. Pure: computed from `FooterData`, which the app refreshes on events (never
on a keystroke)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from pith.app.session import format_tokens, session_cost
from pith.session import CompactionEntry, SessionEntry

__all__ = ["FooterData", "compaction_totals", "footer_text", "format_tokens", "session_cost"]


@dataclass
class FooterData:
    model: str = ""
    thinking: str = "off"
    context_tokens: int | None = None
    context_window: int = 0
    cost: float = 0.0
    compactions: int = 0
    compacted_tokens: int = 0
    """Tokens the compactions of this branch summarized away (their `tokensBefore`)."""
    statuses: Mapping[str, str] = field(default_factory=dict)
    """What extensions asked to show (`ctx.ui.set_status`), by key."""
    session_name: str | None = None


def compaction_totals(branch: Iterable[SessionEntry]) -> tuple[int, int]:
    """`(count, tokens summarized)` of the compactions on `branch`."""
    count = tokens = 0
    for entry in branch:
        if isinstance(entry, CompactionEntry):
            count += 1
            tokens += entry.tokens_before
    return count, tokens


def footer_text(data: FooterData, width: int) -> str:
    """One line (cut to `width`): `model · thinking · ctx 12k/200k (6%) · $0.012 · ...`."""
    parts = [data.model or "no model"]
    if data.thinking != "off":
        parts.append(f"thinking {data.thinking}")
    if data.context_window > 0:
        if data.context_tokens is None:
            parts.append(f"ctx ?/{format_tokens(data.context_window)}")
        else:
            percent = data.context_tokens / data.context_window * 100
            parts.append(
                f"ctx {format_tokens(data.context_tokens)}/{format_tokens(data.context_window)} "
                f"({percent:.0f}%)"
            )
    parts.append(f"${data.cost:.3f}" if data.cost < 10 else f"${data.cost:.2f}")
    if data.compactions:
        parts.append(
            f"compacted {data.compactions}× ({format_tokens(data.compacted_tokens)} summarized)"
        )
    parts.extend(text for _, text in sorted(data.statuses.items()) if text)
    if data.session_name:
        parts.insert(0, data.session_name)
    line = " · ".join(parts)
    return line if len(line) <= width else line[: max(1, width - 1)] + "…"
