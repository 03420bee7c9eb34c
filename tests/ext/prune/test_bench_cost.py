"""bench/cost.py runs end to end (quick: a 48-call session, Anthropic only) and reports its
figures in the documented shape; the figures themselves are the benchmark's business."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
STRATEGIES = ("none", "mask", "summarize", "budget", "compaction", "default")


def test_quick_run_prints_dollars_and_tokens_per_strategy(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "cost.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1].startswith("cost: calls=48 ")
    figures = dict(part.split("=", 1) for part in lines[-1].split(" ")[1:])
    for strategy in STRATEGIES:
        assert float(figures[f"anthropic_{strategy}_usd"]) > 0
        assert int(figures[f"anthropic_{strategy}_tokens"]) > 0
    assert figures["anthropic_none_money_ratio"] == "1.0"
    assert float(figures["default_money_ratio"]) == float(figures["anthropic_default_money_ratio"])
    # Every request was billed from the cache model, and pith's own accounting agrees.
    none = next(line for line in lines if line.startswith("anthropic  none "))
    assert int(none.split()[4].replace(",", "")) > 0  # cache reads
    assert not any("own accounting" in line or "prune-stats" in line for line in lines)
