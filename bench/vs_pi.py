"""pith against Pi 1.6: every figure of the comparison in one table, from one run.

    python bench/vs_pi.py [--quick] [--runs N] [--json] [--only BENCH[,BENCH...]]

Runs each benchmark below as its own process, one after the other (`--quick` is passed on),
reads the summary each prints as its last line (`NAME: key=value ...`, with `<row>_pith_ms`,
`<row>_pi_ms` and `<row>_ratio` per row) and prints one table: the row, pith's and Pi's time
(each the benchmark's best of several runs, pith and Pi measured in the same run), their
ratio, the target ratio and whether it is met. `--json` prints the same as JSON instead.
`--runs N` runs every benchmark N times, in turns (all of them once, then again), and shows
the median of each column: on a shared machine one busy minute then moves a row less.

Pi comes from the folder `PITH_PI_ORACLE` names (Pi 1.6 and its Node installed from npm, see
tests/conformance/README.md); without it nothing runs. `--only` runs some of the benchmarks
(`startup`, `truncate`, `session_open`, `compaction`, `tui_latency`); `--bench-dir` takes the
scripts from another folder (the tests use it). Exit status: 0 when every benchmark ran, 1
when one failed (its rows say so), 2 on a usage error or without Pi.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ORACLE_DIR, PI_NODE, PI_PACKAGE

HERE = Path(__file__).resolve().parent
TIMEOUT = 3600.0
"""Seconds one benchmark may take (the full-size session benchmarks take minutes)."""

BENCHES: dict[str, tuple[str, ...]] = {
    "startup": (),
    "truncate": (),
    "session_open": (),
    "compaction": (),
    "tui_latency": ("--only", "start"),
}
"""Each benchmark (the script `bench/<name>.py`, whose summary is named `<name>`) and the
arguments that ask it for the rows of this table only."""

NOTES: dict[str, tuple[str, ...]] = {
    "startup": (
        "python_ms",
        "first_request_pith_ms",
        "print_rss_pith_mb",
        "print_rss_pi_mb",
        "print_rss_ratio",
    ),
    "truncate": ("path",),
    "session_open": ("size_mb", "pi_messages"),
    "compaction": ("decision_mismatch",),
}
"""Figures of a summary worth showing under the table when present: the baseline (`python -c
pass`) and when pith's first request leaves, how pith ran (the compiled or the pure-Python
truncation path), the input's size, a disagreement with Pi."""


@dataclass(frozen=True)
class Row:
    key: str
    """The prefix of the row's figures in its benchmark's summary."""
    bench: str
    label: str
    """What is measured; `{entries}` is filled in from the summary."""
    target: float
    """The highest pith/Pi ratio that meets the target."""


ROWS = (
    Row("print", "startup", "-p, one answer from a local model, whole process", 0.7),
    Row("tail_log_10mb", "truncate", "truncate_tail, 10 MB log text", 0.5),
    Row("head_log_10mb", "truncate", "truncate_head, 10 MB log text", 0.5),
    Row("tail_mixed_10mb", "truncate", "truncate_tail, 10 MB mixed lines", 0.5),
    Row("head_mixed_10mb", "truncate", "truncate_head, 10 MB mixed lines", 0.5),
    Row(
        "open_context",
        "session_open",
        "open a {entries}-entry session and build its context",
        0.7,
    ),
    Row("context", "session_open", "build the context of an opened session", 1.0),
    Row("check", "session_open", "compaction's full check, {entries} entries", 1.0),
    Row("cut", "compaction", "find the compaction cut point, {entries} entries", 1.0),
    Row("prepare", "compaction", "prepare a compaction, {entries} entries", 1.0),
    Row("start", "tui_latency", "interactive start, keystroke-ready editor", 0.7),
    Row("start_full", "tui_latency", "interactive start, the whole interface up", 1.0),
)


class SummaryError(ValueError):
    """A benchmark's output does not end with its summary line."""


def parse_summary(output: str, name: str) -> dict[str, str]:
    """The figures of the summary `name` prints as the last line of `output`."""
    lines = [line for line in output.splitlines() if line.strip()]
    if not lines:
        raise SummaryError(f"{name} printed nothing")
    last = lines[-1].strip()
    prefix = f"{name}: "
    if not last.startswith(prefix):
        raise SummaryError(f"{name}'s last line is not its summary: {last[:200]!r}")
    figures: dict[str, str] = {}
    for part in last[len(prefix) :].split():
        key, equals, value = part.partition("=")
        if not equals or not key:
            raise SummaryError(f"{name}'s summary has {part!r}, not key=value")
        figures[key] = value
    return figures


