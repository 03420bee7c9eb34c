"""The Ray engine: each task a Ray task on an existing cluster (`--ray ADDRESS`).

The driver prepares each workspace here (the source never leaves this machine otherwise), packs
the task's folder as a tar into Ray's object store, and the Ray task unpacks it in a temporary
folder on its node, runs `execute_task` there with the node's own `python -m pith`, and hands
the folder back as a tar that the driver unpacks into DIR/<id>/. pith's settings travel the
same way: the agent dir (models.json, settings.json, auth.json, extensions, skills; not its
sessions) as one shared object, and variables ending in _API_KEY or starting with PITH_.
The object store rather than a runtime_env: a runtime_env package is cached by content on every
node and limited in size, while a task folder is used once; objects are freed when the run ends.
Ctrl+C sets a flag in a small actor that every running task watches, so each stops its processes
and still sends back its folder and an `aborted` row.
"""

from __future__ import annotations

import io
import os
import socket
import sys
import tarfile
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pith.batch._engine import Gate, Reporter
from pith.batch._task_run import RunSpec, TaskFiles, error_row, execute_task
from pith.batch._tasks import Task
from pith.batch._workspace import WorkspaceError, prepare_workspace
from pith.errors import InputError

__all__ = ["RayPlan", "connect", "disconnect", "pack", "require_ray", "run_ray", "unpack"]

_WATCH = 0.5


def require_ray() -> None:
    try:
        import ray  # noqa: F401
    except ImportError:
        raise InputError(
            "--ray needs Ray: pip install 'pith-agent[ray]' (on this machine and every node)"
        ) from None


def pack(folder: Path, *, skip: tuple[str, ...] = ()) -> bytes:
    """`folder`'s contents as an uncompressed tar (fast; the object store keeps it in memory)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for child in sorted(folder.iterdir()):
            if child.name not in skip:
                archive.add(child, arcname=child.name)
    return buffer.getvalue()


def unpack(data: bytes, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r") as archive:
        if hasattr(tarfile, "tar_filter"):
            archive.extractall(folder, filter="tar")
        else:  # Python before 3.11.4; the archives are pith's own
            archive.extractall(folder)


def _agent_dir() -> Path:
    configured = os.environ.get("PITH_AGENT_DIR")
    return Path(configured) if configured else Path.home() / ".pith" / "agent"


def _travelling_env() -> dict[str, str]:
    return {
        key: value
        for key, value in os.environ.items()
        if (key.endswith("_API_KEY") or key.startswith("PITH_")) and key != "PITH_AGENT_DIR"
    }


@dataclass(frozen=True, slots=True)
class RayPlan:
    address: str
    spec: RunSpec
    workers: int | None
    """Tasks in flight at once; None: as many as the cluster's CPUs hold."""
    cpus_per_task: float


class _Flag:
    """The abort flag every Ray task of a batch watches (an actor with no CPU)."""

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set


def _remote_task(
    task: Task, archive: bytes, spec: RunSpec, agent: bytes, flag: Any
) -> tuple[dict[str, Any], bytes]:
    """Runs on a cluster node: unpack, execute, pack the folder back."""
    import ray

    abort = threading.Event()
    finished = threading.Event()

    def watch() -> None:
        while not finished.wait(_WATCH):
            try:
                if ray.get(flag.is_set.remote(), timeout=10):
                    abort.set()
                    return
            except Exception:  # the driver is gone: stop as if aborted
                abort.set()
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        with tempfile.TemporaryDirectory(prefix="pith-batch-") as tmp:
            folder, agent_dir = Path(tmp) / task.id, Path(tmp) / "agent"
            unpack(archive, folder)
            unpack(agent, agent_dir)
            here = RunSpec(
                pith=(sys.executable, "-m", "pith"),
                agent_args=spec.agent_args,
                timeout=spec.timeout,
                env={**spec.env, "PITH_AGENT_DIR": str(agent_dir)},
                engine="ray",
            )
            row = execute_task(task, TaskFiles(folder), here, abort)
            return row, pack(folder)
    finally:
        finished.set()


