"""The guard's memory stays flat: views run over the full output streamed from its file.

Each case runs the guarded bash tool in a fresh Python process on a file of a few hundred MB and
reads that process's own peak RSS: deterministic, whatever the machine's speed. The peak is
`VmHWM` from /proc/self/status, which counts only the process's own memory since it started;
`ru_maxrss` would not do — it survives exec, so it starts at the peak of the (large) test worker
that spawned the process.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pith.testing import subprocess_env

BIG_MB = 256
PEAK_LIMIT_MB = 120
"""Far below the file: Python with pith imported takes about 40 MB."""

_RUNNER = r"""
import asyncio, json, os, re, sys
from pith.agent import AbortController
from pith.ext.guard._tools import GuardedTool, GuardSettings
from pith.tools import BashTool

tool = GuardedTool(BashTool(os.getcwd()), GuardSettings, lambda message: None)
result = asyncio.run(
    tool.execute("c1", {"command": sys.argv[1]}, AbortController().signal, None)
)
print(json.dumps({
    "peak_mb": int(re.search(r"VmHWM:\s+(\d+)", open("/proc/self/status").read())[1]) / 1024,
    "text": result.text(),
    "guarded": "guard" in (result.details or {}),
}))
"""


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """BIG_MB of numbered lines, one `abc` line every 1024."""
    folder = tmp_path_factory.mktemp("big")
    block = b"".join(b"line %05d of a long log\n" % n for n in range(1023)) + b"abc\n"
    repeat = BIG_MB * 1024 * 1024 // len(block)
    with (folder / "big.log").open("wb") as handle:
        for _ in range(repeat):
            handle.write(block)
    yield folder
    (folder / "big.log").unlink()  # pytest keeps old temp folders: do not keep this one


def _run_guarded(folder: Path, tmp_path: Path, command: str) -> dict[str, object]:
    temp = tmp_path / "tmp"
    temp.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", _RUNNER, command],
        cwd=folder,
        env=subprocess_env(tmp_path / "agent", TMPDIR=str(temp)),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    shutil.rmtree(temp)  # the full-output file
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert isinstance(outcome, dict)
    return outcome


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cat big.log | tail -3", "line 01021 of a long log\nline 01022 of a long log\nabc"),
        ("cat big.log | grep -c abc", str(BIG_MB * 1024 * 1024 // (1023 * 25 + 4))),
    ],
)
def test_a_view_over_a_big_output_keeps_memory_flat(
    big: Path, tmp_path: Path, command: str, expected: str
) -> None:
    outcome = _run_guarded(big, tmp_path, command)
    assert outcome["guarded"]
    assert outcome["text"] == expected
    peak = outcome["peak_mb"]
    assert isinstance(peak, float)
    assert peak < PEAK_LIMIT_MB, f"peak RSS {peak:.0f} MB for a {BIG_MB} MB output"
