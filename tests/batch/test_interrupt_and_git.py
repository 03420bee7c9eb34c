"""Ctrl+C in the middle of a batch, and a git repository as a task's source."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

from pith.testing import FakeServer
from tests.batch.helpers import agent_env, batch_command, reply, rows_by_id, write_call, write_tasks
from tests.batch.test_local_batch import _alive

SLEEP = "sleep 600 & echo $! > sleeper.pid; wait"


def _wait_for(condition: object, what: str, limit: float = 120.0) -> None:
    deadline = time.monotonic() + limit
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def test_ctrl_c_aborts_running_tasks_and_records_them(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    slow = {"name": "bash", "arguments": {"command": SLEEP}}
    script = {
        "turns": [
            reply("fast", "Quick."),
            {"match": ["[slow1]"], "tool_calls": [slow]},
            {"match": ["[slow2]"], "tool_calls": [slow]},
        ]
    }
    names = ["fast", "slow1", "slow2", "later"]
    tasks = write_tasks(
        tmp_path / "tasks.jsonl",
        [{"id": n, "cwd": "src", "prompt": f"[{n}] go", "check": "true"} for n in names],
    )
    out = tmp_path / "out"
    with FakeServer(script) as server:
        process = subprocess.Popen(
            batch_command(tasks, out, "--model", "fake/m", "--workers", "2"),
            env=agent_env(tmp_path, server),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        pids = [out / n / "workspace" / "sleeper.pid" for n in ("slow1", "slow2")]
        _wait_for(lambda: all(p.is_file() and p.read_text().strip() for p in pids), "sleepers")
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    lines = (out / "results.jsonl").read_text().split("\n")
    assert lines[-1] == ""
    parsed = [json.loads(line) for line in lines[:-1]]
    assert {row["id"]: row["status"] for row in parsed} == {
        "fast": "done",
        "slow1": "aborted",
        "slow2": "aborted",
    }
    for row in parsed:
        if row["status"] == "aborted":
            assert row["check"] == {"command": "true", "exit": None}
            assert (out / row["id"] / "diff.patch").is_file()
    for pid in pids:
        assert not _alive(int(pid.read_text()))
    assert "1 not started" in stdout
    assert "stopped: interrupted" in stdout


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def test_a_git_repository_is_cloned_and_left_unchanged(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git("init", "-q", cwd=repo)
    (repo / "app.py").write_text("print('helo')\n")
    (repo / ".gitignore").write_text("build/\n")
    _git("add", "-A", cwd=repo)
    _git("commit", "-qm", "start", cwd=repo)
    (repo / "dirty.txt").write_text("not committed\n")
    head = _git("rev-parse", "HEAD", cwd=repo)
    status = _git("status", "--porcelain", cwd=repo)
    script = {
        "turns": [
            write_call("r", "app.py", "print('hello')\n"),
            {
                "match": ["[r]"],
                "tool_calls": [
                    {
                        "name": "bash",
                        "arguments": {
                            "command": "mkdir build && echo x > build/out && echo n > new.txt"
                        },
                    }
                ],
                "expect": ["Successfully wrote"],
            },
            reply("r", "Done."),
        ]
    }
    tasks = write_tasks(
        tmp_path / "tasks.jsonl",
        [
            {
                "id": "r",
                "cwd": "repo",
                "prompt": "[r] fix",
                "check": "git diff --quiet HEAD && exit 1 || exit 0",
            }
        ],
    )
    out = tmp_path / "out"
    with FakeServer(script) as server:
        done = subprocess.run(
            batch_command(tasks, out, "--model", "fake/m"),
            env=agent_env(tmp_path, server),
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
        )
    assert done.returncode == 0, done.stderr
    assert rows_by_id(out)["r"]["status"] == "done"
    assert _git("rev-parse", "HEAD", cwd=repo) == head
    assert _git("status", "--porcelain", cwd=repo) == status
    assert len(_git("worktree", "list", cwd=repo).splitlines()) == 1
    assert (repo / "app.py").read_text() == "print('helo')\n"
    workspace = out / "r" / "workspace"
    assert _git("rev-parse", "HEAD", cwd=workspace) == head
    assert not (workspace / "dirty.txt").exists()  # the commit, not the source's edits
    patch = (out / "r" / "diff.patch").read_text()
    assert "new.txt" in patch
    assert "build/out" not in patch  # ignored by the repository's .gitignore
    fresh = tmp_path / "fresh"
    _git("clone", "-q", str(repo), str(fresh), cwd=tmp_path)
    _git("apply", str(out / "r" / "diff.patch"), cwd=fresh)
    assert (fresh / "app.py").read_text() == "print('hello')\n"
    assert (fresh / "new.txt").read_text() == "n\n"
