"""Extensions' questions and notices in the interactive mode (`ctx.ui`): notices are printed
into the transcript, questions shown in place of the editor, statuses in the footer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pith.extensions import NoticeLevel

if TYPE_CHECKING:
    from pith.app.modes.interactive._app import InteractiveApp

__all__ = ["TerminalUI"]


class TerminalUI:
    def __init__(self) -> None:
        self.app: InteractiveApp | None = None
        self._early: list[tuple[str, NoticeLevel]] = []

    def bind(self, app: InteractiveApp) -> None:
        self.app = app
        for message, level in self._early:
            app.transcript.notice(message, level)
        self._early.clear()

    def notify(self, message: str, level: NoticeLevel = "info") -> None:
        if self.app is None:
            self._early.append((message, level))
            return
        self.app.transcript.notice(message, level)

    async def confirm(self, title: str, message: str = "", *, timeout: float | None = None) -> bool:
        if self.app is None:
            return False
        text = f"{title}\n{message}" if message else title
        return await self.app.ask(text, ["Yes", "No"], timeout=timeout) == 0

    async def select(
        self, title: str, options: Sequence[str], *, timeout: float | None = None
    ) -> str | None:
        if self.app is None or not options:
            return None
        picked = await self.app.ask(title, list(options), timeout=timeout)
        return options[picked] if isinstance(picked, int) else None

    async def input(
        self, title: str, placeholder: str | None = None, *, timeout: float | None = None
    ) -> str | None:
        if self.app is None:
            return None
        typed = await self.app.ask(title, None, placeholder=placeholder, timeout=timeout)
        return typed if isinstance(typed, str) else None

    def set_status(self, key: str, text: str | None) -> None:
        if self.app is not None:
            self.app.set_status(key, text)
