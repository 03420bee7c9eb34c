"""The interactive terminal mode: an inline prompt_toolkit application under the scroll-back.

Layout, bottom of the terminal, redrawn in place (everything final is printed above it once and
stays in the terminal's scroll-back):

    live area     the reply's unfinished tail, running tools, what pith is doing
    queue         steering and follow-up messages waiting for the agent
    question      an extension's (or pith's) question, in place of the editor while asked
    editor        multi-line, history, `/` and `@` completion
    footer        model · thinking · context use · cost · what pruning and compaction saved

Keys: Enter sends (steers while the agent works), Alt+Enter queues a follow-up (a new line
while idle), Ctrl+J a new line, Esc stops the run, Ctrl+C clears the editor (twice on an empty
one quits), Ctrl+D on an empty editor quits, Ctrl+O shows the last tool output in full, Ctrl+T
shows or hides thinking.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import ANSI, FormattedText
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import (
    DynamicKeyBindings,
    KeyBindings,
    KeyBindingsBase,
    merge_key_bindings,
)
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

from pith.agent import MessageEnd
from pith.ai import AssistantMessage
from pith.app.modes.interactive._complete import CommandInfo, EditorCompleter
from pith.app.modes.interactive._dialog import Question
from pith.app.modes.interactive._footer import (
    FooterData,
    compaction_totals,
    footer_text,
    session_cost,
)
from pith.app.modes.interactive._format import Painter
from pith.app.modes.interactive._keys import key_bindings, reserved_sequences, shortcut_bindings
from pith.app.modes.interactive._shortcuts import plan_shortcuts
from pith.app.modes.interactive._transcript import Transcript, message_text
from pith.app.session import BUILTINS, AgentSettled, CompactionEnd, SessionEvent, split_command
from pith.errors import InputError

if TYPE_CHECKING:
    from pith.app.modes.interactive._commands import InteractiveCommand
    from pith.app.session import AgentSession
    from pith.extensions import Shortcut

__all__ = ["InteractiveApp"]

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
_REPLAY_MESSAGES = 30
"""Messages of a resumed session shown at start (the rest: /tree)."""


class InteractiveApp:
    def __init__(
        self,
        session: AgentSession,
        *,
        agent_dir: Path,
        history: History | None = None,
        color: bool = True,
    ) -> None:
        self.session = session
        self.agent_dir = agent_dir
        self.color = color
        self.painter = Painter(self._columns(), color=color)
        self.statuses: dict[str, str] = {}
        self.footer = FooterData()
        self.question: Question | None = None
        self.editor_offer: str | None = None
        """Text a command handed back for the user to edit and send (`/fork`'s message, a
        message chosen in `/tree`); the editor takes it once the work is done."""
        self._ask_lock = asyncio.Lock()
        self._pending_output: list[str] = []
        self._flushing: asyncio.Task[None] | None = None
        self._task: asyncio.Task[None] | None = None
        """The prompt or command running now."""
        self._side: set[asyncio.Task[None]] = set()
        self.last_ctrl_c = 0.0
        """When Ctrl+C last hit an empty, idle editor (twice within 1.5 s quits)."""
        self._display_failed = False
        self._unsubscribe: Callable[[], None] | None = None
        guard = session.config.data.get("guard")
        threshold = guard.get("fastThresholdMs") if isinstance(guard, dict) else None
        self.transcript = Transcript(
            write=self.print,
            painter=self.painter,
            cwd=session.cwd,
            guard_threshold_ms=float(threshold) if isinstance(threshold, int | float) else 10_000,
        )
        from pith.app.modes.interactive._commands import interactive_commands

        self.commands: dict[str, InteractiveCommand] = interactive_commands()
        session.command_output = lambda command, text: self.print(text)
        self.editor = Buffer(
            multiline=True,
            history=history or _history(agent_dir),
            completer=EditorCompleter(self._command_infos, session.cwd),
            complete_while_typing=Condition(self._completing_while_typing),
            enable_history_search=False,
            tempfile_suffix=".md",  # Ctrl+G: the external editor sees Markdown
        )
        self.answer = Buffer(multiline=False)
        self._shortcuts: tuple[Shortcut, ...] = ()
        """The extensions' shortcuts `_shortcut_keys` was made for."""
        self._shortcut_keys: KeyBindingsBase = KeyBindings()
        self._shortcut_warnings: set[str] = set()
        self.app: Application[int] = self._build()

    # --- layout -----------------------------------------------------------------------------

    def _columns(self) -> int:
        try:
            return os.get_terminal_size(sys.stdout.fileno()).columns
        except OSError:
            return 80

    def _sync_width(self) -> None:
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

    def _build(self) -> Application[int]:
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
        self._editing = ~asking
        app: Application[int] = Application(
            layout=layout,
            key_bindings=merge_key_bindings(
                [
                    key_bindings(self, asking, typing_answer),
                    DynamicKeyBindings(self.extension_keys),
                ]
            ),
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
        self._sync_width()
        text = self.transcript.live(self._live_limit())
        if not text and self.busy and self.question is None:
            return self.painter.render(_dim("… working (esc to stop)")).rstrip("\n")
        return text

    def _live_text(self) -> ANSI:
        return ANSI(self._live_text_raw())

    def _queue_text(self) -> FormattedText:
        steering, follow_up = self.session.agent.queued()
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

    def _completing_while_typing(self) -> bool:
        text = self.editor.document.text_before_cursor
        if text.startswith("/") and "\n" not in text:
            return True
        word = text.rsplit(None, 1)[-1] if text and not text[-1].isspace() else ""
        return word.startswith("@")

    def _command_infos(self) -> list[CommandInfo]:
        infos = []
        for name, builtin in BUILTINS.items():
            terminal = self.commands.get(name)
            complete = functools.partial(terminal.complete, self) if terminal else None
            infos.append(CommandInfo(name, builtin.description, complete))
        for name, command in self.session.extensions.commands.items():
            infos.append(CommandInfo(name, command.description, command.get_argument_completions))
        for template in self.session.resources.prompt_templates:
            infos.append(CommandInfo(template.name, getattr(template, "description", "") or ""))
        for skill in self.session.resources.skills:
            infos.append(CommandInfo(f"skill:{skill.name}", skill.description))
        return infos

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

    def refresh_footer(self) -> None:
        session = self.session
        model = session.model
        count, tokens = compaction_totals(session.store.get_branch())
        self.footer = FooterData(
            model=model.key,
            thinking=session.thinking,
            # As the compaction threshold sees it: the last reply's reported input, plus an
            # estimate of what came after it.
            context_tokens=session.context_tokens(),
            context_window=model.context_window,
            cost=session_cost(session.store.entries),
            compactions=count,
            compacted_tokens=tokens,
            statuses=self.statuses,
            session_name=session.store.name,
        )
        self.refresh()

    def set_status(self, key: str, text: str | None) -> None:
        if text:
            self.statuses[key] = text
        else:
            self.statuses.pop(key, None)
        self.refresh()

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
            return await _ask_alone(title, options, placeholder)
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

    # --- running things ---------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return (
            (self._task is not None and not self._task.done())
            or self.session.agent.is_running
            or self.session.summarizing
        )

    def submit(self, text: str, *, follow_up: bool) -> None:
        if not text.strip():
            return
        self.editor.append_to_history()
        self.editor.reset()
        stripped = text.strip()
        if stripped.startswith("!"):
            self._spawn(self._bash(stripped))
            return
        if text[0].isspace() and stripped.startswith("/"):
            stripped = " " + stripped  # a leading space: the text as it is, never a command
        parts = split_command(stripped)
        command = self.commands.get(parts[0]) if parts else None
        if command is not None and parts is not None:
            self._spawn(self._command(command, parts[1]), main=not command.concurrent)
            return
        if self.session.agent.is_running:
            invocation = self.session.find_invocation(stripped)
            is_command = invocation is not None and invocation.kind not in ("template", "skill")
            if not is_command:
                self._spawn(
                    self.session.send_user_message(stripped, "follow_up" if follow_up else "steer")
                )
                self.refresh()
                return
        if self._task is not None and not self._task.done() and not stripped.startswith("/"):
            self.transcript.notice(
                "Wait for the current command to finish, or press Esc.", "warning"
            )
            self.editor.text = text
            return
        self._spawn(self._prompt(stripped), main=not self.session.agent.is_running)

    def _spawn(self, work: Awaitable[None], *, main: bool = False) -> None:
        async def guarded() -> None:
            try:
                await work
            except InputError as error:
                self.transcript.notice(str(error), "error")
            except asyncio.CancelledError:
                raise
            except Exception as error:  # never a traceback in the terminal
                self.transcript.notice(f"pith: {type(error).__name__}: {error}", "error")
            finally:
                self.after_work()

        task = asyncio.get_running_loop().create_task(guarded())
        if main:
            self._task = task
        else:
            self._side.add(task)
            task.add_done_callback(self._side.discard)
        self.refresh()

    async def _prompt(self, text: str) -> None:
        outcome = await self.session.prompt(text, source="interactive")
        if outcome.editor_text is not None:
            self.editor_offer = outcome.editor_text

    async def _bash(self, text: str) -> None:
        exclude = text.startswith("!!")
        command = text[2:] if exclude else text[1:]
        if not command.strip():
            self.transcript.notice("Type a command after ! (or !! to keep it from the model).")
            return
        self.transcript.user(text)
        message = await self.session.run_user_bash(command.strip(), exclude_from_context=exclude)
        self.transcript.bash_execution(message)

    async def _command(self, command: InteractiveCommand, arguments: str) -> None:
        await command.run(self, arguments)

    def after_work(self) -> None:
        editor_text = self.editor_offer
        if editor_text is not None:
            self.editor_offer = None
            if not self.editor.text:
                self.editor.text = editor_text
                self.editor.cursor_position = len(editor_text)
        self.refresh_footer()

    def extension_keys(self) -> KeyBindingsBase:
        """The extensions' shortcuts as key bindings, made again when the shortcuts change
        (an extension may register one later); each warning about one is shown once."""
        shortcuts = tuple(self.session.extensions.shortcuts)
        same = len(shortcuts) == len(self._shortcuts) and all(
            a is b for a, b in zip(shortcuts, self._shortcuts, strict=True)
        )
        if not same:
            plan = plan_shortcuts(shortcuts, reserved_sequences())
            for warning in plan.warnings:
                if warning not in self._shortcut_warnings:
                    self._shortcut_warnings.add(warning)
                    self.transcript.notice(warning, "warning")
            self._shortcuts = shortcuts
            self._shortcut_keys = shortcut_bindings(self, plan.bound, self._editing)
        return self._shortcut_keys

    def run_shortcut(self, shortcut: Shortcut) -> None:
        """An extension's shortcut was pressed: its handler runs beside any run."""
        self._spawn(self.session.extensions.run_shortcut(shortcut))

    def run_command(self, name: str, arguments: str = "") -> None:
        """Run one of the interactive commands as if typed (a key's shortcut for it)."""
        command = self.commands[name]
        self._spawn(self._command(command, arguments), main=not command.concurrent)

    def cycle_model(self) -> None:
        """Ctrl+P: the next model that has credentials."""

        async def cycle() -> None:
            chosen = await self.session.cycle_model()
            if chosen is None:
                self.transcript.notice("No other model has credentials (see /model).")
            else:
                self.transcript.notice(f"Model: {chosen.key} (thinking {self.session.thinking})")

        self._spawn(cycle())

    def stop(self) -> None:
        """Esc: stop the run (its partial answer stays); queued messages come back to the
        editor."""
        queued = self.session.agent.clear_queues()
        self.session.abort()
        texts = [message_text(getattr(m, "content", "")) for m in queued]
        texts = [t for t in texts if t.strip()]
        if texts:
            restored = "\n".join(texts)
            self.editor.text = (self.editor.text + "\n" + restored).strip("\n")
        self.refresh()

    def quit(self) -> None:
        if self.busy:
            self.session.abort()
        if self.app.is_running:
            self.app.exit(result=0)

    # --- the session's events ----------------------------------------------------------------

    def on_event(self, event: SessionEvent) -> None:
        try:
            self._sync_width()
            self.transcript.handle(event)
            # The footer's figures change with a reply (usage, cost) or a compaction; summing
            # them on every event would walk the whole session for each tool result.
            reply = isinstance(event, MessageEnd) and isinstance(event.message, AssistantMessage)
            if reply or isinstance(event, AgentSettled | CompactionEnd):
                self.refresh_footer()
        except Exception as error:  # showing it must never break the run itself
            if not self._display_failed:
                self._display_failed = True
                self.print(f"pith: cannot show an event ({type(error).__name__}: {error})\n")
        self.refresh()

    def attach(self, session: AgentSession) -> None:
        """Listen to `session` (again, after /new or /resume replaced its tree)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.session = session
        self._unsubscribe = session.subscribe(self.on_event)

    # --- main -------------------------------------------------------------------------------

    async def run(self, first: str | None = None, rest: Sequence[str] = ()) -> int:
        self.attach(self.session)
        self.welcome()
        self.refresh_footer()
        spinner = asyncio.get_running_loop().create_task(self._animate())
        if first is not None:
            queued = [first, *rest]

            async def send_all() -> None:
                for text in queued:
                    await self._prompt(text)

            self.app.pre_run_callables.append(lambda: self._spawn(send_all(), main=True))
        loop = asyncio.get_running_loop()
        watched = []
        for signum in (signal.SIGTERM, signal.SIGHUP):
            # The terminal closed, or someone asked pith to stop: stop the run, keep the session.
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signum, self.quit)
                watched.append(signum)
        try:
            result = await self.app.run_async()
        finally:
            for signum in watched:
                loop.remove_signal_handler(signum)
            spinner.cancel()
            if self.busy:
                self.session.abort()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self.session.wait_for_idle(), 5)
            if self._unsubscribe is not None:
                self._unsubscribe()
        return result or 0

    async def _animate(self) -> None:
        while True:
            await asyncio.sleep(0.1)
            if self.busy or self.transcript.busy:
                self.refresh()

    def welcome(self) -> None:
        from pith import __version__

        store = self.session.store
        where = str(store.path) if store.path is not None else "not saved (--no-session)"
        lines = _dim(
            f"pith {__version__} · {self.session.model.key} · session {where}\n"
            "Enter sends · Alt+Enter queues a follow-up · Esc stops · /help lists commands · "
            "Ctrl+D quits"
        )
        self.print(self.painter.render(lines))
        self.extension_keys()  # what is wrong with a shortcut is said at start
        messages = self.session.messages
        if messages:
            self.replay(messages)

    def replay(self, messages: Sequence[object], count: int = _REPLAY_MESSAGES) -> None:
        """Show the end of a resumed conversation (its last `count` messages)."""
        from pith.app.modes.interactive._replay import replay_messages

        shown = messages[-count:] if count > 0 else []
        if len(messages) > len(shown):
            self.print(
                self.painter.render(
                    _dim(f"… {len(messages) - len(shown)} earlier messages (/tree to browse)")
                )
            )
        replay_messages(self.transcript, shown)


async def _ask_alone(
    title: str, options: Sequence[str] | None, placeholder: str | None
) -> int | str | None:
    if options is not None:
        from pith.app.modes.interactive._choose import choose

        return await choose(title, options)
    from prompt_toolkit import PromptSession

    try:
        answer: str = await PromptSession[str]().prompt_async(
            f"{title}\n› ", default=placeholder or ""
        )
    except (EOFError, KeyboardInterrupt):
        return None
    return answer


def _dim(text: str) -> Text:
    return Text(text, style="dim")


def _history(agent_dir: Path) -> History:
    path = agent_dir / "prompt-history"
    try:
        agent_dir.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)
    except OSError:
        return InMemoryHistory()
    return FileHistory(str(path))
