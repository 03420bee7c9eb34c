"""The footer's pruner status: what the last pruned request saved, or what the pruner is
doing now. Set only when it changes."""

from __future__ import annotations

from pith.ext.prune._settings import PrunerSettings
from pith.ext.prune._stats import Tally
from pith.extensions import ExtensionContext

__all__ = ["STATUS_KEY", "StatusLine", "format_tokens"]

STATUS_KEY = "prune"


def format_tokens(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 1000 else str(count)


class StatusLine:
    def __init__(self, settings: PrunerSettings, tally: Tally) -> None:
        self._settings = settings
        self._tally = tally
        self._text: str | None = None

    def show(self, ctx: ExtensionContext, text: str | None) -> None:
        if text != self._text:
            self._text = text
            ctx.ui.set_status(STATUS_KEY, text)

    def show_saved(self, ctx: ExtensionContext) -> None:
        """`pruned −N tok` while pruning is on and the last pruned request saved N; else
        nothing."""
        saved = self._tally.current.tokens_saved
        active = self._settings.active
        self.show(ctx, f"pruned −{format_tokens(saved)} tok" if active and saved > 0 else None)