def number(figures: dict[str, str], key: str) -> float | None:
    value = figures.get(key)
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None


@dataclass
class Result:
    row: Row
    label: str
    pith_ms: float | None
    pi_ms: float | None
    ratio: float | None
    error: str | None = None
    ratios: tuple[float, ...] = ()
    """The ratio of each run that had one."""

    @property
    def met(self) -> bool | None:
        return None if self.ratio is None else self.ratio <= self.row.target


def results_for(row: Row, figures: dict[str, str] | None, error: str | None) -> Result:
    if figures is None:
        return Result(row, row.label.replace("{entries}", "?"), None, None, None, error)
    label = row.label.replace("{entries}", f"{int(number(figures, 'entries') or 0):,}")
    pith = number(figures, f"{row.key}_pith_ms")
    pi = number(figures, f"{row.key}_pi_ms")
    ratio = number(figures, f"{row.key}_ratio")
    if ratio is None and pith is not None and pi:
        ratio = round(pith / pi, 3)
    missing = None
    if pith is None:
        missing = f"no {row.key}_pith_ms in {row.bench}'s summary"
    elif pi is None:
        missing = f"no {row.key}_pi_ms in {row.bench}'s summary ({figures.get('pi', 'no Pi')})"
    return Result(row, label, pith, pi, ratio, missing)


Outcome = tuple[dict[str, str] | None, str | None]
"""A benchmark run's summary figures, or None and why not."""


def combine(row: Row, outcomes: list[Outcome]) -> Result:
    """The row over several runs: the median of each column (of the runs that had a ratio)."""
    results = [results_for(row, figures, error) for figures, error in outcomes]
    good = [result for result in results if result.ratio is not None]
    if not good:
        return results[0]
    first = good[0]
    pith = statistics.median(result.pith_ms for result in good if result.pith_ms is not None)
    pi = statistics.median(result.pi_ms for result in good if result.pi_ms is not None)
    ratios = tuple(result.ratio for result in good if result.ratio is not None)
    error = None
    if len(good) < len(results):
        why = next(result.error for result in results if result.ratio is None)
        error = f"{len(results) - len(good)} of {len(results)} runs without a ratio: {why}"
    ratio = round(statistics.median(ratios), 3)
    return Result(row, first.label, pith, pi, ratio, error, ratios)


def run_bench(folder: Path, name: str, quick: bool) -> tuple[dict[str, str] | None, str | None]:
    """Run `folder/name.py`; its summary's figures, or None and why not."""
    script = folder / f"{name}.py"
    if not script.exists():
        return None, f"{script} does not exist"
    command = [sys.executable, str(script), *BENCHES[name], *(["--quick"] if quick else [])]
    started = time.perf_counter()
    print(f"vs_pi: {' '.join(command[1:])} ...", file=sys.stderr, flush=True)
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=TIMEOUT, check=False, cwd=folder
        )
    except subprocess.TimeoutExpired:
        return None, f"{name}.py ran longer than {TIMEOUT:.0f} s"
    print(f"vs_pi: {name}.py took {time.perf_counter() - started:.0f} s", file=sys.stderr)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no error output)"])[-1]
        return None, f"{name}.py exited with {done.returncode}: {last[:300]}"
    try:
        return parse_summary(done.stdout, name), None
    except SummaryError as error:
        return None, str(error)


