"""results.jsonl: one row per finished task, appended whole; and what a row holds."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "STATUSES",
    "Usage",
    "append_row",
    "latest_rows",
    "session_usage",
]

STATUSES = ("done", "failed", "error", "timeout", "aborted")
"""done: the agent exited 0 and the check (if any) passed; failed: the check failed; error:
setup, the workspace or the agent failed; timeout: --timeout ran out; aborted: Ctrl+C."""


@dataclass(slots=True)
class Usage:
    """Tokens and cost of a task (or of the batch so far)."""

    input: int = 0
    output: int = 0
    cacheRead: int = 0  # the wire names, as in session files
    cacheWrite: int = 0
    cost: float = 0.0

    def add(self, other: Usage) -> None:
        self.input += other.input
        self.output += other.output
        self.cacheRead += other.cacheRead
        self.cacheWrite += other.cacheWrite
        self.cost += other.cost

    @property
    def tokens(self) -> int:
        return self.input + self.output + self.cacheRead + self.cacheWrite

    def to_json(self) -> dict[str, Any]:
        return {
            "input": self.input,
            "output": self.output,
            "cacheRead": self.cacheRead,
            "cacheWrite": self.cacheWrite,
            "cost": round(self.cost, 6),
        }

    @classmethod
    def from_json(cls, value: object) -> Usage:
        if not isinstance(value, dict):
            return cls()
        cost = value.get("cost")
        if isinstance(cost, dict):
            cost = cost.get("total")
        return cls(
            input=_int(value.get("input")),
            output=_int(value.get("output")),
            cacheRead=_int(value.get("cacheRead")),
            cacheWrite=_int(value.get("cacheWrite")),
            cost=_float(cost),
        )


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _float(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    return float(value)


def session_usage(path: Path) -> Usage:
    """The summed usage of every assistant message in a session file (0 when none)."""
    total = Usage()
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return total
    for line in text.splitlines():
        if '"assistant"' not in line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if isinstance(message, dict) and message.get("role") == "assistant":
            total.add(Usage.from_json(message.get("usage")))
    return total


def append_row(path: Path, row: dict[str, Any]) -> None:
    """Append `row` as one line in one write on an O_APPEND descriptor, then fsync: a reader
    or a crash sees the whole line or none of it."""
    data = (json.dumps(row, ensure_ascii=False, separators=(", ", ": ")) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        written = os.write(fd, data)
        if written != len(data):  # a full disk: finish the line rather than leave half
            os.write(fd, data[written:])
        os.fsync(fd)
    finally:
        os.close(fd)


def latest_rows(path: Path) -> dict[str, dict[str, Any]]:
    """The last row of each task id in results.jsonl (none when the file is missing). A line
    that is not a JSON object with an id (cut by a crash of another program) is passed over."""
    rows: dict[str, dict[str, Any]] = {}
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return rows
    for line in text.splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and isinstance(row.get("id"), str):
            rows[row["id"]] = row
    return rows
