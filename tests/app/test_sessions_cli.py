"""Sessions from the command line: continue, fork, no-session, names, listing, `pith context`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pith.testing import FakeServer, configure_agent_dir, subprocess_env


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "work").mkdir()
    return subprocess_env(tmp_path / "agent")


def configure(tmp_path: Path, server: FakeServer) -> None:
    configure_agent_dir(tmp_path / "agent", server)


def pith(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pith", *args],
        cwd=tmp_path / "work",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def session_files(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "agent" / "sessions").glob("*/*.jsonl"))


def test_continue_sends_the_earlier_conversation(tmp_path: Path, env: dict[str, str]) -> None:
    script = {
        "turns": [
            {"text": "Noted: 42."},
            {"text": "It was 42.", "expect": ["the number is 42", "Noted: 42."]},
        ]
    }
    with FakeServer(script) as server:
        configure(tmp_path, server)
        first = pith(tmp_path, env, "-p", "--model", "fake/m", "the number is 42")
        second = pith(tmp_path, env, "-p", "--model", "fake/m", "-c", "which number?")
        assert server.problems() == []
    assert first.stdout == "Noted: 42.\n"
    assert second.stdout == "It was 42.\n"
    files = session_files(tmp_path)
    assert len(files) == 1
    cwd_folder = files[0].parent.name
    assert cwd_folder == "--" + str(tmp_path / "work").lstrip("/").replace("/", "-") + "--"


def test_no_session_writes_nothing(tmp_path: Path, env: dict[str, str]) -> None:
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        configure(tmp_path, server)
        result = pith(tmp_path, env, "-p", "--model", "fake/m", "--no-session", "hi")
    assert result.returncode == 0
    assert session_files(tmp_path) == []


def test_sessions_lists_name_entries_and_first_request(tmp_path: Path, env: dict[str, str]) -> None:
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        configure(tmp_path, server)
        pith(tmp_path, env, "-p", "--model", "fake/m", "-n", "bug hunt", "find the bug")
    listing = pith(tmp_path, env, "sessions")
    assert listing.returncode == 0
    assert "bug hunt" in listing.stdout
    rows = [
        json.loads(line) for line in pith(tmp_path, env, "sessions", "--json").stdout.splitlines()
    ]
    assert rows[0]["name"] == "bug hunt"
    assert rows[0]["firstMessage"] == "find the bug"


def test_fork_continues_in_a_new_file_that_points_back(tmp_path: Path, env: dict[str, str]) -> None:
    script = {"turns": [{"text": "one"}, {"text": "two", "expect": ["first request", "one"]}]}
    with FakeServer(script) as server:
        configure(tmp_path, server)
        pith(tmp_path, env, "-p", "--model", "fake/m", "first request")
        original = session_files(tmp_path)[0]
        session_id = original.stem.split("_", 1)[1]
        result = pith(
            tmp_path, env, "-p", "--model", "fake/m", "--fork", session_id[:13], "and now?"
        )
        assert server.problems() == []
    assert result.returncode == 0, result.stderr
    files = session_files(tmp_path)
    assert len(files) == 2
    fork = next(path for path in files if path != original)
    header = json.loads(fork.read_text().splitlines()[0])
    assert header["parentSession"] == str(original)
    assert len(original.read_text().splitlines()) < len(fork.read_text().splitlines())


def test_resume_without_a_terminal_lists_and_exits(tmp_path: Path, env: dict[str, str]) -> None:
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        configure(tmp_path, server)
        pith(tmp_path, env, "-p", "--model", "fake/m", "something to resume")
        result = pith(tmp_path, env, "--model", "fake/m", "-r")
    assert result.returncode == 0
    assert "something to resume" in result.stdout
    assert "--session ID" in result.stderr


def test_session_flags_cannot_be_combined(tmp_path: Path, env: dict[str, str]) -> None:
    with FakeServer({"turns": []}) as server:
        configure(tmp_path, server)
        result = pith(tmp_path, env, "-p", "--model", "fake/m", "-c", "--no-session", "x")
    assert result.returncode == 2
    assert "--continue and --no-session cannot be combined" in result.stderr


def test_context_shows_the_next_request_with_estimates(tmp_path: Path, env: dict[str, str]) -> None:
    script = {
        "turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}}]},
            {"text": "done"},
        ]
    }
    with FakeServer(script) as server:
        configure(tmp_path, server)
        pith(tmp_path, env, "-p", "--model", "fake/m", "say hi")
    text = pith(tmp_path, env, "context")
    assert text.returncode == 0, text.stderr
    assert "Next request for fake/m (window 128,000 tokens)" in text.stdout
    assert "tools (4): read, bash, edit, write" in text.stdout
    assert "[bash] 'hi'" in text.stdout
    report = json.loads(pith(tmp_path, env, "context", "--json").stdout)
    roles = [item["message"]["role"] for item in report["messages"]]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    assert report["systemPrompt"]["text"].startswith("You are pith")
    assert report["totalTokens"] == report["systemPrompt"]["tokens"] + sum(
        tool["tokens"] for tool in report["tools"]
    ) + sum(item["tokens"] for item in report["messages"])
    # Looking never writes.
    before = session_files(tmp_path)[0].read_bytes()
    pith(tmp_path, env, "context", "--model", "fake/m")
    assert session_files(tmp_path)[0].read_bytes() == before


def test_a_locked_session_names_the_holder(tmp_path: Path, env: dict[str, str]) -> None:
    from pith.session import SessionStore

    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        configure(tmp_path, server)
        pith(tmp_path, env, "-p", "--model", "fake/m", "hello")
        path = session_files(tmp_path)[0]
        with SessionStore.open(path):
            result = pith(tmp_path, env, "-p", "--model", "fake/m", "--session", str(path), "again")
    assert result.returncode == 2
    assert f"pid {os.getpid()}" in result.stderr
