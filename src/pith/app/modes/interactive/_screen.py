"""The interactive mode's screen: the inline prompt_toolkit layout at the bottom of the terminal,
redrawn in place, and the writing of finished output above it into the scroll-back.

    live area     the reply's unfinished tail, running tools, what pith is doing
    queue         steering and follow-up messages waiting for the agent
    question      an extension's (or pith's) question, in place of the editor while asked
    editor        multi-line, history, `/` and `@` completion
    footer        model · thinking · context use · cost · what pruning and compaction saved

The screen knows nothing of the session: its owner hands it the editor, the painter and the
few things it shows (the live text, whether work is going on, the queued messages, the keys).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable, Sequence

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import ANSI, FormattedText
from prompt_toolkit.key_binding import KeyBindingsBase
from prompt_toolkit.layout import (
    ConditionalContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.styles import Style
from rich.text import Text

from pith.app.modes.interactive._dialog import Question
from pith.app.modes.interactive._footer import FooterData, footer_text
from pith.app.modes.interactive._format import Painter
from pith.app.modes.interactive._transcript import message_text

__all__ = ["Screen", "dim"]

_STYLE = Style.from_dict(
    {
        "prompt": "ansimagenta bold",
        "footer": "ansibrightblack",
        "queue": "ansiyellow",
        "dialog.title": "bold",
        "dialog.selected": "ansicyan bold",
        "dialog.option": "",
        "dialog.more": "ansibrightblack",
        "dialog.hint": "ansibrightblack italic",
        "separator": "ansibrightblack",
    }
)

Queued = Callable[[], tuple[Sequence[object], Sequence[object]]]
"""The steering and the follow-up messages waiting for the agent."""
Keys = Callable[[Condition, Condition], KeyBindingsBase]
"""The key bindings, given whether a question is on screen and whether it wants typed text."""


def dim(text: str) -> Text:
    return Text(text, style="dim")


class Screen:
    def __init__(
        self,
        *,
        editor: Buffer,
        painter: Painter,
        live: Callable[[int], str],
        busy: Callable[[], bool],
        queued: Queued,
        keys: Keys,
    ) -> None:
        """`live(rows)`: the live area in at most `rows` rows; `busy()`: work is going on."""
        self.editor = editor
        self.answer = Buffer(multiline=False)
        self.painter = painter
        self.question: Question | None = None
        self.footer = FooterData()
        self.statuses: dict[str, str] = {}
        self._live = live
        self._busy = busy
        self._queued = queued
        self._ask_lock = asyncio.Lock()
        self._pending_output: list[str] = []
        self._flushing: asyncio.Task[None] | None = None
        self.app: Application[int] = self._build(keys)

    # --- layout -----------------------------------------------------------------------------

    def sync_width(self) -> None:
        """Follow the terminal's width (it may have been resized since the last render)."""
        if self.app.is_running:
            try:
                self.painter.width = max(20, self.app.output.get_size().columns)
            except Exception:
                return

    def _rows(self) -> int:
        try:
            return self.app.output.get_size().rows
        except Exception:
            return 24

    def _build(self, keys: Keys) -> Application[int]:
        asking = Condition(lambda: self.question is not None)
        typing_answer = Condition(lambda: self.question is not None and self.question.is_input)
        live = Window(
            FormattedTextControl(self._live_text),
            height=self._live_height,
            wrap_lines=False,
            dont_extend_height=True,
        )
        queue = Window(FormattedTextControl(self._queue_text), dont_extend_height=True)
        question = Window(
            FormattedTextControl(self._question_text),
            dont_extend_height=True,
            wrap_lines=True,
        )
        answer = Window(
            BufferControl(self.answer, input_processors=[BeforeInput("› ", style="class:prompt")]),
            height=1,
        )
        editor = Window(
            BufferControl(self.editor, input_processors=[BeforeInput("› ", style="class:prompt")]),
            height=Dimension(min=1, max=12),
            wrap_lines=True,
            dont_extend_height=True,
        )
        footer = Window(FormattedTextControl(self._footer_text), height=1, style="class:footer")
        body = HSplit(
            [
                live,
                queue,
                ConditionalContainer(
                    HSplit([question, ConditionalContainer(answer, typing_answer)]), asking
                ),
                ConditionalContainer(
                    HSplit([Window(height=1, char="─", style="class:separator"), editor]),
                    ~asking,
                ),
                CompletionsMenu(max_height=8, scroll_offset=1),
                footer,
            ]
        )
        layout = Layout(body, focused_element=editor)
        self._editor_window, self._answer_window = editor, answer
        app: Application[int] = Application(
            layout=layout,
            key_bindings=keys(asking, typing_answer),
            style=_STYLE,
            full_screen=False,
            mouse_support=False,
            erase_when_done=False,
            color_depth=None,
            min_redraw_interval=0.02,
        )
        # Esc stops the run: wait only briefly for a key that would make it Alt+<key>.
        app.ttimeoutlen = 0.05
        app.timeoutlen = 0.2
        return app

    def _live_height(self) -> Dimension:
        text = self._live_text_raw()
        return Dimension.exact(text.count("\n") + 1 if text else 0)

    def _live_limit(self) -> int:
        return max(3, self._rows() - 8)

    def _live_text_raw(self) -> str:
        self.sync_width()
        text = self._live(self._live_limit())
        if not text and self._busy() and self.question is None:
            return self.painter.render(dim("… working (esc to stop)")).rstrip("\n")
        return text

    def _live_text(self) -> ANSI:
        return ANSI(self._live_text_raw())

    def _queue_text(self) -> FormattedText:
        steering, follow_up = self._queued()
        rows: list[tuple[str, str]] = []
        for label, messages in (("steer", steering), ("follow-up", follow_up)):
            for message in messages:
                text = message_text(getattr(message, "content", "")).split("\n", 1)[0]
                rows.append(("class:queue", f"  ↳ {label}: {text[: self.painter.width - 16]}\n"))
        return FormattedText(rows)

    def _question_text(self) -> FormattedText:
        question = self.question
        if question is None:
            return FormattedText([])
        rows: list[tuple[str, str]] = [("class:separator", "─" * self.painter.width + "\n")]
        for style, text in question.lines(max(3, self._rows() - 10), self.painter.width):
            rows.append((style, text + "\n"))
        if question.is_input:
            hint = "Enter to answer · Esc to cancel"
        elif question.filterable:
            hint = "type to filter · ↑↓ to move · Enter to choose · Esc to cancel"
        else:
            hint = "↑↓ to move · Enter to choose · Esc to cancel"
        rows.append(("class:dialog.hint", hint))
        return FormattedText(rows)

    def _footer_text(self) -> FormattedText:
        self.footer.statuses = self.statuses
        return FormattedText([("class:footer", footer_text(self.footer, self.painter.width))])

    def set_status(self, key: str, text: str | None) -> None:
        if text:
            self.statuses[key] = text
        else:
            self.statuses.pop(key, None)
        self.refresh()

    # --- output -----------------------------------------------------------------------------

    def print(self, text: str) -> None:
        """Write finished output above the live area, into the scroll-back."""
        if not text:
            return
        if not self.app.is_running:
            sys.stdout.write(text)
            sys.stdout.flush()
            return
        self._pending_output.append(text)
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.get_running_loop().create_task(self._flush_output())

    async def _flush_output(self) -> None:
        app = self.app
        if app.output.responds_to_cpr:
            # A cursor-position answer still in flight would be taken for typed keys.
            await app.renderer.wait_for_cpr_responses()
        while self._pending_output:
            chunk = "".join(self._pending_output)
            self._pending_output.clear()
            if not chunk.endswith("\n"):
                chunk += "\n"
            if not app.is_running:
                sys.stdout.write(chunk)
                sys.stdout.flush()
                continue
            # What prompt_toolkit's run_in_terminal does, without switching the terminal to
            # cooked mode: keys typed meanwhile (Ctrl+D, Ctrl+C, Esc) stay ours, and are not
            # echoed or turned into signals by the terminal.
            app.renderer.erase()
            app.output.write_raw(chunk)
            app.output.flush()
            app.renderer.reset()
            app.renderer.request_absolute_cursor_position()
            app.invalidate()

    def write_raw(self, text: str) -> None:
        """Send an escape sequence to the terminal as it is (nothing is shown)."""
        if self.app.is_running:
            self.app.output.write_raw(text)
            self.app.output.flush()
        else:
            sys.stdout.write(text)
            sys.stdout.flush()

    def refresh(self) -> None:
        if self.app.is_running:
            self.app.invalidate()

    # --- questions (extension UI, pith's own dialogs) ----------------------------------------

    async def ask(
        self,
        title: str,
        options: Sequence[str] | None,
        *,
        initial: int = 0,
        placeholder: str | None = None,
        timeout: float | None = None,
    ) -> int | str | None:
        """Show a question; the chosen index (or the typed text), None when cancelled."""
        if not self.app.is_running:  # asked before the editor is up (an extension starting)
            from pith.app.modes.interactive._choose import ask_alone

            return await ask_alone(title, options, placeholder)
        async with self._ask_lock:
            question = Question(title, list(options) if options is not None else None, initial)
            self.question = question
            self.answer.reset(Document(placeholder or ""))
            self._focus(self._answer_window if question.is_input else None)
            self.refresh()
            try:
                if timeout is not None:
                    return await asyncio.wait_for(asyncio.shield(question.future), timeout)
                return await question.future
            except TimeoutError:
                return None
            finally:
                question.cancel()
                self.question = None
                self._focus(self._editor_window)
                self.refresh()

    def _focus(self, window: Window | None) -> None:
        if window is not None and self.app.is_running:
            with contextlib.suppress(ValueError):
                self.app.layout.focus(window)