def machine() -> dict[str, object]:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    node = ""
    with contextlib.suppress(OSError):
        node = subprocess.run(
            [str(PI_NODE), "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout.strip()
    return {
        "cpus": os.cpu_count(),
        "cpu": model or platform.processor() or platform.machine(),
        "load": [round(value, 2) for value in os.getloadavg()],
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "node": node,
    }


def fmt_ms(value: float | None) -> str:
    if value is None:
        return "-"
    if value < 1:
        return f"{value:.3f}"
    if value < 100:
        return f"{value:.2f}"
    return f"{value:.1f}"


def notes(runs: dict[str, list[Outcome]]) -> dict[str, str]:
    """The NOTES figures found, a number as its median over the runs."""
    found = {}
    for name, outcomes in runs.items():
        for key in NOTES.get(name, ()):
            values = [figures[key] for figures, _ in outcomes if figures and key in figures]
            if not values:
                continue
            numbers = [number({key: value}, key) for value in values]
            if all(value is not None for value in numbers):
                found[f"{name}.{key}"] = format(
                    statistics.median(value for value in numbers if value is not None), "g"
                )
            else:
                found[f"{name}.{key}"] = values[0]
    return found


def table(results: list[Result], heading: str, remarks: dict[str, str] | None = None) -> str:
    width = max(len("row"), *(len(result.label) for result in results))
    lines = [
        heading,
        f"{'row':<{width}}  {'pith ms':>9}  {'Pi ms':>9}  {'pith/Pi':>7}  {'target':>6}  met",
    ]
    for result in results:
        ratio = "-" if result.ratio is None else f"{result.ratio:.2f}"
        met = {True: "yes", False: "no", None: "-"}[result.met]
        lines.append(
            f"{result.label:<{width}}  {fmt_ms(result.pith_ms):>9}  {fmt_ms(result.pi_ms):>9}  "
            f"{ratio:>7}  {f'<={result.row.target:.1f}':>6}  {met}"
        )
    if remarks:
        lines.append("  ".join(f"{key}={value}" for key, value in remarks.items()))
    for result in results:
        if result.error:
            lines.append(f"{result.row.bench} {result.row.key}: {result.error}")
    return "\n".join(lines)


def oracle_problem() -> str | None:
    """Why Pi cannot be run, in one line, or None."""
    how = (
        "set PITH_PI_ORACLE to the folder holding Pi 1.6 and its Node from npm "
        "(tests/conformance/README.md says how), e.g. PITH_PI_ORACLE=~/pi-1.6 "
        "python bench/vs_pi.py"
    )
    if not os.environ.get("PITH_PI_ORACLE"):
        return f"vs_pi: no Pi to compare with: {how}"
    for path in (PI_PACKAGE, PI_NODE):
        if not path.exists():
            where = path.relative_to(ORACLE_DIR)
            return f"vs_pi: PITH_PI_ORACLE={ORACLE_DIR} has no {where}: {how}"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="pass --quick to every benchmark")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    parser.add_argument("--runs", type=int, default=1, help="run every benchmark N times")
    parser.add_argument("--only", help="comma-separated benchmarks to run (default: all)")
    parser.add_argument("--bench-dir", type=Path, default=HERE, help=argparse.SUPPRESS)
    options = parser.parse_args()
    names = list(BENCHES)
    if options.only:
        names = [name.strip() for name in options.only.split(",") if name.strip()]
        unknown = [name for name in names if name not in BENCHES]
        if unknown:
            print(
                f"vs_pi: --only {','.join(unknown)}: no such benchmark "
                f"(choose from {', '.join(BENCHES)})",
                file=sys.stderr,
            )
            return 2
    if options.runs < 1:
        print(f"vs_pi: --runs {options.runs}: give 1 or more", file=sys.stderr)
        return 2
    problem = oracle_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 2
    when = datetime.datetime.now(datetime.UTC)
    runs: dict[str, list[Outcome]] = {name: [] for name in names}
    for _ in range(options.runs):
        for name in names:
            runs[name].append(run_bench(options.bench_dir, name, options.quick))
    results = [combine(row, runs[row.bench]) for row in ROWS if row.bench in runs]
    failed = {
        name: next(error or "" for figures, error in outcomes if figures is None)
        for name, outcomes in runs.items()
        if any(figures is None for figures, _ in outcomes)
    }
    about = machine()
    if options.json:
        payload = {
            "date": when.isoformat(timespec="seconds"),
            "quick": options.quick,
            "runs": options.runs,
            "machine": about,
            "rows": [
                {
                    "row": result.row.key,
                    "bench": result.row.bench,
                    "label": result.label,
                    "pith_ms": result.pith_ms,
                    "pi_ms": result.pi_ms,
                    "ratio": result.ratio,
                    "target": result.row.target,
                    "met": result.met,
                    "error": result.error,
                    "ratios": list(result.ratios),
                }
                for result in results
            ],
            "failed": failed,
            "notes": notes(runs),
        }
        print(json.dumps(payload, indent=2))
    else:
        size = "--quick (smaller inputs, fewer runs)" if options.quick else "full size"
        if options.runs > 1:
            size += f", median of {options.runs} runs"
        heading = (
            f"pith against Pi 1.6, {when:%Y-%m-%d %H:%M} UTC, {size}; "
            f"{about['cpus']} x {about['cpu']}, load {about['load'][0]}, "
            f"Python {about['python']}, Node {about['node'] or '?'}"
        )
        print(table(results, heading, notes(runs)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
