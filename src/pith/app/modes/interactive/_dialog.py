"""The question the interactive mode is asking, if any: pick one of several options, or type
a line. One question at a time; its answer resolves a future the asker awaits.

Pure state and rendering; the app wires keys to `move`, `choose` and `cancel`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

__all__ = ["FILTER_MIN", "Question", "visible_window"]

FILTER_MIN = 9
"""Lists longer than this narrow as you type; shorter ones take a digit as the answer."""


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
    future: asyncio.Future[int | str | None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )

    @property
    def is_input(self) -> bool:
        return self.options is None

    query: str = ""
    """What was typed to narrow a long list (case-insensitive, anywhere in an option)."""

    @property
    def filterable(self) -> bool:
        """Long lists narrow as you type (short ones answer to digits instead)."""
        return self.options is not None and len(self.options) > FILTER_MIN

    def matches(self) -> list[int]:
        """The indices of the options shown: those containing the query."""
        if not self.options:
            return []
        wanted = self.query.casefold()
        return [i for i, o in enumerate(self.options) if wanted in o.casefold()]

    def _position(self, shown: list[int]) -> int:
        return shown.index(self.index) if self.index in shown else 0

    def move(self, step: int) -> None:
        shown = self.matches()
        if shown:
            position = max(0, min(len(shown) - 1, self._position(shown) + step))
            self.index = shown[position]

    def first(self) -> None:
        shown = self.matches()
        if shown:
            self.index = shown[0]

    def last(self) -> None:
        shown = self.matches()
        if shown:
            self.index = shown[-1]

    def jump(self, index: int) -> None:
        if self.options:
            self.index = max(0, min(len(self.options) - 1, index))

    def type(self, text: str) -> None:
        self.query += text
        self._follow()

    def erase(self) -> None:
        self.query = self.query[:-1]
        self._follow()

    def _follow(self) -> None:
        shown = self.matches()
        if shown and self.index not in shown:
            self.index = shown[0]

    def choose(self, value: int | str | None = None) -> None:
        if self.future.done():
            return
        if value is None and self.options:
            shown = self.matches()
            if not shown:
                return  # nothing matches the query: nothing to choose
            value = self.index if self.index in shown else shown[0]
        self.future.set_result(value)

    def cancel(self) -> None:
        if not self.future.done():
            self.future.set_result(None)

    def lines(self, height: int, width: int = 0) -> list[tuple[str, str]]:
        """`(style, text)` rows: the title, then the options around the selection, each cut
        to `width` columns when given (one row per option, however narrow the terminal)."""
        rows = [("class:dialog.title", line) for line in self.title.split("\n")]
        if self.options is None:
            return rows
        if self.query:
            rows.append(("class:dialog.more", f"  filter: {self.query}"))
        shown = self.matches()
        if not shown:
            rows.append(("class:dialog.more", "  (nothing matches; Backspace to widen)"))
            return rows
        position = self._position(shown)
        start, end = visible_window(len(shown), position, max(1, height))
        if start:
            rows.append(("class:dialog.more", f"  ↑ {start} more"))
        for number in shown[start:end]:
            option = self.options[number].split("\n", 1)[0]
            if width > 3 and len(option) > width - 2:  # two columns for the marker
                option = option[: width - 3] + "…"
            if number == self.index:
                rows.append(("class:dialog.selected", f"❯ {option}"))
            else:
                rows.append(("class:dialog.option", f"  {option}"))
        if end < len(shown):
            rows.append(("class:dialog.more", f"  ↓ {len(shown) - end} more"))
        return rows
