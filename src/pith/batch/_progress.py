"""What the batch shows: the progress line on stderr, the summary table and its JSON."""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass, field
from typing import Any, TextIO

from pith.batch._results import STATUSES, Usage

__all__ = ["Progress", "Tally", "format_line", "format_summary", "summary_json"]

_BAR = 24


@dataclass(slots=True)
class Tally:
    """Counts and usage of the batch so far."""

    total: int
    skipped: int = 0
    running: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)

    @property
    def finished(self) -> int:
        return sum(self.statuses.values())

    def count(self, row: dict[str, Any]) -> None:
        status = str(row.get("status"))
        self.statuses[status] = self.statuses.get(status, 0) + 1
        self.usage.add(Usage.from_json(row.get("usage")))


def format_line(tally: Tally) -> str:
    """`[#####.....] 3/10 done 2 failed 1 running 1 · 12.3k tokens $0.0123`."""
    todo = max(tally.total - tally.skipped, 1)
    filled = round(_BAR * tally.finished / todo)
    bar = "#" * filled + "." * (_BAR - filled)
    parts = [f"[{bar}] {tally.finished}/{tally.total - tally.skipped}"]
    for status in STATUSES:
        if tally.statuses.get(status):
            parts.append(f"{status} {tally.statuses[status]}")
    parts.append(f"running {tally.running}")
    if tally.skipped:
        parts.append(f"skipped {tally.skipped}")
    tokens = _tokens(tally.usage.tokens)
    return f"{' '.join(parts)} · {tokens} tokens ${tally.usage.cost:.4f}"


def _tokens(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 1_000:
        return f"{count / 1_000:.1f}k"
    return str(count)


class Progress:
    """The progress line: redrawn in place on a terminal, one line per finished task
    otherwise (a log keeps every step)."""

    def __init__(self, tally: Tally, stream: TextIO | None = None) -> None:
        self.tally = tally
        self._stream = stream or sys.stderr
        self._tty = self._stream.isatty()
        self._lock = threading.Lock()

    def started(self) -> None:
        with self._lock:
            self.tally.running += 1
            self._draw(None)

    def finished(self, row: dict[str, Any]) -> None:
        with self._lock:
            self.tally.running = max(self.tally.running - 1, 0)
            self.tally.count(row)
            self._draw(row)

    def close(self) -> None:
        with self._lock:
            if self._tty:
                self._stream.write("\n")
                self._stream.flush()

    def _draw(self, row: dict[str, Any] | None) -> None:
        line = format_line(self.tally)
        if self._tty:
            self._stream.write(f"\r\x1b[K{line}")
        elif row is not None:
            self._stream.write(f"{row.get('id')}: {row.get('status')} — {line}\n")
        self._stream.flush()


def summary_json(rows: list[dict[str, Any]], tally: Tally, stopped: str | None) -> dict[str, Any]:
    return {
        "tasks": rows,
        "total": tally.total,
        "skipped": tally.skipped,
        "statuses": {status: tally.statuses.get(status, 0) for status in STATUSES},
        "notStarted": tally.total - tally.skipped - tally.finished,
        "usage": tally.usage.to_json(),
        "stopped": stopped,
    }


def format_summary(rows: list[dict[str, Any]], tally: Tally, stopped: str | None) -> str:
    """A table of this run's rows and a totals line."""
    header = ("id", "status", "exit", "check", "seconds", "tokens", "cost")
    table = [header]
    for row in rows:
        usage = Usage.from_json(row.get("usage"))
        check = row.get("check")
        check_exit = check.get("exit") if isinstance(check, dict) else None
        table.append(
            (
                str(row.get("id")),
                str(row.get("status")),
                _cell(row.get("exit")),
                "-" if check is None else _cell(check_exit),
                f"{float(row.get('seconds') or 0):.1f}",
                str(usage.tokens),
                f"${usage.cost:.4f}",
            )
        )
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(line)).rstrip() for line in table
    ]
    counts = ", ".join(f"{tally.statuses[s]} {s}" for s in STATUSES if tally.statuses.get(s))
    not_started = tally.total - tally.skipped - tally.finished
    extra = [counts or "no task ran"]
    if tally.skipped:
        extra.append(f"{tally.skipped} already done")
    if not_started:
        extra.append(f"{not_started} not started")
    extra.append(f"{_tokens(tally.usage.tokens)} tokens, ${tally.usage.cost:.4f}")
    if stopped:
        extra.append(f"stopped: {stopped}")
    return "\n".join([*lines, "", "; ".join(extra)]) + "\n"


def _cell(value: object) -> str:
    return "-" if value is None else str(value)
