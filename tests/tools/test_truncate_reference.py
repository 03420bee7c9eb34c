"""`truncate_head` / `truncate_tail` equal a plain, obviously-correct model of Pi's algorithm.

The model below splits the whole text into a list of lines and walks it one line at a time, as
Pi's `truncateHead` / `truncateTail` do; the production code never splits the whole text. Sizes
are UTF-8 with `surrogatepass` (a lone surrogate counts three bytes, as in Pi's `byteLength`).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pith.ai import to_builtins
from pith.tools._truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    truncate_head,
    truncate_tail,
)


def _size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _lines(text: str) -> list[str]:
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def _result(text: str, lines: list[str], max_lines: int, max_bytes: int, **kept: Any) -> Any:
    return {
        "content": text,
        "truncated": False,
        "truncatedBy": None,
        "totalLines": len(lines),
        "totalBytes": _size(text),
        "outputLines": len(lines),
        "outputBytes": _size(text),
        "lastLinePartial": False,
        "firstLineExceedsLimit": False,
        "maxLines": max_lines,
        "maxBytes": max_bytes,
    } | kept


def reference_head(text: str, max_lines: int, max_bytes: int) -> Any:
    lines = _lines(text)
    if len(lines) <= max_lines and _size(text) <= max_bytes:
        return _result(text, lines, max_lines, max_bytes)
    if _size(lines[0]) > max_bytes:
        return _result(
            text,
            lines,
            max_lines,
            max_bytes,
            content="",
            truncated=True,
            truncatedBy="bytes",
            outputLines=0,
            outputBytes=0,
            firstLineExceedsLimit=True,
        )
    kept: list[str] = []
    used = 0
    by = "lines"
    for index, line in enumerate(lines):
        if index >= max_lines:
            break
        size = _size(line) + (1 if index > 0 else 0)
        if used + size > max_bytes:
            by = "bytes"
            break
        kept.append(line)
        used += size
    return _cut(text, lines, max_lines, max_bytes, kept, used, by)


def _cut(
    text: str,
    lines: list[str],
    max_lines: int,
    max_bytes: int,
    kept: list[str],
    used: int,
    by: str,
    **extra: Any,
) -> Any:
    """The result of a truncation that kept the lines `kept` (`used` bytes with newlines)."""
    if len(kept) >= max_lines and used <= max_bytes:
        by = "lines"
    content = "\n".join(kept)
    return _result(
        text,
        lines,
        max_lines,
        max_bytes,
        content=content,
        truncated=True,
        truncatedBy=by,
        outputLines=len(kept),
        outputBytes=_size(content),
        **extra,
    )


def _suffix_bytes(line: str, max_bytes: int) -> str:
    encoded = line.encode("utf-8", "surrogatepass")
    start = len(encoded) - max_bytes
    while start < len(encoded) and encoded[start] & 0xC0 == 0x80:
        start += 1
    return encoded[start:].decode("utf-8", "surrogatepass")


def reference_tail(text: str, max_lines: int, max_bytes: int) -> Any:
    lines = _lines(text)
    if len(lines) <= max_lines and _size(text) <= max_bytes:
        return _result(text, lines, max_lines, max_bytes)
    kept: list[str] = []
    used = 0
    by = "lines"
    partial = False
    for line in reversed(lines):
        if len(kept) >= max_lines:
            break
        size = _size(line) + (1 if kept else 0)
        if used + size > max_bytes:
            by = "bytes"
            if not kept:
                cut = _suffix_bytes(line, max_bytes)
                kept.insert(0, cut)
                used = _size(cut)
                partial = True
            break
        kept.insert(0, line)
        used += size
    return _cut(text, lines, max_lines, max_bytes, kept, used, by, lastLinePartial=partial)


PIECES = ["a", "word ", "é", "日本", "😀", "\n", "\n", "\r\n", "", "\t", "\ud800", "ÿ"]
pieces = st.sampled_from(PIECES)
# A run repeats one piece many times: a single huge line, or thousands of empty ones.
runs = st.tuples(pieces, st.integers(min_value=1, max_value=3000)).map(lambda run: run[0] * run[1])
texts = st.lists(st.one_of(pieces, pieces, runs), max_size=40).map("".join)
small_caps = st.tuples(
    st.integers(min_value=1, max_value=40), st.integers(min_value=1, max_value=80)
)
caps = st.one_of(
    small_caps,
    st.just((DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES)),
    st.tuples(st.integers(min_value=1, max_value=3000), st.integers(min_value=1, max_value=6000)),
)

EDGES = [
    ("", (1, 1)),
    ("\n", (1, 1)),
    ("abc\n", (5, 3)),
    ("é" * 10, (3, 5)),
    ("x\n" + "😀" * 10, (3, 6)),
    ("line\n" * 10, (0, 100)),
    ("a\r\nb\r\nc\r\n", (2, 100)),
    ("\n" * 5000, (DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES)),
    ("日" * 40000, (DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES)),
    ("x" * 60000 + "\n", (DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES)),
]


def _check(text: str, cap: tuple[int, int]) -> None:
    max_lines, max_bytes = cap
    head = truncate_head(text, max_lines=max_lines, max_bytes=max_bytes)
    assert to_builtins(head) == reference_head(text, max_lines, max_bytes)
    tail = truncate_tail(text, max_lines=max_lines, max_bytes=max_bytes)
    assert to_builtins(tail) == reference_tail(text, max_lines, max_bytes)


@settings(max_examples=600, deadline=None)
@given(texts, caps)
def test_head_and_tail_equal_the_reference(text: str, cap: tuple[int, int]) -> None:
    assume(text or min(cap) >= 0)
    _check(text, cap)


@pytest.mark.parametrize(("text", "cap"), EDGES)
def test_edge_cases_equal_the_reference(text: str, cap: tuple[int, int]) -> None:
    _check(text, cap)
