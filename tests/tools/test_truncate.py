"""Truncation invariants people rely on: caps are never exceeded, characters never split."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pith.tools._truncate import (
    count_lines,
    format_size,
    truncate_head,
    truncate_line,
    truncate_tail,
    utf8_len,
)

texts = st.lists(
    st.sampled_from(["a", "é", "日", "😀", "\n", "\r\n", " ", "\t", "word"]), max_size=120
).map("".join)
caps = st.tuples(st.integers(min_value=1, max_value=30), st.integers(min_value=1, max_value=60))


@settings(max_examples=400)
@given(texts, caps)
def test_head_keeps_a_prefix_of_whole_lines_within_both_caps(
    text: str, cap: tuple[int, int]
) -> None:
    max_lines, max_bytes = cap
    result = truncate_head(text, max_lines=max_lines, max_bytes=max_bytes)
    assert text.startswith(result.content)
    assert utf8_len(result.content) == result.output_bytes
    if result.truncated:
        assert result.output_lines <= max_lines
        assert result.output_bytes <= max_bytes
        rest = text[len(result.content) :]
        # Never half a line: whole lines, or nothing when the first line is over the cap.
        assert rest == "" or rest.startswith("\n") or result.first_line_exceeds_limit


@settings(max_examples=400)
@given(texts, caps)
def test_tail_keeps_a_suffix_within_both_caps(text: str, cap: tuple[int, int]) -> None:
    max_lines, max_bytes = cap
    result = truncate_tail(text, max_lines=max_lines, max_bytes=max_bytes)
    body = text[:-1] if text.endswith("\n") and result.truncated else text
    assert body.endswith(result.content) or text.endswith(result.content)
    if result.truncated:
        assert result.output_bytes <= max_bytes
        assert result.output_lines <= max_lines
        result.content.encode("utf-8")  # strict: raises on half a character


@given(texts)
def test_totals_count_every_line_and_byte(text: str) -> None:
    result = truncate_tail(text, max_lines=3, max_bytes=10)
    assert result.total_bytes == len(text.encode("utf-8"))
    assert result.total_lines == count_lines(text)


def test_tail_keeps_utf8_suffix_when_last_line_exceeds_cap() -> None:
    text = "start\n" + "😀" * 10
    result = truncate_tail(text, max_bytes=6)
    assert result.last_line_partial
    assert result.content == "😀"  # 6 bytes back lands inside an emoji; move to the next one
    assert result.output_bytes == 4


def test_head_reports_a_first_line_over_the_cap_instead_of_cutting_it() -> None:
    result = truncate_head("x" * 100 + "\nshort", max_bytes=50)
    assert result.first_line_exceeds_limit
    assert result.content == ""


def test_trailing_newline_does_not_count_as_a_line() -> None:
    assert count_lines("a\nb\n") == 2
    assert count_lines("a\nb") == 2
    assert count_lines("") == 0
    assert count_lines("\n") == 1


def test_crlf_lines_keep_their_carriage_returns() -> None:
    result = truncate_head("a\r\nb\r\nc\r\n", max_lines=2)
    assert result.content == "a\r\nb\r"


def test_format_size_rounds_half_up_like_javascript() -> None:
    assert format_size(1280) == "1.3KB"  # 1.25 exactly; Python's round-half-even would say 1.2
    assert format_size(51200) == "50.0KB"
    assert format_size(1023) == "1023B"
    assert format_size(1024 * 1024 * 3 // 2) == "1.5MB"


def test_truncate_line_counts_utf16_units_and_never_splits_a_pair() -> None:
    line = "x" * 499 + "😀" + "tail"
    cut = truncate_line(line)
    assert cut.was_truncated
    assert cut.text == "x" * 499 + "... [truncated]"


def test_tail_of_a_huge_input_is_bounded_by_the_cap() -> None:
    text = ("line of output\n" * 2_000_000) + "last"
    result = truncate_tail(text)
    assert result.truncated_by == "lines"
    assert result.content.endswith("last")
    assert result.output_lines == 2000
