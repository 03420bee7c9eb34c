"""A question asked while the interactive editor is not up (project trust at start, an
extension asking as it starts): a one-off inline list, or a one-line prompt, that disappears
once answered."""

from __future__ import annotations

from collections.abc import Sequence

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import FormattedTextControl, Layout, Window

from pith.app.modes.interactive._dialog import Question

__all__ = ["ask_alone", "choose"]


async def choose(title: str, options: Sequence[str]) -> int | None:
    """The index the user picked, None when they pressed Esc or Ctrl+C."""
    question = Question(title, list(options))

    def text() -> FormattedText:
        rows = [(style, line + "\n") for style, line in question.lines(12)]
        rows.append(("italic", "↑↓ to move · Enter to choose · Esc to cancel"))
        return FormattedText(rows)

    keys = KeyBindings()

    @keys.add("<any>")
    def _(event: KeyPressEvent) -> None:
        # A long list narrows as you type (added first: the keys below take precedence).
        if question.filterable and event.data.isprintable():
            question.type(event.data)

    @keys.add("backspace")
    def _(event: KeyPressEvent) -> None:
        question.erase()

    @keys.add("up")
    def _(event: KeyPressEvent) -> None:
        question.move(-1)

    @keys.add("down")
    def _(event: KeyPressEvent) -> None:
        question.move(1)

    @keys.add("enter")
    def _(event: KeyPressEvent) -> None:
        shown = question.matches()
        if shown:
            event.app.exit(result=question.index if question.index in shown else shown[0])

    @keys.add("escape")
    @keys.add("c-c")
    def _(event: KeyPressEvent) -> None:
        event.app.exit(result=None)

    app: Application[int | None] = Application(
        layout=Layout(Window(FormattedTextControl(text), dont_extend_height=True)),
        key_bindings=keys,
        full_screen=False,
        erase_when_done=True,
    )
    return await app.run_async()


async def ask_alone(
    title: str, options: Sequence[str] | None, placeholder: str | None
) -> int | str | None:
    """A choice among `options` (its index), or with None a typed line; None when cancelled."""
    if options is not None:
        return await choose(title, options)
    from prompt_toolkit import PromptSession

    try:
        answer: str = await PromptSession[str]().prompt_async(
            f"{title}\n› ", default=placeholder or ""
        )
    except (EOFError, KeyboardInterrupt):
        return None
    return answer
