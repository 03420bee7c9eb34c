"""The tasks file: one JSON object a line, checked whole before anything runs."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from pith.errors import InputError
from pith.json_input import JsonInputError, parse_json

__all__ = ["Task", "check_sources", "parse_tasks", "read_tasks"]

_FIELDS = ("id", "cwd", "prompt", "check", "model", "setup")
_REQUIRED = ("id", "cwd", "prompt")
# An id names a folder under --out: letters, digits, dot, dash, underscore; not "." or "..".
_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}")


@dataclass(frozen=True, slots=True)
class Task:
    """One line of the tasks file; `cwd` is resolved against the tasks file's folder."""

    id: str
    cwd: Path
    prompt: str
    check: str | None = None
    model: str | None = None
    setup: str | None = None
    line: int = 0


def parse_tasks(text: str, source: str, base: Path) -> list[Task]:
    """Every task of `text` (the contents of `source`), or an InputError naming the first bad
    line. Blank lines are skipped; relative `cwd` values are taken from `base`."""
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        task = _parse_line(raw, number, source, base)
        if task.id in seen:
            raise InputError(
                f"{source}:{number}: id {task.id!r} is already used on line {seen[task.id]}; "
                "give every task its own id"
            )
        seen[task.id] = number
        tasks.append(task)
    if not tasks:
        raise InputError(f"{source}: no tasks (write one JSON object a line)")
    return tasks


def _parse_line(raw: str, number: int, source: str, base: Path) -> Task:
    where = f"{source}:{number}"
    try:
        value = parse_json(raw, where, fix="write one JSON object a line", unique_keys=True)
    except JsonInputError as error:
        raise InputError(
            f"{where}: column {error.column}: {error.reason}; write one JSON object a line"
        ) from None
    if not isinstance(value, dict):
        raise InputError(f"{where}: a task is a JSON object, not {type(value).__name__}")
    unknown = sorted(set(value) - set(_FIELDS))
    if unknown:
        raise InputError(f"{where}: unknown field {unknown[0]!r}; a task has {', '.join(_FIELDS)}")
    for name in _REQUIRED:
        if name not in value:
            raise InputError(f"{where}: missing {name!r} (required: {', '.join(_REQUIRED)})")
    for name in _FIELDS:
        field = value.get(name)
        if field is not None and not isinstance(field, str):
            raise InputError(f"{where}: {name!r} must be a string")
        if name in _REQUIRED and not (field or "").strip():
            raise InputError(f"{where}: {name!r} is empty")
    task_id: str = value["id"]
    if not _ID.fullmatch(task_id) or task_id in (".", ".."):
        raise InputError(
            f"{where}: id {task_id!r} cannot name a folder; use letters, digits, '.', '-' "
            "and '_' (at most 128, not starting with '.' or '-')"
        )
    cwd = Path(os.path.expanduser(value["cwd"]))
    return Task(
        id=task_id,
        cwd=cwd if cwd.is_absolute() else base / cwd,
        prompt=value["prompt"],
        check=value.get("check") or None,
        model=value.get("model") or None,
        setup=value.get("setup") or None,
        line=number,
    )


def check_sources(tasks: list[Task], source: str, out: Path) -> None:
    """Every task's folder exists and does not hold the output folder (copying it would copy
    the batch into itself)."""
    out = out.resolve()
    for task in tasks:
        where = f"{source}:{task.line}"
        if not task.cwd.is_dir():
            kind = "is not a folder" if task.cwd.exists() else "does not exist"
            raise InputError(f"{where}: cwd {str(task.cwd)!r} {kind}")
        folder = task.cwd.resolve()
        if out == folder or folder in out.parents:
            raise InputError(
                f"{where}: the output folder {str(out)!r} is inside the task's cwd "
                f"{str(folder)!r}; choose an --out outside it"
            )


def read_tasks(path: Path, out: Path) -> list[Task]:
    """Parse and check the tasks file at `path`."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: tasks file not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot read the tasks file ({error})") from None
    tasks = parse_tasks(text, str(path), path.resolve().parent)
    check_sources(tasks, str(path), out)
    return tasks
