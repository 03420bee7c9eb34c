"""Rows: the status rule, whole-line appends, the last row of each id, the summary."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from pith.batch import append_row, format_summary, latest_rows, summary_json, task_status
from pith.batch._process import Ended
from pith.batch._progress import Tally, format_line


@pytest.mark.parametrize(
    ("setup", "agent", "check", "stopped", "status"),
    [
        (None, 0, None, None, "done"),
        (0, 0, 0, None, "done"),
        (None, 0, 1, None, "failed"),
        (None, 1, None, None, "error"),
        (2, None, None, None, "error"),
        (None, None, None, "timeout", "timeout"),
        (None, 0, None, "aborted", "aborted"),
    ],
)
def test_status(
    setup: int | None, agent: int | None, check: int | None, stopped: str | None, status: str
) -> None:
    ended = None if agent is None else Ended(agent, 1)
    assert task_status(setup_exit=setup, agent=ended, check_exit=check, stopped=stopped) == status


def test_rows_from_many_threads_stay_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    big = "x" * 100_000

    def write(n: int) -> None:
        for k in range(20):
            append_row(path, {"id": f"t{n}-{k}", "status": "done", "pad": big})

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = path.read_text().splitlines()
    assert len(lines) == 80
    assert all(json.loads(line)["pad"] == big for line in lines)


def test_latest_rows_keeps_the_last_row_per_id_and_passes_over_a_cut_line(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    append_row(path, {"id": "a", "status": "failed"})
    append_row(path, {"id": "b", "status": "done"})
    append_row(path, {"id": "a", "status": "done"})
    with path.open("a") as handle:
        handle.write('{"id": "c", "sta')
    assert latest_rows(path) == {
        "a": {"id": "a", "status": "done"},
        "b": {"id": "b", "status": "done"},
    }
    assert latest_rows(tmp_path / "missing.jsonl") == {}


def test_summary_table_and_json() -> None:
    rows = [
        {
            "id": "a",
            "status": "done",
            "exit": 0,
            "check": {"command": "true", "exit": 0},
            "seconds": 1.25,
            "usage": {"input": 1000, "output": 200, "cacheRead": 0, "cacheWrite": 0, "cost": 0.5},
        },
        {"id": "bb", "status": "timeout", "exit": None, "check": None, "seconds": 9, "usage": {}},
    ]
    tally = Tally(total=4, skipped=1)
    for row in rows:
        tally.count(row)
    table = format_summary(rows, tally, "max cost")
    assert table.splitlines()[0].split() == [
        "id",
        "status",
        "exit",
        "check",
        "seconds",
        "tokens",
        "cost",
    ]
    assert table.splitlines()[1].split() == ["a", "done", "0", "0", "1.2", "1200", "$0.5000"]
    assert table.splitlines()[2].split() == ["bb", "timeout", "-", "-", "9.0", "0", "$0.0000"]
    assert table.splitlines()[-1] == (
        "1 done, 1 timeout; 1 already done; 1 not started; 1.2k tokens, $0.5000; stopped: max cost"
    )
    summary = summary_json(rows, tally, None)
    assert summary["statuses"]["done"] == 1
    assert summary["notStarted"] == 1
    assert summary["usage"]["cost"] == 0.5
    assert format_line(tally).startswith("[################........] 2/3 done 1 timeout 1")
