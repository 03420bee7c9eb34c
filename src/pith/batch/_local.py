"""The local engine: N worker threads, each running one task's processes at a time.

The work happens in child processes (`pith -p`, setup, check), so a thread only waits on one;
threads share the progress line, the results file and the abort flag without pickling, and a
process pool would add a Python start-up per worker for nothing (bench/batch.py).
"""

from __future__ import annotations

import threading
from collections import deque

from pith.batch._engine import Gate, Reporter
from pith.batch._task_run import RunSpec, TaskFiles, run_task
from pith.batch._tasks import Task

__all__ = ["run_local"]


def run_local(
    tasks: list[Task],
    files: dict[str, TaskFiles],
    spec: RunSpec,
    workers: int,
    gate: Gate,
    reporter: Reporter,
    abort: threading.Event,
) -> None:
    """Run `tasks` on `workers` threads until all ran or `gate` says to start no more."""
    queue = deque(tasks)
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                if not queue or not gate():
                    return
                task = queue.popleft()
                reporter.started(task)
            row = run_task(task, files[task.id], spec, abort)
            reporter.finished(row)

    threads = [
        threading.Thread(target=work, name=f"pith-batch-{n}", daemon=True)
        for n in range(max(1, min(workers, len(tasks))))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
