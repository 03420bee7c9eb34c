"""MarkdownStream: what of a growing reply is final (blank lines, closed fences) and what is
still the live tail."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pith.app.modes.interactive._stream import MarkdownStream, fence_of


def feed(text: str, size: int) -> tuple[list[str], str]:
    """The pieces handed out while `text` arrives `size` characters at a time, and the tail."""
    stream = MarkdownStream()
    pieces = [stream.append(text[i : i + size]) for i in range(0, len(text), size)]
    return [p for p in pieces if p], stream.tail


def test_a_blank_line_makes_the_paragraph_before_it_final() -> None:
    stream = MarkdownStream()
    assert stream.append("First paragraph,\nstill first.") == ""
    assert stream.append("\n\nSecond") == "First paragraph,\nstill first.\n\n"
    assert stream.tail == "Second"


def test_a_line_without_its_newline_is_not_judged_yet() -> None:
    stream = MarkdownStream()
    assert stream.append("one\n") == ""
    assert stream.append("   ") == ""  # a blank line only once its newline arrives
    assert stream.append("\n") == "one\n   \n"


def test_a_backtick_fence_with_blank_lines_is_never_cut_inside() -> None:
    text = "```python\ndef f():\n\n    return 1\n\n\n```\nafter"
    for size in (1, 2, 5, len(text)):
        pieces, tail = feed(text, size)
        assert pieces == ["```python\ndef f():\n\n    return 1\n\n\n```\n"], size
        assert tail == "after"


def test_a_tilde_fence_is_not_closed_by_backticks() -> None:
    stream = MarkdownStream()
    assert stream.append("~~~\ncode\n```\n\nmore code\n") == ""
    assert stream.in_fence
    assert stream.append("~~~\n") == "~~~\ncode\n```\n\nmore code\n~~~\n"
    assert not stream.in_fence


def test_a_fence_closes_only_with_a_run_at_least_as_long() -> None:
    stream = MarkdownStream()
    assert stream.append("````\n```\n\n") == ""
    assert stream.in_fence
    assert stream.append("`````\n") == "````\n```\n\n`````\n"


def test_a_fence_line_with_an_info_string_does_not_close_the_fence() -> None:
    stream = MarkdownStream()
    stream.append("```\nx\n")
    assert stream.append("```python\n\n") == ""
    assert stream.in_fence


def test_text_before_a_fence_is_cut_at_its_blank_line() -> None:
    pieces, tail = feed("Intro.\n\n```\na\n\nb\n```\n\nOutro", 3)
    assert pieces[:2] == ["Intro.\n\n", "```\na\n\nb\n```\n"]
    assert tail.strip() == "Outro"


def test_finish_hands_out_the_tail_and_starts_over() -> None:
    stream = MarkdownStream()
    stream.append("```\nunclosed\n\n")
    assert stream.finish() == "```\nunclosed\n\n"
    assert stream.tail == ""
    assert not stream.in_fence
    assert stream.append("next\n\n") == "next\n\n"


def test_fence_of_reads_the_run_and_ignores_indented_code() -> None:
    assert fence_of("```js") == "```"
    assert fence_of("  ~~~~") == "~~~~"
    assert fence_of("    ```") is None
    assert fence_of("``") is None
    assert fence_of("text ```") is None


@given(
    st.lists(st.sampled_from(["a", " ", "\n", "```", "~~~", "`", "x y", "\n\n"]), max_size=40),
    st.integers(min_value=1, max_value=7),
)
def test_the_pieces_and_the_rest_are_the_whole_text(parts: list[str], size: int) -> None:
    text = "".join(parts)
    stream = MarkdownStream()
    out = [stream.append(text[i : i + size]) for i in range(0, len(text), size)]
    assert "".join(out) + stream.finish() == text


@given(
    st.lists(st.sampled_from(["p", "\n", "\n\n", "```\n", "~~~\n", "````\n", "q\n"]), max_size=30),
    st.integers(min_value=1, max_value=5),
)
def test_nothing_handed_out_ends_inside_an_open_fence(parts: list[str], size: int) -> None:
    text = "".join(parts)
    stream = MarkdownStream()
    final = ""
    for i in range(0, len(text), size):
        final += stream.append(text[i : i + size])
        check = MarkdownStream()
        check.append(final)
        assert not check.in_fence, final
