"""The Python API examples in examples/sdk/, run as scripts against the fake model server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pith.testing import FakeServer, configure_agent_dir, subprocess_env

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sdk"


def run_example(
    tmp_path: Path, name: str, turns: list[dict[str, object]], *args: str
) -> tuple[subprocess.CompletedProcess[str], Path, FakeServer]:
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("one\ntwo\n")
    with FakeServer({"turns": turns}) as server:
        agent = configure_agent_dir(tmp_path / "agent", server)
        done = subprocess.run(
            [sys.executable, str(EXAMPLES / name), *args],
            cwd=work,
            env=subprocess_env(agent),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    return done, work, server


def test_ask_prints_the_answer_and_where_the_session_is(tmp_path: Path) -> None:
    done, _, server = run_example(tmp_path, "ask.py", [{"text": "It holds notes."}], "what is here")
    assert done.stdout == "It holds notes.\n"
    assert "saved in" in done.stderr
    assert "what is here" in str(server.requests[0]["body"])


def test_stream_shows_the_text_and_each_tool_call(tmp_path: Path) -> None:
    turns = [
        {"tool_calls": [{"name": "ls", "arguments": {"path": "."}}]},
        {"text": "One file."},
    ]
    done, _, _ = run_example(tmp_path, "stream.py", turns)
    assert "[ls {'path': '.'}]" in done.stdout
    assert "[ls: notes.txt]" in done.stdout
    assert done.stdout.rstrip().endswith("One file.")


def test_sessions_resumes_reports_forks_and_exports(tmp_path: Path) -> None:
    turns = [
        {"text": "Caches, counting, indexes."},
        {"text": "Caches."},
        {"match": ["least known"], "unless": ['Caches."'], "text": "Counting."},
    ]
    done, work, server = run_example(tmp_path, "sessions.py", turns)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("next request: 4 messages, ~")
    assert lines[1] == "forked before 'Which is the most common?'"
    assert lines[2] == "Counting."
    assert lines[3].startswith("exported to pith-session-")
    assert (work / lines[3].removeprefix("exported to ")).is_file()
    assert server.state()["problems"] == []
