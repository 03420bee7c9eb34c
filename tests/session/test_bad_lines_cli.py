"""Session files holding what pith never writes: a line nested too deep, a huge number, a FIFO.
One line is skipped and named; the rest of the session (and of the folder) still opens."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pith.testing import FakeServer, configure_agent_dir, subprocess_env

BAD_LINES = [
    ('{"type": "custom", "data": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested more than"),
    ('{"type": "custom", "id": "x", "n": ' + "7" * 5000 + "}", "a number longer than 1000"),
]


def pith(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pith", *args],
        cwd=tmp_path / "work",
        env=subprocess_env(tmp_path / "agent"),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def folder(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    name = "--" + str(work).lstrip("/").replace("/", "-") + "--"
    path = tmp_path / "agent" / "sessions" / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def write_session(path: Path, session_id: str, cwd: Path, extra: list[str]) -> None:
    lines = [
        {
            "type": "session",
            "version": 3,
            "id": session_id,
            "timestamp": "2025-01-01T00:00:00.000Z",
            "cwd": str(cwd),
        },
        {
            "type": "message",
            "id": "a1",
            "parentId": None,
            "timestamp": "2025-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": f"hello from {session_id}", "timestamp": 1},
        },
    ]
    path.write_text("\n".join([*map(json.dumps, lines), *extra]) + "\n")


@pytest.mark.parametrize(("line", "reason"), BAD_LINES)
def test_one_bad_line_does_not_hide_the_folder_s_other_sessions(
    tmp_path: Path, line: str, reason: str
) -> None:
    sessions = folder(tmp_path)
    write_session(sessions / "a.jsonl", "aaaa", tmp_path / "work", [line])
    write_session(sessions / "b.jsonl", "bbbb", tmp_path / "work", [])
    result = pith(tmp_path, "sessions")
    assert result.returncode == 0, result.stderr
    assert "hello from aaaa" in result.stdout
    assert "hello from bbbb" in result.stdout
    assert "internal error" not in result.stderr


@pytest.mark.parametrize(("line", "reason"), BAD_LINES)
def test_opening_a_session_with_a_bad_line_names_it_and_goes_on(
    tmp_path: Path, line: str, reason: str
) -> None:
    path = folder(tmp_path) / "a.jsonl"
    write_session(path, "aaaa", tmp_path / "work", [line])
    before = path.read_bytes()
    with FakeServer({"turns": [{"text": "hi again", "expect": ["hello from aaaa"]}]}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        result = pith(tmp_path, "-p", "--model", "fake/m", "--session", str(path), "again")
        assert server.problems() == []
    assert result.returncode == 0, result.stderr
    assert f"{path}:3: {reason}" in result.stderr
    assert "line skipped" in result.stderr
    assert path.read_bytes().startswith(before)  # the line is kept in the file


def test_a_fifo_named_as_the_session_is_refused_without_waiting(tmp_path: Path) -> None:
    path = folder(tmp_path) / "pipe.jsonl"
    os.mkfifo(path)
    with FakeServer({"turns": []}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        result = pith(tmp_path, "-p", "--model", "fake/m", "--session", str(path), "hi")
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "not a regular file (a FIFO)" in result.stderr


def test_a_fifo_in_the_sessions_folder_does_not_stop_the_listing(tmp_path: Path) -> None:
    sessions = folder(tmp_path)
    os.mkfifo(sessions / "pipe.jsonl")
    write_session(sessions / "b.jsonl", "bbbb", tmp_path / "work", [])
    result = pith(tmp_path, "sessions")
    assert result.returncode == 0, result.stderr
    assert "hello from bbbb" in result.stdout
