"""The interactive terminal mode: an inline prompt_toolkit application under the scroll-back
(the layout is `_screen`'s).

`InteractiveApp` ties the parts together: the screen, the transcript of the session's events,
the keys and the extensions' shortcuts, the terminal commands, and the work the user starts.

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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindingsBase, merge_key_bindings

from pith.agent import MessageEnd
from pith.ai import AssistantMessage
from pith.app.modes.interactive._commands import InteractiveCommand, interactive_commands
from pith.app.modes.interactive._complete import (
    CommandInfo,
    EditorCompleter,
    completes_while_typing,
)
from pith.app.modes.interactive._dialog import Question
from pith.app.modes.interactive._footer import FooterData, compaction_totals, session_cost
from pith.app.modes.interactive._format import Painter
from pith.app.modes.interactive._keys import ExtensionKeys, key_bindings
from pith.app.modes.interactive._screen import Screen, dim
from pith.app.modes.interactive._transcript import Transcript, message_text
from pith.app.modes.interactive._work import Work
from pith.app.session import BUILTINS, AgentSettled, CompactionEnd, SessionEvent, split_command

if TYPE_CHECKING:
    from pith.app.session import AgentSession
    from pith.extensions import Shortcut

__all__ = ["InteractiveApp"]

Typed = tuple[str, bytes]
"""Text typed before the editor was up, and the raw keys typed after it."""

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
        self.painter = Painter(_columns(), color=color)
        self.editor_offer: str | None = None
        """Text a command handed back for the user to edit and send (`/fork`'s message, a
        message chosen in `/tree`); the editor takes it once the work is done."""
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
        self.commands: dict[str, InteractiveCommand] = interactive_commands()
        session.command_output = lambda command, text: self.print(text)
        session.editor_offer = self.offer_editor_text
        self.editor = Buffer(
            multiline=True,
            history=history or _history(agent_dir),
            completer=EditorCompleter(self._command_infos, session.cwd),
            complete_while_typing=Condition(
                lambda: completes_while_typing(self.editor.document.text_before_cursor)
            ),
            enable_history_search=False,
            tempfile_suffix=".md",  # Ctrl+G: the external editor sees Markdown
        )
        self.work = Work(
            notice=lambda text: self.transcript.notice(text, "error"),
            after=self.after_work,
            refresh=self.refresh,
        )
        self.shortcut_keys = ExtensionKeys(
            lambda: self.session.extensions.shortcuts,
            run=self.run_shortcut,
            warn=lambda warning: self.transcript.notice(warning, "warning"),
        )
        self.screen = Screen(
            editor=self.editor,
            painter=self.painter,
            live=self.transcript.live,
            busy=lambda: self.busy,
            queued=lambda: self.session.agent.queued(),
            keys=self._keys,
        )

    def _keys(self, asking: Condition, typing_answer: Condition) -> KeyBindingsBase:
        return merge_key_bindings(
            [key_bindings(self, asking, typing_answer), self.shortcut_keys.key_bindings(~asking)]
        )

    # --- the screen -------------------------------------------------------------------------

    @property
    def question(self) -> Question | None:
        return self.screen.question

    @property
    def answer(self) -> Buffer:
        return self.screen.answer

    def print(self, text: str) -> None:
        """Write finished output above the live area, into the scroll-back."""
        self.screen.print(text)

    def write_raw(self, text: str) -> None:
        self.screen.write_raw(text)

    def refresh(self) -> None:
        self.screen.refresh()

    def set_status(self, key: str, text: str | None) -> None:
        self.screen.set_status(key, text)

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
        return await self.screen.ask(
            title, options, initial=initial, placeholder=placeholder, timeout=timeout
        )

    def refresh_footer(self) -> None:
        session = self.session
        model = session.model
        count, tokens = compaction_totals(session.store.get_branch())
        self.screen.footer = FooterData(
            model=model.key,
            thinking=session.thinking,
            # As the compaction threshold sees it: the last reply's reported input, plus an
            # estimate of what came after it.
            context_tokens=session.context_tokens(),
            context_window=model.context_window,
            cost=session_cost(session.store.entries),
            compactions=count,
            compacted_tokens=tokens,
            statuses=self.screen.statuses,
            session_name=session.store.name,
        )
        self.refresh()

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

    # --- running things ---------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.work.main_running or self.session.agent.is_running or self.session.summarizing

    def submit(self, text: str, *, follow_up: bool) -> None:
        if not text.strip():
            return
        self.editor.append_to_history()
        self.editor.reset()
        stripped = text.strip()
        if stripped.startswith("!"):
            self.work.spawn(self._bash(stripped))
            return
        if text[0].isspace() and stripped.startswith("/"):
            stripped = " " + stripped  # a leading space: the text as it is, never a command
        parts = split_command(stripped)
        command = self.commands.get(parts[0]) if parts else None
        if command is not None and parts is not None:
            self.work.spawn(self._command(command, parts[1]), main=not command.concurrent)
            return
        if self.session.agent.is_running:
            invocation = self.session.find_invocation(stripped)
            is_command = invocation is not None and invocation.kind not in ("template", "skill")
            if not is_command:
                self.work.spawn(
                    self.session.send_user_message(stripped, "follow_up" if follow_up else "steer")
                )
                self.refresh()
                return
        if self.work.main_running and not stripped.startswith("/"):
            self.transcript.notice(
                "Wait for the current command to finish, or press Esc.", "warning"
            )
            self.editor.text = text
            return
        self.work.spawn(self._prompt(stripped), main=not self.session.agent.is_running)

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

    def offer_editor_text(self, text: str) -> None:
        """Text to edit and send again, from a command an extension ran: the editor takes it
        now when nothing runs, else once the work is done."""
        self.editor_offer = text
        if not self.work.main_running:
            self.after_work()
            self.refresh()

    def after_work(self) -> None:
        editor_text = self.editor_offer
        if editor_text is not None:
            self.editor_offer = None
            if not self.editor.text:
                self.editor.text = editor_text
                self.editor.cursor_position = len(editor_text)
        self.refresh_footer()

    def run_shortcut(self, shortcut: Shortcut) -> None:
        """An extension's shortcut was pressed: its handler runs beside any run."""
        self.work.spawn(self.session.extensions.run_shortcut(shortcut))

    def run_command(self, name: str, arguments: str = "") -> None:
        """Run one of the interactive commands as if typed (a key's shortcut for it)."""
        command = self.commands[name]
        self.work.spawn(self._command(command, arguments), main=not command.concurrent)

    def cycle_model(self) -> None:
        """Ctrl+P: the next model that has credentials."""

        async def cycle() -> None:
            chosen = await self.session.cycle_model()
            if chosen is None:
                self.transcript.notice("No other model has credentials (see /model).")
            else:
                self.transcript.notice(f"Model: {chosen.key} (thinking {self.session.thinking})")

        self.work.spawn(cycle())

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
        if self.screen.app.is_running:
            self.screen.app.exit(result=0)

    # --- the session's events ----------------------------------------------------------------

    def on_event(self, event: SessionEvent) -> None:
        try:
            self.screen.sync_width()
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

    async def run(
        self, first: str | None = None, rest: Sequence[str] = (), *, typed: Typed | None = None
    ) -> int:
        """`typed`: what was typed before the editor was up, its text and the keys after it
        (raw terminal input), taken as if typed into the editor now."""
        self.attach(self.session)
        self.welcome()
        self.refresh_footer()
        if typed is not None:
            self._take_typed(*typed)
        spinner = asyncio.get_running_loop().create_task(self._animate())
        if first is not None:
            queued = [first, *rest]

            async def send_all() -> None:
                for text in queued:
                    await self._prompt(text)

            self.screen.app.pre_run_callables.append(lambda: self.work.spawn(send_all(), main=True))
        loop = asyncio.get_running_loop()
        watched = []
        for signum in (signal.SIGTERM, signal.SIGHUP):
            # The terminal closed, or someone asked pith to stop: stop the run, keep the session.
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signum, self.quit)
                watched.append(signum)
        try:
            result = await self.screen.app.run_async()
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

    def _take_typed(self, text: str, keys: bytes) -> None:
        if text:
            self.editor.text = text
            self.editor.cursor_position = len(text)
        if keys:
            from prompt_toolkit.input.typeahead import store_typeahead
            from prompt_toolkit.input.vt100_parser import Vt100Parser
            from prompt_toolkit.key_binding import KeyPress

            presses: list[KeyPress] = []
            parser = Vt100Parser(presses.append)
            parser.feed(keys.decode("utf-8", "replace"))
            parser.flush()
            store_typeahead(self.screen.app.input, presses)  # the app reads these first

    async def _animate(self) -> None:
        while True:
            await asyncio.sleep(0.1)
            if self.busy or self.transcript.busy:
                self.refresh()

    def welcome(self) -> None:
        from pith._version import __version__

        store = self.session.store
        where = str(store.path) if store.path is not None else "not saved (--no-session)"
        lines = dim(
            f"pith {__version__} · {self.session.model.key} · session {where}\n"
            "Enter sends · Alt+Enter queues a follow-up · Esc stops · /help lists commands · "
            "Ctrl+D quits"
        )
        self.print(self.painter.render(lines))
        self.shortcut_keys.bound()  # what is wrong with a shortcut is said at start
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
                    dim(f"… {len(messages) - len(shown)} earlier messages (/tree to browse)")
                )
            )
        replay_messages(self.transcript, shown)


def _columns() -> int:
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns
    except OSError:
        return 80


def _history(agent_dir: Path) -> History:
    path = agent_dir / "prompt-history"
    try:
        agent_dir.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)
    except OSError:
        return InMemoryHistory()
    return FileHistory(str(path))
