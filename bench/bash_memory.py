"""Peak memory and wall time of the bash tool on a command printing 200 MB, and of the tool
guard applying a view to that much output.

    python bench/bash_memory.py [MEGABYTES]

Each case runs in a fresh Python process (so the peak RSS is the tool's own), once with many
short lines and once with one huge line. The baseline is the same command redirected to a file
by bash (`cmd > file`), timed in the same minute. Targets: peak RSS under 80 MB whatever the
output size; wall time within 2x of the baseline.

The guarded cases (`cat BIG | tail -3`, `cat BIG | grep -c x` through the guard, which runs
`cat BIG` and applies the view to its full output) are reported as peak RSS against the
unguarded bash tool's `cat BIG` in the same run. Target: a ratio under 1.5 (flat memory).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import summary

CASES = {
    "lines": "yes 'output line from a noisy build step, number 0123456789' | head -c {size}",
    "one_line": "head -c {size} /dev/zero | tr '\\0' x",
}

GUARDED_CASES = {"guard_tail": "cat {big} | tail -3", "guard_grep": "cat {big} | grep -c x"}

RUNNER = r"""
import asyncio, json, os, re, sys, time
from pith.agent import AbortController
from pith.ext.guard._tools import GuardedTool, GuardSettings
from pith.tools import BashTool

command = sys.argv[1]
tool = BashTool(os.getcwd())
if len(sys.argv) > 2:
    tool = GuardedTool(tool, GuardSettings, lambda message: None)
started = time.perf_counter()
result = asyncio.run(tool.execute("bench", {"command": command}, AbortController().signal, None))
wall = time.perf_counter() - started
text = result.text()
details = result.details if isinstance(result.details, dict) else {}
match = re.search(r"Full output: (\S+)", text)
full = details.get("fullOutputPath") or (match.group(1) if match else None)
size = os.path.getsize(full) if full else 0
if full:
    os.unlink(full)
print(json.dumps({
    "wall": wall,
    # VmHWM: this process's own peak since exec (ru_maxrss starts at its parent's)
    "peak_rss_mb": int(re.search(r"VmHWM:\s+(\d+)", open("/proc/self/status").read())[1]) / 1024,
    "full_output_bytes": size,
    "shown_bytes": len(text.encode()),
}))
"""


def baseline(command: str) -> float:
    with tempfile.TemporaryDirectory() as directory:
        target = os.path.join(directory, "out")
        started = time.perf_counter()
        subprocess.run(["bash", "-c", f"{command} > {target}"], check=True)
        return time.perf_counter() - started


def measure(command: str, *, guarded: bool = False) -> dict[str, float]:
    completed = subprocess.run(
        [sys.executable, "-c", RUNNER, command, *(["guard"] if guarded else [])],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(completed.stdout)


def main() -> None:
    megabytes = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    size = megabytes * 1024 * 1024
    idle = measure("true")
    print(f"python + pith imported, idle command: peak RSS {idle['peak_rss_mb']:.1f} MB")
    header = ("case", "peak MB", "wall s", "cmd>file s", "ratio", "saved MB")
    print("{:<10} {:>9} {:>8} {:>11} {:>7} {:>9}".format(*header))
    figures: dict[str, object] = {"output_mb": megabytes}
    worst_rss = 0.0
    worst_ratio = 0.0
    for name, template in CASES.items():
        command = template.format(size=size)
        base = baseline(command)
        ours = measure(command)
        ratio = ours["wall"] / base
        worst_rss = max(worst_rss, ours["peak_rss_mb"])
        worst_ratio = max(worst_ratio, ratio)
        saved = ours["full_output_bytes"] / 1024 / 1024
        print(
            f"{name:<10} {ours['peak_rss_mb']:9.1f} {ours['wall']:8.2f} {base:11.2f} "
            f"{ratio:7.2f} {saved:9.1f}"
        )
        figures[f"{name}_peak_rss_mb"] = round(ours["peak_rss_mb"], 1)
        figures[f"{name}_wall_ratio"] = round(ratio, 2)
    figures["worst_peak_rss_mb"] = round(worst_rss, 1)
    figures["worst_wall_ratio"] = round(worst_ratio, 2)
    figures.update(guarded(size))
    figures["targets"] = "rss<80,ratio<=2,guard_rss_ratio<1.5"
    print(summary("bash_memory", **figures))


def guarded(size: int) -> dict[str, object]:
    """The guard's cases against the bash tool's `cat BIG`, on a file of `size` bytes."""
    with tempfile.TemporaryDirectory() as directory:
        big = os.path.join(directory, "big.log")
        line = b"a line of a long build log without the letter after w\n"
        with open(big, "wb") as handle:
            block = line * (1024 * 1024 // len(line))
            for _ in range(max(size // len(block), 1)):
                handle.write(block)
        plain = measure(f"cat {big}")
        print()
        header = ("guarded", "peak MB", "wall s", "bash peak MB", "ratio")
        print("{:<10} {:>9} {:>8} {:>12} {:>9}".format(*header))
        figures: dict[str, object] = {"bash_cat_peak_rss_mb": round(plain["peak_rss_mb"], 1)}
        for name, template in GUARDED_CASES.items():
            ours = measure(template.format(big=big), guarded=True)
            ratio = ours["peak_rss_mb"] / plain["peak_rss_mb"]
            print(
                f"{name:<10} {ours['peak_rss_mb']:9.1f} {ours['wall']:8.2f} "
                f"{plain['peak_rss_mb']:12.1f} {ratio:9.2f}"
            )
            figures[f"{name}_peak_rss_mb"] = round(ours["peak_rss_mb"], 1)
            figures[f"{name}_rss_ratio"] = round(ratio, 2)
        return figures


if __name__ == "__main__":
    main()
