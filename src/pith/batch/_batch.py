"""`run_batch`: resume, schedule through an engine, stop cleanly, summarize."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from pith.batch._progress import Progress, Tally
from pith.batch._results import append_row, latest_rows
from pith.batch._task_run import RunSpec, TaskFiles
from pith.batch._tasks import Task, read_tasks
from pith.errors import InputError

__all__ = ["BatchConfig", "BatchOutcome", "run_batch"]

RESULTS = "results.jsonl"


@dataclass(frozen=True, slots=True)
class BatchConfig:
    tasks_file: Path
    out: Path
    spec: RunSpec
    workers: int | None = None
    """Tasks at once; None: the number of cores (locally) or what the cluster's CPUs hold."""
    ray_address: str | None = None
    cpus_per_task: float = 1.0
    max_cost: float | None = None


@dataclass(slots=True)
class BatchOutcome:
    """This run's rows (in finishing order), the tally, and why it stopped early if it did
    ("interrupted", "max cost")."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    tally: Tally = field(default_factory=lambda: Tally(total=0))
    stopped: str | None = None

    @property
    def exit_code(self) -> int:
        if self.stopped == "interrupted":
            return 130
        tally = self.tally
        all_done = tally.statuses.get("done", 0) + tally.skipped == tally.total
        return 0 if all_done else 1


class _Recorder:
    """Writes each row to results.jsonl and the progress line; counts cost for the gate."""

    def __init__(self, results: Path, progress: Progress) -> None:
        self._results = results
        self._progress = progress
        self._lock = threading.Lock()
        self.rows: list[dict[str, Any]] = []

    def started(self, task: Task) -> None:
        self._progress.started()

    def finished(self, row: dict[str, Any]) -> None:
        with self._lock:
            append_row(self._results, row)
            self.rows.append(row)
        self._progress.finished(row)


def run_batch(config: BatchConfig, stderr: TextIO | None = None) -> BatchOutcome:
    """Run every task of the tasks file not already `done` in `config.out`."""
    tasks = read_tasks(config.tasks_file, config.out)
    if config.ray_address is not None:
        from pith.batch._ray import require_ray

        require_ray()
        from pith.batch._ray import connect, disconnect

        connect(config.ray_address)
        try:
            return _run(config, tasks, stderr)
        finally:
            disconnect()
    return _run(config, tasks, stderr)


def _run(config: BatchConfig, tasks: list[Task], stderr: TextIO | None) -> BatchOutcome:
    out = config.out
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"--out {out}: cannot create the folder ({error})") from None
    results = out / RESULTS
    previous = latest_rows(results)
    todo = [task for task in tasks if previous.get(task.id, {}).get("status") != "done"]
    tally = Tally(total=len(tasks), skipped=len(tasks) - len(todo))
    files = {task.id: TaskFiles(out / task.id) for task in todo}
    for task in todo:  # a rerun starts from nothing: no file of the last attempt is kept
        shutil.rmtree(files[task.id].folder, ignore_errors=True)
        files[task.id].folder.mkdir(parents=True)
    progress = Progress(tally, stderr)
    recorder = _Recorder(results, progress)
    abort = threading.Event()
    outcome = BatchOutcome(tally=tally)

    def gate() -> bool:
        if abort.is_set():
            return False
        if config.max_cost is not None and tally.usage.cost >= config.max_cost:
            outcome.stopped = outcome.stopped or "max cost"
            return False
        return True

    def drive() -> None:
        if config.ray_address is not None:
            from pith.batch._ray import RayPlan, run_ray

            plan = RayPlan(config.ray_address, config.spec, config.workers, config.cpus_per_task)
            run_ray(plan, todo, files, gate, recorder, abort)
        else:
            from pith.batch._local import run_local

            workers = config.workers or os.cpu_count() or 1
            run_local(todo, files, config.spec, workers, gate, recorder, abort)

    failure: list[BaseException] = []
    finished = threading.Event()

    def guarded() -> None:
        try:
            drive()
        except BaseException as error:  # handed to the main thread
            failure.append(error)
            abort.set()
        finally:
            finished.set()

    driver = threading.Thread(target=guarded, name="pith-batch-driver", daemon=True)
    with _terminate_as_interrupt():
        driver.start()
        while not finished.is_set():
            # A plain sleep: an interrupted Thread.join can leave the thread looking finished.
            try:
                time.sleep(0.1)
            except KeyboardInterrupt:
                # Running tasks are stopped and recorded as aborted; nothing new starts.
                abort.set()
                outcome.stopped = "interrupted"
    progress.close()
    if failure:
        raise failure[0]
    outcome.rows = recorder.rows
    return outcome


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM stops the batch the way Ctrl+C does (in the main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        sys.stderr.flush()
