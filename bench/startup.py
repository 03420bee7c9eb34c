"""Start-up, pith against Pi 1.6 in the same run: `--version`, and a whole `-p` run.

    python bench/startup.py [--quick] [--icount] [--pith PATH]

Rows, each the best of several fresh processes, pith's and Pi's taken in turns:

- **version**: `pith --version` and `pi --version`, start to exit.
- **print**: `pith -p hi` and `pi -p hi` against pith's fake model server (one short answer),
  start to exit, in a scratch project with an empty agent folder holding only `models.json`.
- **first_request** (pith only): from the process start until that request reaches the server.
- **print_rss** (memory, not time): the peak resident memory of the `-p` process on each side
  (`wait4`'s `ru_maxrss`, the process itself, children not counted), the least of a few runs.

Each side runs the way a user runs it: pith through the `pith` script next to this Python
(`--pith` names another, e.g. an older checkout's, for a comparison), Pi through its Node and
its `cli.js` (the folder `PITH_PI_ORACLE` names, see tests/conformance/README.md; without it
the Pi keys are left out). Baseline: `python -c pass` in the same minute.

`--icount` also counts the instructions each pith row executes (valgrind's callgrind, total
`Ir`): a figure that does not depend on the machine's load, for comparing two versions.
Pi's counts are left out (Node's JIT under valgrind says little about a user's wait).
Target: pith/Pi at most 0.7 on both rows.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PI_NODE, PI_PACKAGE, oracle_available, summary
from pith.testing import FakeServer

Command = list[str]


def pith_command(script: str | None) -> Command:
    if script:
        return [script]
    beside = Path(sys.executable).parent / "pith"
    return [str(beside)] if beside.exists() else [sys.executable, "-m", "pith"]


def pi_command() -> Command:
    return [str(PI_NODE), str(PI_PACKAGE / "dist" / "bundle" / "cli.js")]


class Scratch:
    """A project folder, a home and one agent folder per side, with the fake server's model."""

    def __init__(self, root: Path, base_url: str) -> None:
        self.work = root / "work"
        self.home = root / "home"
        self.pith_agent = root / "pith-agent"
        self.pi_agent = root / "pi-agent"
        for folder in (self.work, self.home, self.pith_agent, self.pi_agent):
            folder.mkdir()
        models = {
            "providers": {
                "fake": {
                    "baseUrl": base_url,
                    "api": "openai-completions",
                    "apiKey": "k",
                    "models": [{"id": "fake-model"}],
                }
            }
        }
        for agent in (self.pith_agent, self.pi_agent):
            (agent / "models.json").write_text(json.dumps(models))

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env.pop("PITH_SESSION_DIR", None)
        # Measured as a user runs it, with bytecode cached (the warm-up run writes it).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.update(
            HOME=str(self.home),
            PITH_AGENT_DIR=str(self.pith_agent),
            PI_CODING_AGENT_DIR=str(self.pi_agent),
            PI_OFFLINE="1",
            PI_SKIP_VERSION_CHECK="1",
            PI_TELEMETRY="0",
            TERM="dumb",
        )
        return env


def run_once(command: Command, scratch: Scratch) -> float:
    started = time.perf_counter()
    result = subprocess.run(
        command, cwd=scratch.work, env=scratch.env(), capture_output=True, check=False
    )
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(
            f"startup: {' '.join(command)} failed ({result.returncode}): "
            f"{result.stderr.decode(errors='replace')[-800:]}"
        )
    return elapsed


def best(function: Callable[[], float], runs: int) -> float:
    function()  # a warm-up: bytecode and compile caches, the page cache
    return min(function() for _ in range(runs))


def best_in_turns(commands: list[Command], scratch: Scratch, runs: int) -> list[float]:
    """The best time of each command, run in turns (one run of each, `runs` times, after a
    warm-up of each), so that a busy moment of a shared machine falls on both sides alike."""
    for command in commands:
        run_once(command, scratch)
    times: list[list[float]] = [[] for _ in commands]
    for _ in range(runs):
        for index, command in enumerate(commands):
            times[index].append(run_once(command, scratch))
    return [min(each) for each in times]


def peak_rss_mb(command: Command, scratch: Scratch) -> float:
    """The peak resident memory of one run of `command`, in MiB (Linux reports KiB)."""
    process = subprocess.Popen(
        command,
        cwd=scratch.work,
        env=scratch.env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _pid, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"startup: {' '.join(command)} failed ({process.returncode})")
    return usage.ru_maxrss / 1024


