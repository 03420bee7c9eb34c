"""One task, start to end, in its folder: setup, snapshot, `pith -p`, check, diff, row.

The same function runs a task on this machine and inside a Ray task on a cluster node; only
`engine` differs in the row.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pith.batch._process import Ended, run_process
from pith.batch._results import session_usage
from pith.batch._tasks import Task
from pith.batch._workspace import WorkspaceError, diff_since, prepare_workspace, snapshot

__all__ = ["RunSpec", "TaskFiles", "error_row", "execute_task", "run_task", "task_status"]


@dataclass(frozen=True, slots=True)
class RunSpec:
    """How every task of a batch runs."""

    pith: tuple[str, ...]
    """The command that starts pith (`python -m pith` of this interpreter by default)."""
    agent_args: tuple[str, ...] = ()
    """Agent options given to `pith batch`, passed to each `pith -p` (--provider, --tools...)."""
    timeout: float | None = None
    """Seconds for one task: setup, agent and check together."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Variables set for every process of a task, on top of the engine's environment."""
    engine: str = "local"


@dataclass(frozen=True, slots=True)
class TaskFiles:
    """The files of one task under DIR/<id>/."""

    folder: Path

    @property
    def workspace(self) -> Path:
        return self.folder / "workspace"

    @property
    def session(self) -> Path:
        return self.folder / "session.jsonl"

    @property
    def baseline(self) -> Path:
        return self.folder / ".baseline.git"


def task_status(
    *, setup_exit: int | None, agent: Ended | None, check_exit: int | None, stopped: str | None
) -> str:
    """The row's status from how each step ended. `stopped` is "timeout" or "aborted" when a
    step was stopped, else None."""
    if stopped is not None:
        return stopped
    if setup_exit not in (None, 0) or agent is None or agent.exit != 0:
        return "error"
    if check_exit not in (None, 0):
        return "failed"
    return "done"


def run_task(
    task: Task,
    files: TaskFiles,
    spec: RunSpec,
    abort: threading.Event,
    on_start: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Prepare the workspace from the task's source, then `execute_task`."""
    started = time.monotonic()
    try:
        prepare_workspace(task.cwd, files.workspace)
    except (WorkspaceError, OSError, shutil.Error) as error:
        return error_row(task, spec, started, f"workspace: {error}")
    return execute_task(task, files, spec, abort, on_start=on_start, started=started)


def execute_task(
    task: Task,
    files: TaskFiles,
    spec: RunSpec,
    abort: threading.Event,
    *,
    on_start: Callable[[int], None] | None = None,
    started: float | None = None,
) -> dict[str, Any]:
    """Run a task whose workspace is ready; returns its results row."""
    started = time.monotonic() if started is None else started
    deadline = started + spec.timeout if spec.timeout else None
    env = {**os.environ, **spec.env}
    step = _Steps(files, env, deadline, abort)
    setup_exit: int | None = None
    agent: Ended | None = None
    check_exit: int | None = None
    error: str | None = None
    tree: str | None = None
    try:
        if task.setup:
            setup = step.shell(task.setup, "setup.txt")
            setup_exit = setup.exit
            if setup.exit not in (None, 0):
                error = f"setup exited {setup.exit} (see setup.txt)"
        if step.stopped is None and error is None:
            tree = snapshot(files.workspace, files.baseline)
            agent = step.agent(task, spec, on_start)
            if agent.exit not in (None, 0):
                error = f"pith exited {agent.exit} (see stderr.txt)"
        if step.stopped is None and error is None and task.check:
            check_exit = step.shell(task.check, "check.txt").exit
        if tree is not None:
            (files.folder / "diff.patch").write_text(
                diff_since(files.workspace, files.baseline, tree), encoding="utf-8"
            )
    except (WorkspaceError, OSError) as failure:
        error = str(failure)
    finally:
        shutil.rmtree(files.baseline, ignore_errors=True)
    status = task_status(
        setup_exit=setup_exit, agent=agent, check_exit=check_exit, stopped=step.stopped
    )
    if status == "error" and error is None:
        error = "the agent did not run"
    return _row(
        task,
        spec,
        status,
        started,
        agent=agent,
        check_exit=check_exit,
        usage=session_usage(files.session).to_json(),
        error=error if status == "error" else None,
    )


class _Steps:
    """The processes of one task, sharing its deadline and abort flag."""

    def __init__(
        self, files: TaskFiles, env: dict[str, str], deadline: float | None, abort: threading.Event
    ) -> None:
        self.files, self.env, self.deadline, self.abort = files, env, deadline, abort
        self.stopped: str | None = None

    def shell(self, command: str, output: str) -> Ended:
        with (self.files.folder / output).open("wb") as out:
            return self._note(
                run_process(
                    ["bash", "-c", command],
                    cwd=self.files.workspace,
                    env=self.env,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    deadline=self.deadline,
                    abort=self.abort,
                )
            )

    def agent(self, task: Task, spec: RunSpec, on_start: Callable[[int], None] | None) -> Ended:
        prompt = self.files.folder / "prompt.txt"
        prompt.write_text(task.prompt, encoding="utf-8")
        command = [*spec.pith, "-p", *spec.agent_args]
        if task.model:
            command += ["--model", task.model]
        command += ["--session", str(self.files.session)]
        folder = self.files.folder
        with (
            prompt.open("rb") as stdin,
            (folder / "stdout.txt").open("wb") as out,
            (folder / "stderr.txt").open("wb") as err,
        ):
            return self._note(
                run_process(
                    command,
                    cwd=self.files.workspace,
                    env=self.env,
                    stdin=stdin,
                    stdout=out,
                    stderr=err,
                    deadline=self.deadline,
                    abort=self.abort,
                    on_start=on_start,
                )
            )

    def _note(self, ended: Ended) -> Ended:
        if ended.aborted:
            self.stopped = "aborted"
        elif ended.timed_out:
            self.stopped = "timeout"
        return ended


def error_row(task: Task, spec: RunSpec, started: float, error: str) -> dict[str, Any]:
    """The row of a task that ended with `error` before its agent ran (workspace, node)."""
    return _row(task, spec, "error", started, error=error)


def _row(
    task: Task,
    spec: RunSpec,
    status: str,
    started: float,
    *,
    agent: Ended | None = None,
    check_exit: int | None = None,
    usage: dict[str, Any] | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": task.id,
        "status": status,
        "exit": agent.exit if agent is not None else None,
        "check": {"command": task.check, "exit": check_exit} if task.check else None,
        "seconds": round(time.monotonic() - started, 3),
        "usage": usage or {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "cost": 0},
        "engine": spec.engine,
        "host": socket.gethostname(),
        "pid": agent.pid if agent is not None else None,
    }
    if error is not None:
        row["error"] = error
    return row
