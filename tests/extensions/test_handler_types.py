"""`api.on` is typed per event: mypy --strict accepts handlers that match their event's payload
and answer, and refuses the ones that do not (mypy runs in a subprocess on two small files)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent / "typed"
ROOT = Path(__file__).resolve().parents[2]
GOOD = HERE / "good_handlers.py"
WRONG = HERE / "wrong_handlers.py"
ERROR = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: ", re.MULTILINE)


def test_mypy_accepts_matching_handlers_and_refuses_each_wrong_one(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-error-summary",
            "--cache-dir",
            str(tmp_path / "cache"),
            str(GOOD),
            str(WRONG),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    errors = [(Path(m["file"]).name, int(m["line"])) for m in ERROR.finditer(result.stdout)]
    assert [e for e in errors if e[0] == GOOD.name] == [], result.stdout
    lines = WRONG.read_text().splitlines()
    refused = [n for n, line in enumerate(lines, start=1) if line.endswith("# refused")]
    assert len(refused) == 7
    assert sorted({line for name, line in errors if name == WRONG.name}) == refused, result.stdout
