"""The interactive mode's keys (docs/interactive.md, "Keys"): what each does depends on
whether a question is on screen (`asking`) and whether it wants typed text. Extensions'
shortcuts are bound beside them (`shortcut_bindings`), never over a key of `RESERVED_KEYS`."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence

from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.key_binding import (
    DynamicKeyBindings,
    KeyBindings,
    KeyBindingsBase,
    KeyPressEvent,
)

from pith.app.modes.interactive._host import KeyHost
from pith.app.modes.interactive._shortcuts import KeySequence, parse_key, plan_shortcuts
from pith.extensions import Shortcut

__all__ = [
    "RESERVED_KEYS",
    "ExtensionKeys",
    "key_bindings",
    "reserved_sequences",
    "shortcut_bindings",
]

RESERVED_KEYS: dict[str, str] = {
    # pith's keys (the table in docs/interactive.md)
    "enter": "sending the message",
    "alt+enter": "queueing a follow-up",
    "ctrl+j": "a new line",
    "up": "moving up or to earlier messages",
    "down": "moving down or to later messages",
    "pageup": "moving in a list",
    "pagedown": "moving in a list",
    "tab": "completing",
    "escape": "stopping the run",
    "ctrl+g": "writing the message in your editor",
    "shift+tab": "the next thinking level",
    "ctrl+p": "the next model",
    "ctrl+l": "choosing the model",
    "ctrl+o": "showing the last tool output",
    "ctrl+t": "showing or hiding thinking",
    "ctrl+c": "clearing the editor and quitting",
    "ctrl+d": "quitting",
    "ctrl+z": "going back to the shell",
    # the editor's line editing
    "left": "moving the cursor",
    "right": "moving the cursor",
    "home": "going to the start of the line",
    "end": "going to the end of the line",
    "backspace": "deleting a character",
    "delete": "deleting a character",
    "ctrl+a": "going to the start of the line",
    "ctrl+e": "going to the end of the line",
    "ctrl+b": "moving the cursor",
    "ctrl+f": "moving the cursor",
    "alt+b": "moving a word back",
    "alt+f": "moving a word on",
    "ctrl+left": "moving a word back",
    "ctrl+right": "moving a word on",
    "ctrl+k": "deleting to the end of the line",
    "ctrl+u": "deleting to the start of the line",
    "ctrl+w": "deleting the word before the cursor",
    "alt+d": "deleting the next word",
    "alt+backspace": "deleting the word before the cursor",
    "ctrl+y": "pasting what was deleted",
}
"""Keys no extension shortcut takes, and what each does (for the warning)."""


def reserved_sequences() -> dict[KeySequence, str]:
    """`RESERVED_KEYS` by key sequence (`ctrl+m` and `enter` are the same key)."""
    return {parse_key(name): what for name, what in RESERVED_KEYS.items()}


def shortcut_bindings(
    bound: Sequence[tuple[KeySequence, Shortcut]],
    editing: Filter,
    run: Callable[[Shortcut], None],
) -> KeyBindings:
    """Each shortcut on its keys, while no question is on screen: `run` starts the extension's
    handler beside whatever is going on (a run keeps running)."""
    keys = KeyBindings()
    for sequence, shortcut in bound:

        @keys.add(*sequence, filter=editing)
        def _(event: KeyPressEvent, shortcut: Shortcut = shortcut) -> None:
            run(shortcut)

    return keys


class ExtensionKeys:
    """The extensions' shortcuts as key bindings, planned again when the shortcuts change (an
    extension may register one later); each warning about one is given once."""

    def __init__(
        self,
        shortcuts: Callable[[], Iterable[Shortcut]],
        *,
        run: Callable[[Shortcut], None],
        warn: Callable[[str], None],
    ) -> None:
        self._shortcuts_now = shortcuts
        self._run = run
        self._warn = warn
        self._shortcuts: tuple[Shortcut, ...] = ()
        """The shortcuts `_bound` was planned for."""
        self._bound: list[tuple[KeySequence, Shortcut]] = []
        self._warned: set[str] = set()

    def bound(self) -> list[tuple[KeySequence, Shortcut]]:
        """The keys each shortcut gets; the same list while the shortcuts stay the same."""
        shortcuts = tuple(self._shortcuts_now())
        same = len(shortcuts) == len(self._shortcuts) and all(
            a is b for a, b in zip(shortcuts, self._shortcuts, strict=True)
        )
        if not same:
            plan = plan_shortcuts(shortcuts, reserved_sequences())
            for warning in plan.warnings:
                if warning not in self._warned:
                    self._warned.add(warning)
                    self._warn(warning)
            self._shortcuts = shortcuts
            self._bound = plan.bound
        return self._bound

    def key_bindings(self, editing: Filter) -> KeyBindingsBase:
        """Bindings that follow the shortcuts, made again only when they change."""
        made: tuple[list[tuple[KeySequence, Shortcut]], KeyBindingsBase] | None = None

        def current() -> KeyBindingsBase:
            nonlocal made
            bound = self.bound()
            if made is None or made[0] is not bound:
                made = (bound, shortcut_bindings(bound, editing, self._run))
            return made[1]

        return DynamicKeyBindings(current)


def key_bindings(app: KeyHost, asking: Condition, typing_answer: Condition) -> KeyBindings:

    keys = KeyBindings()
    editing = ~asking
    last_ctrl_c = 0.0  # when Ctrl+C last hit an empty, idle editor (twice within 1.5 s quits)
    long_list = Condition(lambda: app.question is not None and app.question.filterable)

    @keys.add("<any>", filter=asking & ~typing_answer & long_list)
    def _(event: KeyPressEvent) -> None:
        # A long list narrows as you type (added first: the keys below take precedence).
        assert app.question is not None
        if event.data.isprintable():
            app.question.type(event.data)

    @keys.add("enter", filter=editing)
    def _(event: KeyPressEvent) -> None:
        buffer = app.editor
        state = buffer.complete_state
        if state is not None and state.completions:
            chosen = state.current_completion or state.completions[0]
            if chosen.text != buffer.document.text_before_cursor:
                buffer.apply_completion(chosen)
                return
            buffer.cancel_completion()
        text = buffer.text
        if text.endswith("\\") and buffer.document.is_cursor_at_the_end:
            buffer.delete_before_cursor(1)
            buffer.insert_text("\n")
            return
        app.submit(text, follow_up=False)

    @keys.add("escape", "enter", filter=editing)
    def _(event: KeyPressEvent) -> None:
        if app.busy and app.editor.text.strip():
            app.submit(app.editor.text, follow_up=True)
        else:
            app.editor.insert_text("\n")

    @keys.add("c-j", filter=editing)
    def _(event: KeyPressEvent) -> None:
        app.editor.insert_text("\n")

    @keys.add("escape", filter=editing)
    def _(event: KeyPressEvent) -> None:
        if app.editor.complete_state is not None:
            app.editor.cancel_completion()
        elif app.busy:
            app.stop()

    @keys.add("c-c")
    def _(event: KeyPressEvent) -> None:
        nonlocal last_ctrl_c
        if app.question is not None:
            app.question.cancel()
            return
        if app.editor.text:
            app.editor.reset()
            return
        if app.busy:
            app.stop()
            return
        now = time.monotonic()
        if now - last_ctrl_c < 1.5:
            app.quit()
        else:
            last_ctrl_c = now
            app.transcript.notice("Press Ctrl+C again to quit (or Ctrl+D, or /quit).")

    @keys.add("c-d", filter=editing)
    def _(event: KeyPressEvent) -> None:
        if not app.editor.text:
            app.quit()
        else:
            app.editor.delete()

    @keys.add("c-g", filter=editing)
    def _(event: KeyPressEvent) -> None:
        # The message in $VISUAL / $EDITOR; what is saved there comes back to the editor.
        app.editor.open_in_editor(validate_and_handle=False)

    @keys.add("c-z", filter=editing)
    def _(event: KeyPressEvent) -> None:
        # Back to the shell (`fg` returns); the run, if any, goes on meanwhile.
        event.app.suspend_to_background()

    @keys.add("s-tab", filter=editing)
    def _(event: KeyPressEvent) -> None:
        level = app.session.cycle_thinking_level()
        if level is None:
            app.transcript.notice(f"{app.session.model.key} does not think: thinking stays off.")
        else:
            app.transcript.notice(f"Thinking: {level}")
        app.refresh_footer()

    @keys.add("c-l", filter=editing)
    def _(event: KeyPressEvent) -> None:
        app.run_command("model")  # the model list, as in Pi

    @keys.add("c-p", filter=editing)
    def _(event: KeyPressEvent) -> None:
        app.cycle_model()

    @keys.add("c-o")
    def _(event: KeyPressEvent) -> None:
        app.transcript.expand_last()

    @keys.add("c-t")
    def _(event: KeyPressEvent) -> None:
        app.transcript.show_thinking = not app.transcript.show_thinking
        shown = "shown" if app.transcript.show_thinking else "hidden"
        app.transcript.notice(f"Thinking is {shown}.")

    @keys.add("up", filter=asking & ~typing_answer)
    def _(event: KeyPressEvent) -> None:
        assert app.question is not None
        app.question.move(-1)

    @keys.add("down", filter=asking & ~typing_answer)
    def _(event: KeyPressEvent) -> None:
        assert app.question is not None
        app.question.move(1)

    @keys.add("pageup", filter=asking & ~typing_answer)
    def _(event: KeyPressEvent) -> None:
        assert app.question is not None
        app.question.move(-10)

    @keys.add("pagedown", filter=asking & ~typing_answer)
    def _(event: KeyPressEvent) -> None:
        assert app.question is not None
        app.question.move(10)

    @keys.add("home", filter=asking & ~typing_answer)
    def _(event: KeyPressEvent) -> None:
        assert app.question is not None
        app.question.first()

    @keys.add("end", filter=asking & ~typing_answer)
    def _(event: KeyPressEvent) -> None:
        assert app.question is not None
        app.question.last()

    short_list = Condition(lambda: app.question is not None and not app.question.filterable)
    for digit in "123456789":

        @keys.add(digit, filter=asking & ~typing_answer & short_list)
        def _(event: KeyPressEvent, digit: str = digit) -> None:
            assert app.question is not None
            if int(digit) <= len(app.question.options or []):
                app.question.jump(int(digit) - 1)
                app.question.choose()

    @keys.add("backspace", filter=asking & ~typing_answer & ~short_list)
    def _(event: KeyPressEvent) -> None:
        assert app.question is not None
        app.question.erase()

    @keys.add("enter", filter=asking)
    def _(event: KeyPressEvent) -> None:
        assert app.question is not None
        if app.question.is_input:
            app.question.choose(app.answer.text)
        else:
            app.question.choose()

    @keys.add("escape", filter=asking)
    def _(event: KeyPressEvent) -> None:
        assert app.question is not None
        app.question.cancel()

    return keys
