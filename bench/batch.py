"""`pith batch` throughput: tasks per minute with 1, 2 and N workers locally and on a local
Ray cluster (N CPUs), and the overhead per task over a plain loop of `pith -p` runs.

    python bench/batch.py [TASKS [N]]        (defaults: 8 tasks, N = 4)

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
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


from _common import summary
from pith.testing import (
    RAY_LOOPBACK,
    FakeServer,
    configure_agent_dir,
    local_ray_cluster,
    subprocess_env,
)


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


def _has_ray() -> bool:
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    most = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    worker_counts = sorted({1, 2, most})
    per_minute: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="pith-bench-batch-") as tmp:
        root = Path(tmp)
        _project(root)
        _tasks(root, count)
        runs = 2 * len(worker_counts) + 2 + 1  # local and Ray runs, two baselines, warm-up
        with FakeServer(_script(count * (runs + 2))) as server:
            agent = configure_agent_dir(root / "agent", server)
            env = subprocess_env(agent, **RAY_LOOPBACK)
            _loop(root, env, 1)  # warm caches (bytecode, page cache)
            loop = _loop(root, env, count)
            sdk = _sdk(root, agent, count)
            for workers in worker_counts:
                seconds = _batch(root, env, f"out-{workers}", "--workers", str(workers))
                per_minute[f"local_{workers}"] = count * 60 / seconds
                if workers == 1:
                    one_worker = seconds
            if _has_ray():
                # Each run connects anew: the figures include joining the cluster.
                with local_ray_cluster(num_cpus=most) as address:
                    for workers in worker_counts:
                        flags = ("--ray", address, "--workers", str(workers))
                        seconds = _batch(root, env, f"out-ray-{workers}", *flags)
                        per_minute[f"ray_{workers}"] = count * 60 / seconds
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
