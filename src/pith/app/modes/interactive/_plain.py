"""The interactive mode on a terminal that cannot draw (`TERM=dumb`, an editor's shell): plain
lines in and out, no colours, no cursor movement. Paragraphs appear as they are finished;
questions are numbered lists answered by typing a number; Ctrl+C stops the run."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pith.app.modes.interactive._format import Painter
from pith.app.modes.interactive._transcript import Transcript
from pith.errors import InputError
from pith.extensions import NoticeLevel

if TYPE_CHECKING:
    from pith.app.session import AgentSession

__all__ = ["PlainUI", "run_plain"]


async def _read_line(prompt: str) -> str | None:
    loop = asyncio.get_running_loop()
    _write(prompt)  # input() would put it on standard error
    try:
        return await loop.run_in_executor(None, input)
    except EOFError:
        return None


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


class PlainUI:
    def notify(self, message: str, level: NoticeLevel = "info") -> None:
        prefix = "" if level == "info" else f"{level}: "
        _write(f"{prefix}{message}\n")

    async def confirm(self, title: str, message: str = "", *, timeout: float | None = None) -> bool:
        answer = await self.select(f"{title}\n{message}".strip(), ["Yes", "No"], timeout=timeout)
        return answer == "Yes"

    async def select(
        self, title: str, options: Sequence[str], *, timeout: float | None = None
    ) -> str | None:
        _write(title + "\n" + "".join(f"  {n}. {o}\n" for n, o in enumerate(options, 1)))
        while True:
            try:
                line = await asyncio.wait_for(_read_line("number (Enter cancels)> "), timeout)
            except TimeoutError:
                return None
            if line is None or not line.strip():
                return None
            if line.strip().isdigit() and 1 <= int(line) <= len(options):
                return options[int(line) - 1]
            _write(f"type a number from 1 to {len(options)}\n")

    async def input(
        self, title: str, placeholder: str | None = None, *, timeout: float | None = None
    ) -> str | None:
        try:
            return await asyncio.wait_for(_read_line(f"{title}> "), timeout)
        except TimeoutError:
            return None

    def set_status(self, key: str, text: str | None) -> None:
        return None


async def run_plain(session: AgentSession, first: str | None, rest: Sequence[str]) -> int:
    transcript = Transcript(
        write=_write, painter=Painter(80, color=False, keys=False), cwd=session.cwd
    )
    unsubscribe = session.subscribe(transcript.handle)
    session.command_output = lambda command, text: _write(text)
    session.editor_offer = lambda text: _write(f"(to edit and send again) {text}\n")
    loop = asyncio.get_running_loop()
    installed = False
    try:
        loop.add_signal_handler(signal.SIGINT, session.abort)
        installed = True
    except (NotImplementedError, RuntimeError):
        pass
    queue = [text for text in [first, *rest] if text is not None]
    _write("pith (plain terminal): type a request; /quit or Ctrl+D leaves.\n")
    try:
        while True:
            text = queue.pop(0) if queue else await _read_line("> ")
            if text is None or text.strip() in ("/quit", "/exit"):
                return 0
            if not text.strip():
                continue
            try:
                if text.startswith("!"):
                    exclude = text.startswith("!!")
                    message = await session.run_user_bash(
                        text[2 if exclude else 1 :].strip(), exclude_from_context=exclude
                    )
                    transcript.bash_execution(message)
                else:
                    outcome = await session.prompt(text, source="interactive")
                    if outcome.editor_text:
                        _write(f"(to edit and send again) {outcome.editor_text}\n")
            except InputError as error:
                transcript.notice(str(error), "error")
    finally:
        unsubscribe()
        if installed:
            loop.remove_signal_handler(signal.SIGINT)
