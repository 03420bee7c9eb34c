"""`pith batch` end to end on this machine: real processes, the fake model server over HTTP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pith.testing import FakeServer
from tests.batch.helpers import (
    agent_env,
    reply,
    rows,
    rows_by_id,
    run_batch,
    write_call,
    write_tasks,
)


@pytest.fixture
def source(tmp_path: Path) -> Path:
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "app.py").write_text("print('helo')\n")
    return folder


def test_parallel_tasks_each_in_their_own_workspace(tmp_path: Path, source: Path) -> None:
    script = {
        "turns": [
            write_call("a", "app.py", "print('hello')\n"),
            reply("a", "Fixed."),
            write_call("b", "notes.txt", "b was here\n"),
            reply("b", "Noted."),
            reply("c", "Nothing to do.", usage={"input": 100, "output": 10}),
        ]
    }
    # a and b meet at a barrier in their setups: each waits (a minute at most, then fails)
    # until both have started, which only two tasks at once can do.
    started = tmp_path / "started"
    started.mkdir()

    def barrier(name: str) -> str:
        wait = f"until [ $(ls {started} | wc -l) -ge 2 ]; do n=$((n+1)); [ $n -lt 1200 ] || exit 1"
        return f"touch {started}/{name}; n=0; {wait}; sleep 0.05; done"

    tasks = write_tasks(
        tmp_path / "tasks.jsonl",
        [
            {
                "id": "a",
                "cwd": "src",
                "prompt": "[a] fix the typo",
                "check": "grep -q hello app.py",
                "setup": barrier("a"),
            },
            {
                "id": "b",
                "cwd": "src",
                "prompt": "[b] take notes",
                "setup": f"{barrier('b')}; echo set > setup.flag",
            },
            {"id": "c", "cwd": "src", "prompt": "[c] look"},
        ],
    )
    out = tmp_path / "out"
    with FakeServer(script) as server:
        done = run_batch(tasks, out, agent_env(tmp_path, server), "--workers", "2")
        assert server.unused_turns() == []
    assert done.returncode == 0, done.stderr
    by_id = rows_by_id(out)
    assert sorted(by_id) == ["a", "b", "c"]
    for task_id, row in by_id.items():
        assert row["status"] == "done"
        assert row["exit"] == 0
        assert row["engine"] == "local"
        assert isinstance(row["pid"], int)
        assert row["host"]
        assert set(row["usage"]) == {"input", "output", "cacheRead", "cacheWrite", "cost"}
        assert (out / task_id / "session.jsonl").is_file()
    assert by_id["a"]["check"] == {"command": "grep -q hello app.py", "exit": 0}
    assert by_id["c"]["check"] is None
    assert by_id["c"]["usage"]["input"] == 100
    assert (out / "a" / "stdout.txt").read_text() == "Fixed.\n"
    assert "+print('hello')" in (out / "a" / "diff.patch").read_text()
    # setup's own files are not the agent's changes
    patch_b = (out / "b" / "diff.patch").read_text()
    assert "notes.txt" in patch_b
    assert "setup.flag" not in patch_b
    assert (out / "c" / "diff.patch").read_text() == ""
    assert (source / "app.py").read_text() == "print('helo')\n"
    assert sorted(p.name for p in source.iterdir()) == ["app.py"]
    assert "3 done" in done.stdout
    assert "c: done" in done.stderr  # the progress line, one per finished task off a terminal


def test_the_session_opens_with_pith_export_and_context(tmp_path: Path, source: Path) -> None:
    tasks = write_tasks(tmp_path / "tasks.jsonl", [{"id": "a", "cwd": "src", "prompt": "[a] hi"}])
    out = tmp_path / "out"
    with FakeServer({"turns": [reply("a", "Hello.")]}) as server:
        env = agent_env(tmp_path, server)
        assert run_batch(tasks, out, env).returncode == 0
        session = str(out / "a" / "session.jsonl")
        pith = [sys.executable, "-m", "pith"]
        page = tmp_path / "page.html"
        exported = subprocess.run(
            [*pith, "export", session, "-o", str(page)], capture_output=True, text=True, env=env
        )
        assert exported.returncode == 0, exported.stderr
        assert "Hello." in page.read_text()
        context = subprocess.run(
            [*pith, "context", "--session", session, "--model", "fake/m", "--json"],
            capture_output=True,
            text=True,
            env=env,
            cwd=out / "a" / "workspace",
        )
        assert context.returncode == 0, context.stderr
        assert "[a] hi" in context.stdout


def test_a_failing_check_and_a_model_error(tmp_path: Path, source: Path) -> None:
    script = {
        "turns": [
            reply("ok", "Done."),
            {"match": ["[bad]"], "fault": {"status": 400, "message": "bad request, no retry"}},
        ]
    }
    tasks = write_tasks(
        tmp_path / "tasks.jsonl",
        [
            {"id": "ok", "cwd": "src", "prompt": "[ok] go", "check": "echo checking; exit 3"},
            {"id": "bad", "cwd": "src", "prompt": "[bad] go", "check": "true"},
        ],
    )
    out = tmp_path / "out"
    with FakeServer(script) as server:
        done = run_batch(tasks, out, agent_env(tmp_path, server), "--json")
    assert done.returncode == 1
    by_id = rows_by_id(out)
    assert by_id["ok"]["status"] == "failed"
    assert by_id["ok"]["check"] == {"command": "echo checking; exit 3", "exit": 3}
    assert (out / "ok" / "check.txt").read_text() == "checking\n"
    assert by_id["bad"]["status"] == "error"
    assert by_id["bad"]["exit"] not in (0, None)
    assert by_id["bad"]["check"] == {"command": "true", "exit": None}  # not run
    assert "bad request" in (out / "bad" / "stderr.txt").read_text()
    summary = json.loads(done.stdout)
    assert summary["statuses"]["failed"] == 1
    assert summary["statuses"]["error"] == 1
    assert {row["id"] for row in summary["tasks"]} == {"ok", "bad"}


def test_a_timeout_stops_the_agent_and_what_it_started(tmp_path: Path, source: Path) -> None:
    command = "sleep 600 & echo $! > sleeper.pid; wait"
    script = {
        "turns": [
            {
                "match": ["[slow]"],
                "tool_calls": [{"name": "bash", "arguments": {"command": command}}],
            },
        ]
    }
    tasks = write_tasks(
        tmp_path / "tasks.jsonl", [{"id": "slow", "cwd": "src", "prompt": "[slow] wait"}]
    )
    out = tmp_path / "out"
    with FakeServer(script) as server:
        done = run_batch(tasks, out, agent_env(tmp_path, server), "--timeout", "5")
    assert done.returncode == 1
    row = rows_by_id(out)["slow"]
    assert row["status"] == "timeout"
    assert row["exit"] is None
    sleeper = int((out / "slow" / "workspace" / "sleeper.pid").read_text())
    assert not _alive(sleeper)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie waiting for its reaper is gone for our purpose
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(") ")[1][0] != "Z"


def test_a_rerun_skips_done_tasks_and_reruns_the_others(tmp_path: Path, source: Path) -> None:
    tasks = write_tasks(
        tmp_path / "tasks.jsonl",
        [
            {"id": "a", "cwd": "src", "prompt": "[a] go"},
            {"id": "b", "cwd": "src", "prompt": "[b] go", "check": "test -f fixed.txt"},
        ],
    )
    out = tmp_path / "out"
    with FakeServer({"turns": [reply("a", "A."), reply("b", "B, not fixed.")]}) as server:
        first = run_batch(tasks, out, agent_env(tmp_path, server))
    assert first.returncode == 1
    assert {r["id"]: r["status"] for r in rows(out)} == {"a": "done", "b": "failed"}
    (out / "b" / "leftover.txt").write_text("from the first attempt")
    script = {"turns": [write_call("b", "fixed.txt", "yes\n"), reply("b", "B fixed.")]}
    with FakeServer(script) as server:
        second = run_batch(tasks, out, agent_env(tmp_path, server))
        requests = server.requests
    assert second.returncode == 0, second.stderr
    assert all("[a]" not in json.dumps(r["body"]) for r in requests)
    statuses = [(r["id"], r["status"]) for r in rows(out)]
    assert sorted(statuses[:2]) == [("a", "done"), ("b", "failed")]
    assert statuses[2:] == [("b", "done")]
    assert not (out / "b" / "leftover.txt").exists()
    assert "1 already done" in second.stdout


def test_a_bad_tasks_file_runs_nothing(tmp_path: Path, source: Path) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('{"id": "a", "cwd": "src", "prompt": "[a] go"}\n\n{"id": "b", "cwd": "src"}\n')
    out = tmp_path / "out"
    with FakeServer({"turns": [reply("a", "A.")]}) as server:
        done = run_batch(tasks, out, agent_env(tmp_path, server))
        assert server.requests == []
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"pith: {tasks}:3: missing 'prompt' (required: id, cwd, prompt)"
    ]
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--no-session",), "--no-session does not apply to a batch"),
        (("--list-models",), "--list-models does not apply to a batch"),
        (("--mode", "json"), "--mode does not apply to a batch"),
        (("--cpus-per-task", "2"), "--cpus-per-task goes with --ray"),
    ],
)
def test_options_that_do_not_apply_are_refused(
    tmp_path: Path, source: Path, args: tuple[str, ...], message: str
) -> None:
    tasks = write_tasks(tmp_path / "tasks.jsonl", [{"id": "a", "cwd": "src", "prompt": "p"}])
    with FakeServer({"turns": []}) as server:
        done = run_batch(tasks, tmp_path / "out", agent_env(tmp_path, server), *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_max_cost_stops_starting_tasks(tmp_path: Path, source: Path) -> None:
    tasks = write_tasks(
        tmp_path / "tasks.jsonl",
        [{"id": name, "cwd": "src", "prompt": f"[{name}] go"} for name in ("a", "b", "c")],
    )
    out = tmp_path / "out"
    turns = [reply(n, "ok", usage={"input": 1_000_000, "output": 0}) for n in ("a", "b", "c")]
    with FakeServer({"turns": turns}) as server:
        env = agent_env(tmp_path, server, cost={"input": 1.0, "output": 1.0})
        done = run_batch(tasks, out, env, "--workers", "1", "--max-cost", "0.5")
    assert done.returncode == 1
    assert [(r["id"], r["status"], r["usage"]["cost"]) for r in rows(out)] == [("a", "done", 1.0)]
    assert "2 not started" in done.stdout
    assert "stopped: max cost" in done.stdout