def connect(address: str) -> None:
    """Join the cluster at `address` (from the main thread: Ray installs signal handlers)."""
    import logging

    import ray

    _reachable(address)
    try:
        ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
    except (ConnectionError, RuntimeError, ValueError) as error:
        raise InputError(
            f"--ray {address}: cannot connect to a Ray cluster there ({error}); start one with "
            "`ray start --head` (docs/batch.md)"
        ) from None


def _reachable(address: str) -> None:
    """A `host:port` nobody listens on fails here at once (Ray itself retries for minutes)."""
    host, _, port = address.rpartition(":")
    if "://" in address or not host or not port.isdigit():
        return  # "auto", ray://... : left to Ray
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=10).close()
    except OSError as error:
        raise InputError(
            f"--ray {address}: nothing answers there ({error.strerror or error}); start a "
            "cluster with `ray start --head --port PORT` or check the address (docs/batch.md)"
        ) from None


def disconnect() -> None:
    import ray

    ray.shutdown()


def run_ray(
    config: RayPlan,
    tasks: list[Task],
    files: dict[str, TaskFiles],
    gate: Gate,
    reporter: Reporter,
    abort: threading.Event,
) -> None:
    """Run `tasks` as Ray tasks until all ran or `gate` says to start no more."""
    import ray as ray_module

    ray: Any = ray_module  # Ray's hints do not know the `.remote` of a remote class
    remote = ray.remote(num_cpus=config.cpus_per_task, max_retries=0)(_remote_task)
    flag = ray.remote(num_cpus=0)(_Flag).remote()
    agent_dir = _agent_dir()
    agent = ray.put(pack(agent_dir, skip=("sessions",)) if agent_dir.is_dir() else pack_empty())
    spec = RunSpec(
        pith=(),
        agent_args=config.spec.agent_args,
        timeout=config.spec.timeout,
        env={**config.spec.env, **_travelling_env()},
        engine="ray",
    )
    slots = _slots(ray, config)
    queue = deque(tasks)
    running: dict[Any, tuple[Task, float]] = {}
    flagged = False
    while True:
        while queue and len(running) < slots and gate():
            task = queue.popleft()
            reporter.started(task)
            started = time.monotonic()
            try:
                prepare_workspace(task.cwd, files[task.id].workspace)
            except (WorkspaceError, OSError) as error:
                reporter.finished(error_row(task, spec, started, f"workspace: {error}"))
                continue
            archive = ray.put(pack(files[task.id].folder))
            running[remote.remote(task, archive, spec, agent, flag)] = (task, started)
        if not running:
            return
        if abort.is_set() and not flagged:
            flag.set.remote()
            flagged = True
        ready, _ = ray.wait(list(running), num_returns=1, timeout=0.2)
        for ref in ready:
            task, started = running.pop(ref)
            reporter.finished(_collect(ray, ref, task, files[task.id], spec, started))


def pack_empty() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w"):
        pass
    return buffer.getvalue()


def _slots(ray: Any, config: RayPlan) -> int:
    """Tasks in flight at once: --workers when given, else what the cluster's CPUs hold."""
    if config.workers is not None:
        return config.workers
    cpus = float(ray.cluster_resources().get("CPU", 1))
    return max(1, int(cpus // max(config.cpus_per_task, 0.01)))


def _collect(
    ray: Any, ref: Any, task: Task, files: TaskFiles, spec: RunSpec, started: float
) -> dict[str, Any]:
    try:
        row, archive = ray.get(ref)
    except Exception as error:  # the node died, the task could not run there...
        return error_row(task, spec, started, f"ray: {type(error).__name__}: {error}")
    import shutil

    shutil.rmtree(files.folder, ignore_errors=True)
    unpack(archive, files.folder)
    # As locally, the whole task: the workspace made here and both trips included.
    return {**row, "seconds": round(time.monotonic() - started, 3)}
