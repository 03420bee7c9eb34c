"""Listing sessions (`pith sessions`, `pith -r`, `/resume`): what each row says, in which order.

A session's time is its newest user or assistant message, as Pi 1.6 dates sessions: the
message's own `timestamp` (epoch ms), else its entry's ISO time; without such a message, the
header's time; only then the file's mtime. So copying or touching a file, or appending a label
or a name to it, does not move it up the list.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from pith.session import list_sessions

T0 = 1_767_261_600_000  # 2026-01-01T10:00:00Z in epoch ms


def _iso(millis: int) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(millis / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _header(session_id: str, millis: int) -> dict[str, object]:
    return {"type": "session", "version": 3, "id": session_id, "timestamp": _iso(millis),
            "cwd": "/w"}  # fmt: skip


def _message(entry_id: str, role: str, millis: int | None, entry_millis: int) -> dict[str, object]:
    message: dict[str, object] = {"role": role, "content": [{"type": "text", "text": entry_id}]}
    if role == "assistant":
        message.update(provider="p", model="m", stopReason="stop")
    if millis is not None:
        message["timestamp"] = millis
    return {"type": "message", "id": entry_id, "parentId": None, "timestamp": _iso(entry_millis),
            "message": message}  # fmt: skip


def _label(entry_id: str, target: str, millis: int) -> dict[str, object]:
    return {"type": "label", "id": entry_id, "parentId": target, "timestamp": _iso(millis),
            "targetId": target, "label": "look here"}  # fmt: skip


def _write(path: Path, lines: list[dict[str, object]], mtime_ms: int | None = None) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    if mtime_ms is not None:
        os.utime(path, (mtime_ms / 1000, mtime_ms / 1000))
    return path


def _order(directory: Path) -> list[str]:
    return [info.path.name for info in list_sessions(directory)]


def test_a_touched_older_session_stays_below_a_newer_one(tmp_path: Path) -> None:
    older = _write(
        tmp_path / "older.jsonl",
        [_header("a", T0), _message("00000001", "user", T0 + 1000, T0 + 1000)],
    )
    _write(
        tmp_path / "newer.jsonl",
        [_header("b", T0 + 5000), _message("00000002", "user", T0 + 6000, T0 + 6000)],
        mtime_ms=T0 + 6000,
    )
    older.touch()  # copied or touched: its mtime is now the newest by far
    assert _order(tmp_path) == ["newer.jsonl", "older.jsonl"]
    dates = {info.path.name: info.modified for info in list_sessions(tmp_path)}
    assert dates == {"newer.jsonl": (T0 + 6000) / 1000, "older.jsonl": (T0 + 1000) / 1000}


def test_a_session_ending_in_a_label_keeps_its_message_time(tmp_path: Path) -> None:
    _write(
        tmp_path / "labelled.jsonl",
        [
            _header("a", T0),
            _message("00000001", "user", T0 + 1000, T0 + 1000),
            _message("00000002", "assistant", T0 + 2000, T0 + 2000),
            _message("00000003", "toolResult", T0 + 9000, T0 + 9000),
            _label("00000004", "00000002", T0 + 9500),
        ],
        mtime_ms=T0 + 9500,
    )
    _write(
        tmp_path / "middle.jsonl",
        [_header("b", T0), _message("00000005", "user", T0 + 3000, T0 + 3000)],
        mtime_ms=T0 + 3000,
    )
    assert _order(tmp_path) == ["middle.jsonl", "labelled.jsonl"]
    [labelled] = [info for info in list_sessions(tmp_path) if info.id == "a"]
    assert labelled.modified == (T0 + 2000) / 1000  # the assistant's, not the tool result's


def test_without_a_message_time_the_entry_time_then_the_header_then_the_mtime(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path / "entry-time.jsonl",
        [_header("a", T0), _message("00000001", "user", None, T0 + 4000)],
        mtime_ms=T0 + 90_000,
    )
    _write(tmp_path / "header-time.jsonl", [_header("b", T0 + 3000)], mtime_ms=T0 + 80_000)
    no_time = {"type": "session", "version": 3, "id": "c", "cwd": "/w"}
    _write(tmp_path / "mtime.jsonl", [no_time], mtime_ms=T0 + 2000)
    dates = {info.path.name: info.modified for info in list_sessions(tmp_path)}
    assert dates == {
        "entry-time.jsonl": (T0 + 4000) / 1000,
        "header-time.jsonl": (T0 + 3000) / 1000,
        "mtime.jsonl": (T0 + 2000) / 1000,
    }
    assert _order(tmp_path) == ["entry-time.jsonl", "header-time.jsonl", "mtime.jsonl"]


def test_pith_sessions_lists_in_that_order(tmp_path: Path) -> None:
    directory = tmp_path / "sessions"
    directory.mkdir()
    older = _write(
        directory / "older.jsonl",
        [_header("a", T0), _message("00000001", "user", T0 + 1000, T0 + 1000)],
    )
    _write(
        directory / "newer.jsonl",
        [_header("b", T0), _message("00000002", "user", T0 + 6000, T0 + 6000)],
        mtime_ms=T0 + 6000,
    )
    older.touch()
    env = {**os.environ, "PITH_AGENT_DIR": str(tmp_path / "agent")}
    done = subprocess.run(
        [sys.executable, "-m", "pith", "sessions", "--session-dir", str(directory), "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(row["id"], row["modified"]) for row in rows] == [
        ("b", (T0 + 6000) / 1000),
        ("a", (T0 + 1000) / 1000),
    ]


def test_the_last_message_in_the_file_dates_it_and_the_look_back_is_bounded(
    tmp_path: Path,
) -> None:
    """The time is read back from the end of the file: the last user or assistant message
    there (messages are appended in time order); past 16 MiB of other lines, the header's."""
    _write(
        tmp_path / "last.jsonl",
        [
            _header("a", T0),
            _message("00000001", "user", T0 + 9000, T0 + 9000),  # a clock that ran ahead
            _message("00000002", "assistant", T0 + 5000, T0 + 5000),
        ],
    )
    far = tmp_path / "far.jsonl"
    _write(far, [_header("b", T0 + 100), _message("00000003", "user", T0 + 7000, T0 + 7000)])
    result = _message("00000004", "toolResult", T0 + 8000, T0 + 8000)
    result["message"]["content"][0]["text"] = "x" * 100_000  # type: ignore[index]
    line = (json.dumps(result) + "\n").encode()
    with open(far, "ab") as handle:
        handle.write(line * (17 * 1024 * 1024 // len(line) + 1))
    dates = {info.path.name: info.modified for info in list_sessions(tmp_path)}
    assert dates == {"last.jsonl": (T0 + 5000) / 1000, "far.jsonl": (T0 + 100) / 1000}
