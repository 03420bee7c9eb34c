"""`pith batch --ray`: the same tasks on a local Ray cluster give the rows a local run gives."""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pith.testing import RAY_LOOPBACK, FakeServer, RayStartError, local_ray_cluster
from tests.batch.helpers import (
    agent_env,
    batch_command,
    reply,
    rows_by_id,
    run_batch,
    write_call,
    write_tasks,
)
from tests.batch.test_local_batch import _alive

# One xdist worker takes every test here (scripts/test runs `--dist loadgroup`), so the whole
# suite starts one Ray cluster, not one per worker.
pytestmark = [pytest.mark.ray, pytest.mark.xdist_group("ray")]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def ray_address() -> Iterator[str]:
    """One cluster for the module: starting one takes seconds of both cores."""
    try:
        import ray  # noqa: F401
    except ImportError:
        pytest.fail("Ray is not installed: pip install -e '.[dev,ray]' (scripts/test does)")
    try:
        with local_ray_cluster(num_cpus=2) as address:
            yield address
    except RayStartError as error:
        pytest.fail(str(error))


def _script() -> dict[str, Any]:
    usage = {"input": 50, "output": 5}
    sleep = {"name": "bash", "arguments": {"command": "sleep 600"}}
    return {
        "turns": [
            {**write_call("a", "app.py", "print('hello')\n"), "usage": usage},
            reply("a", "Fixed.", usage=usage),
            reply("b", "Looked.", usage=usage),
            {"match": ["[bad]"], "fault": {"status": 400, "message": "bad request, no retry"}},
            {"match": ["[slow]"], "tool_calls": [sleep], "usage": usage},
        ]
    }


def test_a_ray_run_gives_the_rows_of_a_local_run(tmp_path: Path, ray_address: str) -> None:
    # The local batch's cases on both engines: a done task, a failing check, a model error and
    # a timeout (--timeout leaves the others ample time, the sleeper none).
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("print('helo')\n")
    tasks = write_tasks(
        tmp_path / "tasks.jsonl",
        [
            {"id": "slow", "cwd": "src", "prompt": "[slow] wait"},  # first: the others overlap it
            {"id": "a", "cwd": "src", "prompt": "[a] fix", "check": "grep -q hello app.py"},
            {"id": "b", "cwd": "src", "prompt": "[b] look", "check": "exit 4", "setup": "true"},
            {"id": "bad", "cwd": "src", "prompt": "[bad] go", "check": "true"},
        ],
    )
    ids = ("slow", "a", "b", "bad")
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for engine, args in (("local", ()), ("ray", ("--ray", ray_address))):
        out = tmp_path / engine
        with FakeServer(_script()) as server:
            env = {**agent_env(tmp_path / engine, server), **RAY_LOOPBACK}
            done = run_batch(tasks, out, env, "--workers", "2", "--timeout", "15", *args)
        assert done.returncode == 1, done.stderr
        results[engine] = rows_by_id(out)
        for task_id in ids:
            assert (out / task_id / "session.jsonl").is_file()
            assert (out / task_id / "workspace" / "app.py").is_file()
    for task_id in ids:
        local, ray = results["local"][task_id], results["ray"][task_id]
        assert ray["engine"] == "ray"
        assert ray["host"] == socket.gethostname()
        different = {"engine", "host", "pid", "seconds"}
        assert {k: v for k, v in ray.items() if k not in different} == {
            k: v for k, v in local.items() if k not in different
        }
        for name in ("diff.patch", "stdout.txt", "check.txt"):
            local_file, ray_file = (
                tmp_path / engine / task_id / name for engine in ("local", "ray")
            )
            assert ray_file.is_file() == local_file.is_file()
            if local_file.is_file():
                assert ray_file.read_text() == local_file.read_text()
    statuses = {task_id: row["status"] for task_id, row in results["ray"].items()}
    assert statuses == {"a": "done", "b": "failed", "bad": "error", "slow": "timeout"}
    assert isinstance(results["ray"]["a"]["pid"], int)


def test_ctrl_c_on_ray_aborts_the_running_tasks(tmp_path: Path, ray_address: str) -> None:
    (tmp_path / "src").mkdir()
    pid_files = {name: tmp_path / f"{name}.pid" for name in ("slow1", "slow2")}

    def sleeper(name: str) -> dict[str, Any]:
        command = f"sleep 600 & echo $! > {pid_files[name]}; wait"
        return {
            "match": [f"[{name}]"],
            "tool_calls": [{"name": "bash", "arguments": {"command": command}}],
        }

    tasks = write_tasks(
        tmp_path / "tasks.jsonl",
        [{"id": name, "cwd": "src", "prompt": f"[{name}] go"} for name in pid_files],
    )
    out = tmp_path / "out"
    with FakeServer({"turns": [sleeper(name) for name in pid_files]}) as server:
        env = {**agent_env(tmp_path, server), **RAY_LOOPBACK}
        # --yes: the pid files are outside the workspace, which the permission rules ask about
        command = batch_command(tasks, out, "--model", "fake/m", "--yes", "--ray", ray_address)
        process = subprocess.Popen(
            command,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        deadline = time.monotonic() + 180
        while not all(p.is_file() and p.read_text().strip() for p in pid_files.values()):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the sleepers did not start"
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    by_id = rows_by_id(out)
    assert {row["status"] for row in by_id.values()} == {"aborted"}
    assert {row["engine"] for row in by_id.values()} == {"ray"}
    for name, pid_file in pid_files.items():
        assert not _alive(int(pid_file.read_text()))
        assert (out / name / "session.jsonl").is_file()  # the folder came back
    assert "stopped: interrupted" in stdout


def test_cpus_per_task_is_what_a_task_takes_on_the_cluster(
    tmp_path: Path, ray_address: str
) -> None:
    # The module's cluster has 2 CPUs: with --cpus-per-task 2 only one task fits at a time,
    # even with both sent at once (--workers 2). Each task holds a lock folder from its setup
    # to its check; a second task inside that stretch fails its setup (status error).
    (tmp_path / "src").mkdir()
    lock = tmp_path / "lock"
    step = {"cwd": "src", "setup": f"mkdir {lock}", "check": f"rmdir {lock}"}
    tasks = write_tasks(
        tmp_path / "tasks.jsonl",
        [{"id": name, "prompt": f"[{name}] hi", **step} for name in ("a", "b")],
    )
    script = {"turns": [reply("a", "A."), reply("b", "B.")]}
    with FakeServer(script) as server:
        env = {**agent_env(tmp_path, server), **RAY_LOOPBACK}
        flags = ("--ray", ray_address, "--workers", "2", "--cpus-per-task", "2")
        done = run_batch(tasks, tmp_path / "out", env, *flags)
    assert done.returncode == 0, done.stdout + done.stderr
    assert {row["status"] for row in rows_by_id(tmp_path / "out").values()} == {"done"}


def test_an_address_nobody_answers_is_refused_at_once(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    tasks = write_tasks(tmp_path / "tasks.jsonl", [{"id": "a", "cwd": "src", "prompt": "p"}])
    with FakeServer({"turns": []}) as server:
        done = run_batch(
            tasks,
            tmp_path / "out",
            agent_env(tmp_path, server),
            "--ray",
            f"127.0.0.1:{_free_port()}",
        )
    assert done.returncode == 2
    assert "nothing answers there" in done.stderr
    assert not (tmp_path / "out").exists()
