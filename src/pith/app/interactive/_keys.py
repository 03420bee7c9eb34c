"""The interactive mode's keys (docs/interactive.md, "Keys"): what each does depends on
whether a question is on screen (`asking`) and whether it wants typed text."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

if TYPE_CHECKING:
    from pith.app.interactive._app import InteractiveApp

__all__ = ["key_bindings"]


def key_bindings(app: InteractiveApp, asking: Condition, typing_answer: Condition) -> KeyBindings:

    keys = KeyBindings()
    editing = ~asking
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
        if now - app.last_ctrl_c < 1.5:
            app.quit()
        else:
            app.last_ctrl_c = now
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
