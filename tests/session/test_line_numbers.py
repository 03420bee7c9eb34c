"""Warnings about bad lines name the right line, however many blocks of lines came before.

Opening counts lines only when a line is bad, so the count must still be right after blocks
that decoded whole, blank lines included.
"""

from __future__ import annotations

import json
from pathlib import Path

from pith.session import SessionStore
from pith.session._lines import BLOCK_BYTES


def _entry(number: int, parent: str | None) -> str:
    message = {"role": "user", "content": "x" * 300, "timestamp": 1}
    return json.dumps(
        {
            "type": "message",
            "id": f"e{number}",
            "parentId": parent,
            "timestamp": "2026-01-01T00:00:00.000Z",
            "message": message,
        }
    )


def test_bad_lines_in_later_blocks_are_named_by_their_line_number(tmp_path: Path) -> None:
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": "t", "cwd": "/w"}
    lines = [json.dumps(header)]
    bad: list[int] = []
    parent = None
    number = 0
    while len(bad) < 3:
        number += 1
        if number % 97 == 0:
            lines.append("")  # a blank line counts as a line
        lines.append(_entry(number, parent))
        parent = f"e{number}"
        if sum(len(line) + 1 for line in lines) > (len(bad) + 1) * 1.5 * BLOCK_BYTES:
            lines.append("{not json")
            bad.append(len(lines))
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with SessionStore.open(path) as store:
        named = [warning.split(":")[1] for warning in store.warnings if "line skipped" in warning]
        assert named == [str(line) for line in bad]
        assert len(store.entries) == number