ICOUNT = re.compile(rb"Collected : (\d+)")


def instructions(command: Command, scratch: Scratch) -> int | None:
    """The instructions `command` executes, children included, or None without valgrind."""
    if shutil.which("valgrind") is None:
        return None
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.%p"
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command],
            cwd=scratch.work,
            env=scratch.env(),
            capture_output=True,
            check=False,
        )
    counts = [int(m) for m in ICOUNT.findall(result.stderr)]
    return sum(counts) if counts else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs, for a smoke test")
    parser.add_argument("--icount", action="store_true", help="also count pith's instructions")
    parser.add_argument("--pith", help="the pith script to measure (default: the one beside)")
    options = parser.parse_args()
    runs = 2 if options.quick else 9
    pith = pith_command(options.pith)
    with_pi = oracle_available()
    prompt = ["-p", "--model", "fake/fake-model", "hi"]
    pi_prompt = ["-p", "--provider", "fake", "--model", "fake-model", "--no-session", "hi"]
    # The print row asks once per run and warm-up on each side, first_request once per run;
    # spare turns cover a retry (the server does not mind turns left over).
    total = (runs + 1) * 2 + runs + 2 * 3 + 4
    script = {"turns": [{"text": "ok"} for _ in range(total)]}
    figures: dict[str, object] = {}
    rows: list[tuple[str, float, float | None]] = []
    with FakeServer(script) as server, tempfile.TemporaryDirectory() as name:
        scratch = Scratch(Path(name), server.base_url)
        python = best(lambda: run_once([sys.executable, "-c", "pass"], scratch), runs)
        figures["python_ms"] = round(python * 1000, 1)
        for row, pith_args, pi_args in (
            ("version", ["--version"], ["--version"]),
            ("print", [*prompt, "--no-session"], pi_prompt),
        ):
            sides = [[*pith, *pith_args]]
            if with_pi:
                sides.append([*pi_command(), *pi_args])
            fastest = best_in_turns(sides, scratch, runs)
            rows.append((row, fastest[0], fastest[1] if with_pi else None))
        served = len(server.timings())
        delays = []
        for _ in range(runs):
            started = time.time()
            run_once([*pith, *prompt, "--no-session"], scratch)
            delays.append(server.timings()[served][0] - started)
            served += 1
        first = min(delays)
        memory_runs = 2 if options.quick else 3
        rss = min(
            peak_rss_mb([*pith, *prompt, "--no-session"], scratch) for _ in range(memory_runs)
        )
        figures["print_rss_pith_mb"] = round(rss, 1)
        if with_pi:
            pi_rss = min(
                peak_rss_mb([*pi_command(), *pi_prompt], scratch) for _ in range(memory_runs)
            )
            figures["print_rss_pi_mb"] = round(pi_rss, 1)
            figures["print_rss_ratio"] = round(rss / pi_rss, 2)
        if options.icount:
            for row, args in (("version", ["--version"]), ("print", [*prompt, "--no-session"])):
                count = instructions([*pith, *args], scratch)
                if count is not None:
                    figures[f"{row}_pith_minstr"] = round(count / 1e6, 1)
    print(f"{'row':<16} {'pith ms':>9} {'Pi ms':>9} {'pith/Pi':>8}")
    print(f"{'python -c pass':<16} {python * 1000:9.1f}")
    for row, mine, theirs in rows:
        figures[f"{row}_pith_ms"] = round(mine * 1000, 1)
        line = f"{row:<16} {mine * 1000:9.1f}"
        if theirs is not None:
            figures[f"{row}_pi_ms"] = round(theirs * 1000, 1)
            figures[f"{row}_ratio"] = round(mine / theirs, 2)
            line += f" {theirs * 1000:9.1f} {mine / theirs:8.2f}"
        print(line)
    print(f"{'first_request':<16} {first * 1000:9.1f}")
    figures["first_request_pith_ms"] = round(first * 1000, 1)
    pi_rss_text = f" (Pi {figures['print_rss_pi_mb']} MiB)" if "print_rss_pi_mb" in figures else ""
    print(f"{'print peak RSS':<16} {figures['print_rss_pith_mb']:9} MiB{pi_rss_text}")
    for key, value in figures.items():
        if key.endswith("_minstr"):
            print(f"{key:<28} {value} M instructions")
    if not with_pi:
        figures["pi"] = "oracle-not-installed"
    figures["target"] = "ratio<=0.7"
    print(summary("startup", **figures))


if __name__ == "__main__":
    main()
