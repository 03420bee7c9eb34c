"""Questions shown in place of the editor: moving, jumping, choosing, cancelling, and the
window of options kept on screen."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from pith.app.modes.interactive._dialog import Question, visible_window

FOUR = ["a", "b", "c", "d"]


def answered(act: Callable[[Question], None], options: list[str] | None = FOUR) -> object:
    async def scenario() -> object:
        question = Question("Pick one", options)
        act(question)
        return await asyncio.wait_for(question.future, 1)

    return asyncio.run(scenario())


def test_moving_stops_at_both_ends() -> None:
    def act(q: Question) -> None:
        q.move(-1)
        assert q.index == 0
        q.move(10)
        assert q.index == 3
        q.move(-2)
        q.choose()

    assert answered(act) == 1


def test_jump_is_clamped_to_the_options() -> None:
    def act(q: Question) -> None:
        q.jump(99)
        assert q.index == 3
        q.jump(-5)
        assert q.index == 0
        q.jump(2)
        q.choose()

    assert answered(act) == 2


def test_cancel_answers_none_and_a_later_choice_is_ignored() -> None:
    def act(q: Question) -> None:
        q.cancel()
        q.choose()

    assert answered(act) is None


def test_the_first_answer_wins() -> None:
    def act(q: Question) -> None:
        q.choose()
        q.move(1)
        q.choose()
        q.cancel()

    assert answered(act) == 0


def test_a_text_question_answers_with_what_was_typed() -> None:
    def act(q: Question) -> None:
        assert q.is_input
        q.move(1)  # no options: nothing to move
        q.choose("because")

    assert answered(act, options=None) == "because"


def test_visible_window_keeps_the_selection_in_view() -> None:
    assert visible_window(5, 4, 10) == (0, 5)
    assert visible_window(100, 0, 10) == (0, 10)
    assert visible_window(100, 50, 10) == (45, 55)
    assert visible_window(100, 99, 10) == (90, 100)
    for index in range(100):
        start, end = visible_window(100, index, 7)
        assert start <= index < end
        assert end - start == 7


def test_lines_show_the_selection_and_how_many_more_there_are() -> None:
    async def scenario() -> list[tuple[str, str]]:
        question = Question("Title\nsecond line", [f"option {n}" for n in range(20)], index=10)
        return question.lines(4)

    rows = asyncio.run(scenario())
    assert [text for _, text in rows] == [
        "Title",
        "second line",
        "  ↑ 8 more",
        "  option 8",
        "  option 9",
        "❯ option 10",
        "  option 11",
        "  ↓ 8 more",
    ]
    assert rows[5][0] == "class:dialog.selected"


MONTHS = [
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
]  # fmt: skip


def test_a_long_list_narrows_as_you_type_and_answers_with_the_original_index() -> None:
    def act(q: Question) -> None:
        assert q.filterable
        q.type("BER")  # case-insensitive, anywhere in the option
        assert [MONTHS[i] for i in q.matches()] == [
            "September",
            "October",
            "November",
            "December",
        ]
        assert q.index == 8  # the selection follows to the first match
        q.move(2)
        q.last()
        q.move(-1)
        q.choose()

    assert answered(act, MONTHS) == 10  # November


def test_backspace_widens_the_filter_and_nothing_matching_chooses_nothing() -> None:
    async def scenario() -> object:
        question = Question("Pick one", MONTHS)
        question.type("xyz")
        question.choose()  # nothing matches: no answer yet
        assert not question.future.done()
        rows = question.lines(5)
        assert ("class:dialog.more", "  filter: xyz") in rows
        assert rows[-1][1] == "  (nothing matches; Backspace to widen)"
        for _ in range(3):
            question.erase()
        question.type("jun")
        question.first()
        question.choose()
        return await asyncio.wait_for(question.future, 1)

    assert asyncio.run(scenario()) == 5


def test_a_short_list_does_not_filter() -> None:
    async def scenario() -> None:
        assert not Question("Pick", FOUR).filterable
        assert not Question("Type", None).filterable

    asyncio.run(scenario())


def test_options_are_cut_to_the_width_one_row_each() -> None:
    async def scenario() -> list[tuple[str, str]]:
        return Question("Pick", ["short", "a very long option " * 5]).lines(10, 20)

    rows = asyncio.run(scenario())
    assert rows[1] == ("class:dialog.selected", "❯ short")
    assert rows[2][1] == "  a very long optio…"
    assert all(len(text) <= 20 for _, text in rows[1:])
