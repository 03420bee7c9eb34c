"""`pith batch` throughput: tasks per minute with 1, 2 and 4 workers locally and on a local
Ray cluster, and the overhead per task over a plain loop of `pith -p` runs.

    python bench/batch.py [TASKS]

Every task is the same one-reply prompt against pith's fake model server over HTTP on
127.0.0.1 (each task makes one request), in a small folder that is copied per task. Three
baselines: a shell-style loop of `pith -p` processes in one folder (what batch adds is the
workspace copy, the snapshot and diff, the row and the progress line); the same prompts
through the SDK in one process (`pith.create_session`, one session after the other), which is
what running tasks in-process instead of as subprocesses would save; and Ray (skipped when
the `ray` extra is not installed).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import contextlib

from _common import summary
from pith.testing import FakeServer, configure_agent_dir, subprocess_env

LOOPBACK = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}


def _script(count: int) -> dict[str, object]:
    return {
        "turns": [
            {"text": f"Reply {n}.", "usage": {"input": 10, "output": 2}} for n in range(count)
        ]
    }


def _project(root: Path) -> Path:
    folder = root / "src"
    folder.mkdir()
    for n in range(20):
        (folder / f"file{n}.py").write_text(f"print({n})\n" * 50)
    return folder


def _tasks(root: Path, count: int) -> Path:
    path = root / "tasks.jsonl"
    lines = [json.dumps({"id": f"t{n}", "cwd": "src", "prompt": "say hi"}) for n in range(count)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _batch(root: Path, env: dict[str, str], out: str, *args: str) -> float:
    command = [sys.executable, "-m", "pith", "batch", str(root / "tasks.jsonl")]
    command += ["--out", str(root / out), "--model", "fake/m", *args]
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=root)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"pith batch failed: {done.stderr}")
    return elapsed


def _loop(root: Path, env: dict[str, str], count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        subprocess.run(
            [sys.executable, "-m", "pith", "-p", "--model", "fake/m", "--no-session", "say hi"],
            env=env,
            cwd=root / "src",
            capture_output=True,
            check=True,
        )
    return time.perf_counter() - started


def _sdk(root: Path, agent: Path, count: int) -> float:
    import pith

    os.environ["PITH_AGENT_DIR"] = str(agent)

    async def run() -> None:
        for _ in range(count):
            session = await pith.create_session(
                cwd=str(root / "src"), model="fake/m", session="memory"
            )
            async with session:
                await session.prompt("say hi")

    started = time.perf_counter()
    asyncio.run(run())
    return time.perf_counter() - started


def _ray_cluster(temp: str) -> tuple[subprocess.Popen[bytes], str] | None:
    try:
        import ray  # noqa: F401
    except ImportError:
        return None
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    log = Path(temp) / "start.log"
    command = [str(Path(sys.executable).parent / "ray"), "start", "--head", "--block"]
    command += ["--node-ip-address", "127.0.0.1", "--port", str(port), "--temp-dir", temp]
    command += ["--include-dashboard=false", "--disable-usage-stats", "--num-cpus", "4"]
    command += ["--object-store-memory", "100000000"]
    with log.open("wb") as out:
        head = subprocess.Popen(
            command,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **LOOPBACK},
            start_new_session=True,
        )
    deadline = time.monotonic() + 180
    while "Ray runtime started" not in log.read_text(errors="replace"):
        if head.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"ray start failed: {log.read_text(errors='replace')}")
        time.sleep(0.2)
    return head, f"127.0.0.1:{port}"


def _stop(head: subprocess.Popen[bytes]) -> None:
    head.send_signal(signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        head.wait(timeout=30)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(head.pid, signal.SIGKILL)
    head.wait()


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    per_minute: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="pith-bench-batch-") as tmp:
        root = Path(tmp)
        _project(root)
        _tasks(root, count)
        runs = 3 + 2 + 1 + 1  # three worker counts, two baselines, Ray, warm-up
        with FakeServer(_script(count * (runs + 2))) as server:
            agent = configure_agent_dir(root / "agent", server)
            env = subprocess_env(agent, **LOOPBACK)
            _loop(root, env, 1)  # warm caches (bytecode, page cache)
            loop = _loop(root, env, count)
            sdk = _sdk(root, agent, count)
            for workers in (1, 2, 4):
                seconds = _batch(root, env, f"out-{workers}", "--workers", str(workers))
                per_minute[f"local_{workers}"] = count * 60 / seconds
                if workers == 1:
                    one_worker = seconds
            ray_temp = tempfile.mkdtemp(prefix="pith-ray-")
            try:
                cluster = _ray_cluster(ray_temp)
                if cluster is not None:
                    head, address = cluster
                    try:
                        seconds = _batch(root, env, "out-ray", "--ray", address, "--workers", "4")
                        per_minute["ray_4"] = count * 60 / seconds
                    finally:
                        _stop(head)
            finally:
                shutil.rmtree(ray_temp, ignore_errors=True)
    for name, value in per_minute.items():
        print(f"{name}: {value:.1f} tasks/min")
    print(
        f"plain pith -p loop: {loop / count:.2f} s/task; "
        f"SDK in one process: {sdk / count:.2f} s/task"
    )
    print(
        summary(
            "batch",
            tasks=count,
            **{f"{k}_per_min": round(v, 1) for k, v in per_minute.items()},
            loop_s_per_task=round(loop / count, 3),
            sdk_s_per_task=round(sdk / count, 3),
            overhead_s_per_task=round((one_worker - loop) / count, 3),
        )
    )


if __name__ == "__main__":
    main()
