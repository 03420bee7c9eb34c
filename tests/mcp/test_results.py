"""Converting MCP answers: the cap, its marker and file, and block kinds, without a server."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import mcp_types as types

from pith.ai import ImageContent, TextContent
from pith.mcp._log import format_log_line, write_log
from pith.mcp._results import MAX_TEXT_BYTES, cap_content, convert_result


def test_text_within_the_cap_is_untouched() -> None:
    blocks: list[TextContent | ImageContent] = [TextContent(text="x" * MAX_TEXT_BYTES)]
    details: dict[str, object] = {}
    assert cap_content(blocks, details) == blocks
    assert details == {}


def test_the_cut_keeps_characters_whole_and_images_after() -> None:
    text = "é" * MAX_TEXT_BYTES  # two bytes each: twice the cap
    image = ImageContent(data="AAAA", mime_type="image/png")
    details: dict[str, object] = {}
    capped = cap_content([TextContent(text=text), image], details)
    assert capped[1] == image
    first = capped[0]
    assert isinstance(first, TextContent)
    head, rest = first.text.split("\n…[", 1)
    assert set(head) == {"é"}
    assert len(head.encode()) <= MAX_TEXT_BYTES // 2
    assert Path(str(details["fullOutputPath"])).read_text() == text
    cut = details["truncated"]
    assert isinstance(cut, dict)
    assert rest.startswith(f"{cut['cutChars']} characters cut]…\n")
    assert cut["totalChars"] == len(text)


def test_several_text_blocks_are_capped_together() -> None:
    result = types.CallToolResult(
        content=[types.TextContent(text="a" * 15_000), types.TextContent(text="b" * 15_000)]
    )
    converted = convert_result(result, server="s", tool="t")
    [block] = converted.content
    assert isinstance(block, TextContent)
    assert block.text.startswith("a" * 10_240)
    full = Path(converted.details["fullOutputPath"]).read_text()
    assert full == "a" * 15_000 + "\n" + "b" * 15_000


def test_structured_content_is_text_only_when_there_is_none() -> None:
    with_text = types.CallToolResult(
        content=[types.TextContent(text="21.5 C")], structured_content={"celsius": 21.5}
    )
    assert convert_result(with_text, server="s", tool="t").text() == "21.5 C"
    only = types.CallToolResult(content=[], structured_content={"celsius": 21.5})
    converted = convert_result(only, server="s", tool="t")
    assert converted.text() == '{\n  "celsius": 21.5\n}'
    assert converted.structured == {"celsius": 21.5}


def test_log_lines_and_rotation(tmp_path: Path) -> None:
    moment = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    line = format_log_line("git", "info", "server", "two\nlines", moment)
    assert line == "2026-01-02T03:04:05.000+00:00 [git] info server: two\\nlines\n"
    assert format_log_line("git", "debug", None, {"k": 1}, moment).endswith(
        '[git] debug -: {"k": 1}\n'
    )
    for _ in range(3):
        write_log(tmp_path, line, max_bytes=len(line) * 2)
    assert (tmp_path / "mcp.log").read_text() == line
    assert (tmp_path / "mcp.log.1").read_text() == line * 2
