"""The totals scan counts newlines and UTF-8 bytes exactly, on every kind of string."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pith.tools._textscan import scan, scan_python, utf8_len

# One-, two- and four-byte-wide strings, lone surrogates, and runs long enough to cross chunks.
PIECES = [
    "a",
    "\n",
    "é",
    "ÿ",
    "\x80",
    "߿",
    "ࠀ",
    "日",
    "\uffff",
    "😀",
    "\U0010ffff",
    "\ud800",
    "\udfff",
]
pieces = st.sampled_from(PIECES)
runs = st.tuples(pieces, st.integers(min_value=1, max_value=5000)).map(lambda run: run[0] * run[1])
texts = st.lists(st.one_of(pieces, runs), max_size=30).map("".join)


def _expected(text: str) -> tuple[int, int]:
    return text.count("\n"), len(text.encode("utf-8", "surrogatepass"))


@settings(max_examples=400, deadline=None)
@given(texts)
def test_python_scan_counts_newlines_and_bytes(text: str) -> None:
    assert scan_python(text) == _expected(text)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_the_chosen_scan_and_utf8_len_agree(text: str) -> None:
    assert scan(text) == _expected(text)
    assert utf8_len(text) == _expected(text)[1]


def test_a_text_over_the_chunk_size_is_counted_whole() -> None:
    text = ("é\n" * 700_000) + "日" + "\ud800"
    assert scan_python(text) == _expected(text)
