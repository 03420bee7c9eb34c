"""What the parts of the interactive mode need from the app that owns them.

The terminal commands (and `/settings`) and the keys are handed the app, but see it only
through these protocols: they name what each part uses, and let `_app` import those parts
without them importing `_app` back.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from prompt_toolkit.buffer import Buffer

    from pith.app.modes.interactive._dialog import Question
    from pith.app.modes.interactive._format import Painter
    from pith.app.modes.interactive._transcript import Transcript
    from pith.app.session import AgentSession

__all__ = ["CommandHost", "KeyHost"]


class _Shown(Protocol):
    @property
    def session(self) -> AgentSession: ...

    @property
    def transcript(self) -> Transcript: ...

    def quit(self) -> None:
        """Leave the interactive mode (a run in progress is stopped)."""


class CommandHost(_Shown, Protocol):
    """What a terminal command uses: the session, the transcript, questions, output."""

    editor_offer: str | None
    """Text handed back for the user to edit and send; the editor takes it after the work."""

    @property
    def agent_dir(self) -> Path: ...

    @property
    def painter(self) -> Painter: ...

    async def ask(
        self,
        title: str,
        options: Sequence[str] | None,
        *,
        initial: int = 0,
        placeholder: str | None = None,
        timeout: float | None = None,
    ) -> int | str | None:
        """The chosen index (or, without options, the typed text); None when cancelled."""

    def print(self, text: str) -> None:
        """Write finished output into the scroll-back."""

    def write_raw(self, text: str) -> None:
        """Send an escape sequence to the terminal as it is."""

    def refresh(self) -> None:
        """Redraw the live area and the footer."""

    def replay(self, messages: Sequence[object], count: int = ...) -> None:
        """Show the end of the conversation (its last `count` messages)."""


class KeyHost(_Shown, Protocol):
    """What the keys use: the editor and the question on screen, and the app's actions."""

    @property
    def editor(self) -> Buffer: ...

    @property
    def answer(self) -> Buffer: ...

    @property
    def question(self) -> Question | None: ...

    @property
    def busy(self) -> bool: ...

    def submit(self, text: str, *, follow_up: bool) -> None:
        """Send the editor's text (a prompt, a command, `!` shell)."""

    def stop(self) -> None:
        """Stop the run; queued messages come back to the editor."""

    def refresh_footer(self) -> None: ...

    def run_command(self, name: str, arguments: str = "") -> None:
        """Run one of the terminal commands as if typed."""

    def cycle_model(self) -> None:
        """Switch to the next model that has credentials."""
