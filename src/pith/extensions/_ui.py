"""Talking to the user from an extension: notices and questions.

In print and JSON runs nobody can answer, so `HeadlessUI` answers every question at once with
its default (a confirmation is *no*, a choice or an input is None) and prints notices to
standard error. The interactive and RPC modes provide their own `ExtensionUI`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Literal, Protocol, TextIO

__all__ = ["ExtensionUI", "HeadlessUI", "NoticeLevel"]

NoticeLevel = Literal["info", "warning", "error"]


class ExtensionUI(Protocol):
    def notify(self, message: str, level: NoticeLevel = "info") -> None:
        """Show a short notice; never waits."""
        ...

    async def confirm(self, title: str, message: str = "", *, timeout: float | None = None) -> bool:
        """Ask yes or no; False when nobody answers (no UI, timeout)."""
        ...

    async def select(
        self, title: str, options: Sequence[str], *, timeout: float | None = None
    ) -> str | None:
        """Ask to pick one of `options`; None when nobody answers."""
        ...

    async def input(
        self, title: str, placeholder: str | None = None, *, timeout: float | None = None
    ) -> str | None:
        """Ask for a line of text; None when nobody answers."""
        ...

    def set_status(self, key: str, text: str | None) -> None:
        """Show `text` in the footer under `key` (None removes it); where there is no footer
        (print, JSON) it is dropped. For progress and running totals, not for messages."""
        ...


class HeadlessUI:
    """The UI of runs without a person at the keyboard (print, JSON, `pith tool`)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream

    def notify(self, message: str, level: NoticeLevel = "info") -> None:
        stream = self._stream or sys.stderr
        prefix = "" if level == "info" else f"{level}: "
        print(f"pith: {prefix}{message}", file=stream, flush=True)

    async def confirm(self, title: str, message: str = "", *, timeout: float | None = None) -> bool:
        return False

    async def select(
        self, title: str, options: Sequence[str], *, timeout: float | None = None
    ) -> str | None:
        return None

    async def input(
        self, title: str, placeholder: str | None = None, *, timeout: float | None = None
    ) -> str | None:
        return None

    def set_status(self, key: str, text: str | None) -> None:
        return None


class NamedUI:
    """An extension's view of the UI: its notices carry its name."""

    def __init__(self, ui: ExtensionUI, name: str) -> None:
        self._ui = ui
        self._name = name

    def notify(self, message: str, level: NoticeLevel = "info") -> None:
        self._ui.notify(f"[{self._name}] {message}", level)

    async def confirm(self, title: str, message: str = "", *, timeout: float | None = None) -> bool:
        return await self._ui.confirm(title, message, timeout=timeout)

    async def select(
        self, title: str, options: Sequence[str], *, timeout: float | None = None
    ) -> str | None:
        return await self._ui.select(title, options, timeout=timeout)

    async def input(
        self, title: str, placeholder: str | None = None, *, timeout: float | None = None
    ) -> str | None:
        return await self._ui.input(title, placeholder, timeout=timeout)

    def set_status(self, key: str, text: str | None) -> None:
        setter = getattr(self._ui, "set_status", None)  # a UI written before set_status
        if callable(setter):
            setter(key, text)
