"""The read tool: head policy, continuation notices, streaming selection, clear errors."""

from __future__ import annotations

import asyncio
import base64
import io
import struct
import sys
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pith.agent import AbortController, ToolError
from pith.ai import ImageContent
from pith.tools import _line_select
from pith.tools._line_select import select_lines
from pith.tools._truncate import truncate_head

from .conftest import RunTool


def _naive(text: str, start: int, limit: int | None) -> tuple[int, dict[str, object]]:
    lines = text.split("\n")
    end = None if limit is None else min(start + limit, len(lines))
    truncation = truncate_head("\n".join(lines[start:end]))
    return len(lines), {
        "content": truncation.content,
        "truncated": truncation.truncated,
        "by": truncation.truncated_by,
        "total_lines": truncation.total_lines,
        "total_bytes": truncation.total_bytes,
        "output_lines": truncation.output_lines,
        "first": truncation.first_line_exceeds_limit,
    }


pieces = st.sampled_from(["a", "é", "😀", "\n", "\n", "\n\n", "x" * 300, "\r\n", ""])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(pieces, max_size=400).map("".join),
    st.integers(min_value=0, max_value=50),
    st.one_of(st.none(), st.integers(min_value=0, max_value=60)),
    st.sampled_from([3, 7, 64, 1 << 20]),
)
def test_streamed_selection_equals_splitting_the_whole_text(
    text: str, start: int, limit: int | None, chunk: int
) -> None:
    original = _line_select.CHUNK_SIZE
    _line_select.CHUNK_SIZE = chunk
    try:
        selection = select_lines(io.BytesIO(text.encode()), start, limit, AbortController().signal)
    finally:
        _line_select.CHUNK_SIZE = original
    total, expected = _naive(text, start, limit)
    truncation = selection.truncation
    assert selection.total_file_lines == total
    assert {
        "content": truncation.content,
        "truncated": truncation.truncated,
        "by": truncation.truncated_by,
        "total_lines": truncation.total_lines,
        "total_bytes": truncation.total_bytes,
        "output_lines": truncation.output_lines,
        "first": truncation.first_line_exceeds_limit,
    } == expected


def test_streamed_selection_past_the_caps_counts_every_line(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_text("".join(f"line {n}\n" for n in range(300_000)))
    with big.open("rb") as handle:
        selection = select_lines(handle, 10, None, AbortController().signal)
    assert selection.total_file_lines == 300_001
    assert selection.truncation.output_lines == 2000
    assert selection.truncation.total_lines == 299_990


def test_line_cap_notice_gives_the_next_offset(run_tool: RunTool, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("".join(f"{n}\n" for n in range(1, 3001)))
    text = run_tool("read", path="f.txt").text()
    assert text.endswith("2000\n\n[Showing lines 1-2000 of 3001. Use offset=2001 to continue.]")


def test_user_limit_notice_counts_the_remaining_lines(run_tool: RunTool, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\nb\nc\nd\n")
    assert run_tool("read", path="f.txt", offset=2, limit=2).text() == (
        "b\nc\n\n[2 more lines in file. Use offset=4 to continue.]"
    )


def test_offset_beyond_the_end_is_an_error(run_tool: RunTool, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\nb\n")
    result = run_tool("read", path="f.txt", offset=9)
    assert result.is_error
    assert result.text() == "Offset 9 is beyond end of file (3 lines total)"


def test_a_huge_first_line_points_to_bash(run_tool: RunTool, tmp_path: Path) -> None:
    (tmp_path / "min.js").write_text("x" * 60_000 + "\nnext\n")
    assert run_tool("read", path="min.js").text() == (
        "[Line 1 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '1p' min.js | head -c 51200]"
    )


def test_missing_file_and_directory_get_clear_errors(run_tool: RunTool, tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    missing = run_tool("read", path="nope.txt")
    assert missing.is_error
    assert missing.text() == "File not found: nope.txt"
    directory = run_tool("read", path="dir")
    assert directory.text() == "dir is a directory, not a file. Use ls to list it."


def test_binary_files_are_refused_with_a_hint(run_tool: RunTool, tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"\x7fELF\x00\x01\x02" + bytes(range(256)))
    result = run_tool("read", path="blob.bin")
    assert result.is_error
    assert result.text().startswith("blob.bin is a binary file (")
    assert "xxd blob.bin" in result.text()


def test_invalid_utf8_is_shown_with_replacements_and_a_note(
    run_tool: RunTool, tmp_path: Path
) -> None:
    (tmp_path / "latin1.txt").write_bytes("café\n".encode("latin-1"))
    text = run_tool("read", path="latin1.txt").text()
    assert text.startswith("caf\ufffd\n")
    assert "not valid UTF-8" in text


def test_at_prefix_is_stripped(run_tool: RunTool, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("hello")
    assert run_tool("read", path="@f.txt").text() == "hello"


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def test_images_become_image_blocks(run_tool: RunTool, tmp_path: Path) -> None:
    data = _png(4, 3)
    (tmp_path / "dot.png").write_bytes(data)
    result = run_tool("read", path="dot.png")
    assert result.text() == "Read image file [image/png]"
    image = result.content[1]
    assert isinstance(image, ImageContent)
    assert base64.b64decode(image.data) == data


def test_large_images_are_resized_with_a_coordinate_hint(run_tool: RunTool, tmp_path: Path) -> None:
    (tmp_path / "wide.png").write_bytes(_png(3000, 10))
    result = run_tool("read", path="wide.png")
    assert (
        "[Image: original 3000x10, displayed at 2000x7. Multiply coordinates by 1.50"
        in result.text()
    )


def test_abort_stops_a_long_read(tmp_path: Path) -> None:
    from pith.tools import ReadTool

    (tmp_path / "f.txt").write_text("x\n" * 10)
    controller = AbortController()
    controller.abort()
    tool = ReadTool(str(tmp_path))
    with pytest.raises(ToolError, match=r"^Operation aborted$"):
        asyncio.run(tool.execute("c", {"path": "f.txt"}, controller.signal, None))


def test_without_pillow_small_images_pass_and_others_get_a_note(
    run_tool: RunTool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "PIL", None)  # as if Pillow were not installed
    (tmp_path / "small.png").write_bytes(_png(4, 3))
    assert isinstance(run_tool("read", path="small.png").content[1], ImageContent)
    bmp = (
        b"BM"
        + struct.pack("<IHHI", 58, 0, 0, 54)
        + struct.pack("<IiiHHIIiiII", 40, 1, 1, 1, 24, 0, 4, 0, 0, 0, 0)
        + b"\x00" * 4
    )
    (tmp_path / "pic.bmp").write_bytes(bmp)
    result = run_tool("read", path="pic.bmp")
    assert len(result.content) == 1
    assert "needs Pillow" in result.text()
    assert "pip install 'pith-agent[images]'" in result.text()


def test_os_errors_become_one_line_messages() -> None:
    import errno

    from pith.tools._files import describe_os_error

    denied = PermissionError(errno.EACCES, "Permission denied")
    assert describe_os_error(denied, "secret.txt", "read") == (
        "Permission denied: cannot read secret.txt"
    )
    full = OSError(errno.ENOSPC, "No space left on device")
    assert describe_os_error(full, "big.log", "write") == (
        "No space left on device while trying to write big.log"
    )
