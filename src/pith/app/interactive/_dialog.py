"""The question the interactive mode is asking, if any: pick one of several options, or type
a line. One question at a time; its answer resolves a future the asker awaits.

Pure state and rendering; the app wires keys to `move`, `choose` and `cancel`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

__all__ = ["Question", "visible_window"]


def visible_window(count: int, index: int, height: int) -> tuple[int, int]:
    """`(start, end)` of the options to show so that `index` is visible, `height` at most."""
    if count <= height:
        return 0, count
    start = min(max(0, index - height // 2), count - height)
    return start, start + height


@dataclass
class Question:
    """A selection (`options`) or, when `options` is None, a line of text to type."""

    title: str
    options: list[str] | None = None
    index: int = 0
    placeholder: str | None = None
    future: asyncio.Future[int | str | None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )

    @property
    def is_input(self) -> bool:
        return self.options is None

    def move(self, step: int) -> None:
        if self.options:
            self.index = max(0, min(len(self.options) - 1, self.index + step))

    def jump(self, index: int) -> None:
        if self.options:
            self.index = max(0, min(len(self.options) - 1, index))

    def choose(self, value: int | str | None = None) -> None:
        if self.future.done():
            return
        self.future.set_result(self.index if value is None and self.options else value)

    def cancel(self) -> None:
        if not self.future.done():
            self.future.set_result(None)

    def lines(self, height: int) -> list[tuple[str, str]]:
        """`(style, text)` rows: the title, then the options around the selection."""
        rows = [("class:dialog.title", line) for line in self.title.split("\n")]
        if self.options is None:
            return rows
        start, end = visible_window(len(self.options), self.index, max(1, height))
        if start:
            rows.append(("class:dialog.more", f"  ↑ {start} more"))
        for number in range(start, end):
            option = self.options[number].split("\n", 1)[0]
            if number == self.index:
                rows.append(("class:dialog.selected", f"❯ {option}"))
            else:
                rows.append(("class:dialog.option", f"  {option}"))
        if end < len(self.options):
            rows.append(("class:dialog.more", f"  ↓ {len(self.options) - end} more"))
        return rows
