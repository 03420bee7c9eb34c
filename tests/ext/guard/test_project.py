"""The projection's streaming pieces against plain in-memory references: head/tail as byte
ranges found a block at a time, and the tail of a file of output as the model sees it."""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pith.ext.guard._output_tail import read_tail
from pith.ext.guard._plan import plan_command
from pith.ext.guard._project import in_process_range
from pith.tools._truncate import truncate_tail

_LINE = re.compile(rb"[^\n]*\n|[^\n]+\Z")
_PIECES = st.sampled_from([b"a", b"bc", b"\n", b"\r", b" ", b"\xc3\xa9", b"\xff", b"\xe2\x80\xa8"])


def _reference(view: str, count: int, data: bytes) -> bytes:
    lines = _LINE.findall(data)
    if view == "head -n":
        return b"".join(lines[:count])
    if view == "tail -n +":
        return b"".join(lines[max(count, 1) - 1 :])
    return b"".join(lines[max(len(lines) - count, 0) :]) if count else b""


@settings(max_examples=300, deadline=None)
@given(
    data=st.lists(_PIECES, max_size=40).map(b"".join),
    view=st.sampled_from(["head -n", "tail -n", "tail -n +"]),
    count=st.integers(min_value=0, max_value=8),
    block=st.integers(min_value=1, max_value=9),
    margin=st.integers(min_value=0, max_value=3),
)
def test_head_and_tail_ranges_found_in_small_blocks_cut_where_the_tools_cut(
    data: bytes, view: str, count: int, block: int, margin: int
) -> None:
    text = f"{view}{count}" if view.endswith("+") else f"{view} {count}"
    plan_view = plan_command(f"x | {text}").views[0]
    # the range may sit inside a larger file: bytes around it must not count
    padded = b"\n" * margin + data + b"x\n" * margin
    cut = in_process_range(plan_view, io.BytesIO(padded), margin, margin + len(data), block)
    assert cut is not None
    assert padded[cut[0] : cut[1]] == _reference(view, count, data)


@settings(max_examples=300, deadline=None)
@given(
    data=st.lists(_PIECES, max_size=120).map(b"".join),
    strip=st.booleans(),
    caps=st.sampled_from([(3, 8), (5, 40), (50, 6), (1000, 1000)]),
    start=st.integers(min_value=0, max_value=4),
)
def test_the_tail_read_from_a_file_equals_cutting_the_whole_text(
    tmp_path_factory: pytest.TempPathFactory,
    data: bytes,
    strip: bool,
    caps: tuple[int, int],
    start: int,
) -> None:
    max_lines, max_bytes = caps
    prefix = b"side\n"[:start]
    path = tmp_path_factory.mktemp("tail") / "out"
    path.write_bytes(prefix + data)
    text = data.decode("utf-8", "replace")
    if strip:
        text = text.rstrip()
    expected = truncate_tail(text, max_lines=max_lines, max_bytes=max_bytes)
    tail = read_tail(str(path), len(prefix), strip=strip, max_lines=max_lines, max_bytes=max_bytes)
    assert tail.content == expected.content
    assert tail.truncated == expected.truncated
    assert tail.total_lines == expected.total_lines
    assert tail.output_lines == expected.output_lines
    assert tail.whole in (None, text)
