"""Truncation speed on a log-like text and on mixed lines, beside Pi's measured in the same run.

    python bench/truncate.py [--quick] [--pure]

Two texts: `log` (one short log line with an `é`, repeated; 1, 10 and 100 MB) and `mixed`
(ASCII, empty lines, accented Latin, CJK, emoji outside the BMP, 4 KB lines, CRLF; 1 and 10 MB).
Pi's figures come from its own `truncateTail` / `truncateHead` timed inside Node (Pi 1.6 and its
Node from the folder `PITH_PI_ORACLE` names, see tests/conformance/README.md) on the same text,
handed over in a file. `--quick` measures 10 MB only (the size the target is set on) with
fewer repeats; `--pure` times pith's pure-Python totals instead of its compiled helper
(pith.tools._textscan). Target: pith at most 0.5x Pi's time from 10 MB up, on both texts.

The last line is the summary: `<fn>_<text>_<size>_pith_ms`, `..._pi_ms` and `..._ratio` per
row, e.g. `tail_log_10mb_ratio`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PI_NODE, PI_PACKAGE, best_of, oracle_available, summary
from pith.tools import _textscan, _truncate
from pith.tools._truncate import truncate_head, truncate_tail

LOG_LINE = "2026-11-29 12:00:00 INFO worker-7 processed item 123456 in 0.42 ms é\n"
MIXED_LINES = (
    "plain ascii: compiled module 42 of 97 in 0.8 s",
    "",
    "naïve café résumé — Übersicht über die Größe",
    "日本語のテキスト、中文字符 ✓ 完成",
    "emoji outside the BMP: 🚀 🎉 🧪",
    "",
    "long: " + "lorem ipsum dolor sit amet ünïcödé " * 120,
    "windows line ending\r",
    "\t indented trace line at frame 7",
)

PI_TIMER = r"""
const { readFileSync } = await import("node:fs");
const [pkg, casesJson, repeat] = process.argv.slice(1);
const { truncateHead, truncateTail } = await import("file://" + pkg + "/dist/index.js");
const out = {};
for (const [name, path] of JSON.parse(casesJson)) {
  const text = readFileSync(path, "utf8");
  for (const [fnName, fn] of [["tail", truncateTail], ["head", truncateHead]]) {
    let best = Infinity;
    for (let i = 0; i < Number(repeat); i++) {
      const t = performance.now(); fn(text); best = Math.min(best, performance.now() - t);
    }
    out[`${fnName}_${name}`] = best / 1000;
  }
}
console.log(JSON.stringify(out));
"""


def log_text(megabytes: int) -> str:
    size = megabytes * 1024 * 1024
    repeats = -(-size // len(LOG_LINE.encode()))
    return (LOG_LINE * repeats)[:size]


def mixed_text(megabytes: int) -> str:
    size = megabytes * 1024 * 1024
    block = "\n".join(MIXED_LINES) + "\n"
    repeats = -(-size // len(block.encode()))
    return (block * repeats).encode()[:size].decode("utf-8", "ignore")


def pi_times(cases: dict[str, str], folder: Path, repeat: int) -> dict[str, float] | None:
    if not oracle_available():
        return None
    files = []
    for name, text in cases.items():
        path = folder / f"{name}.txt"
        path.write_text(text, encoding="utf-8")
        files.append([name, str(path)])
    arguments = [json.dumps(files), str(repeat)]
    completed = subprocess.run(
        [str(PI_NODE), "--input-type=module", "-e", PI_TIMER, str(PI_PACKAGE), *arguments],
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    )
    return {key: float(value) for key, value in json.loads(completed.stdout).items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 MB only, fewer repeats")
    parser.add_argument("--pure", action="store_true", help="time the pure-Python totals")
    args = parser.parse_args()
    if args.pure:
        _truncate._scan = _textscan.scan_python
    repeat = 3 if args.quick else 15
    makers: dict[str, Callable[[int], str]] = {"log": log_text, "mixed": mixed_text}
    sizes = {"log": (1, 10, 100), "mixed": (1, 10)}
    if args.quick:
        sizes = {"log": (10,), "mixed": (10,)}
    ours: dict[str, float] = {}
    theirs: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="pith-bench-truncate-") as folder:
        for kind, maker in makers.items():
            for megabytes in sizes[kind]:
                name = f"{kind}_{megabytes}mb"
                text = maker(megabytes)
                ours[f"tail_{name}"] = best_of(partial(truncate_tail, text), repeat)
                ours[f"head_{name}"] = best_of(partial(truncate_head, text), repeat)
                theirs.update(pi_times({name: text}, Path(folder), repeat) or {})
                del text
    print(f"{'row':<20} {'pith ms':>10} {'pi ms':>10} {'ratio':>8}")
    figures: dict[str, object] = {"path": "python" if args.pure else _textscan.IMPLEMENTATION}
    ratios: dict[str, float] = {}
    for row, seconds in ours.items():
        figures[f"{row}_pith_ms"] = round(seconds * 1000, 3)
        pi_seconds = theirs.get(row)
        if pi_seconds:
            ratios[row] = seconds / pi_seconds
            figures[f"{row}_pi_ms"] = round(pi_seconds * 1000, 3)
            figures[f"{row}_ratio"] = round(ratios[row], 3)
        pi_text = f"{pi_seconds * 1000:10.2f}" if pi_seconds else f"{'-':>10}"
        ratio_text = f"{ratios[row]:8.3f}" if row in ratios else f"{'-':>8}"
        print(f"{row:<20} {seconds * 1000:10.2f} {pi_text} {ratio_text}")
    large = [value for row, value in ratios.items() if not row.endswith("_1mb")]
    if large:
        figures["worst_ratio_10mb_up"] = round(max(large), 3)
        figures["target"] = "<=0.5"
    elif not ratios:
        figures["pi"] = "oracle-not-installed"
    print(summary("truncate", **figures))


if __name__ == "__main__":
    main()
