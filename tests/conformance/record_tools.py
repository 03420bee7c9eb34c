"""Record Pi's built-in tool results as golden data: `python tests/conformance/record_tools.py`.

Needs Pi 1.6 and the oracle harness in the folder that `PITH_PI_ORACLE` names
(tests/conformance/README.md). Each call in tool_fixtures.CASES runs through Pi's
`runTool` (argument preparation, schema validation, execute, thrown errors as isError results)
in a freshly built fixture directory. Writes tests/conformance/tools.json; the tests read only
that file and never need Node. An optional argument writes elsewhere (to check that two
recordings agree).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from oracle_location import oracle_dir

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(oracle_dir()))

from pi_oracle import PiOracle  # noqa: E402

from tests.conformance.tool_fixtures import (  # noqa: E402
    CASES,
    build_fixture,
    normalize,
    permission_checks_apply,
    release_unreadable,
    snapshot,
    substitute_root,
)

OUTPUT = HERE / "tools.json"


def pi_result(raw: dict[str, Any], root: str) -> dict[str, Any]:
    result: dict[str, Any] = {"content": raw["content"], "isError": raw["isError"]}
    if "details" in raw:
        result["details"] = raw["details"]
    if raw.get("terminate") is not None:
        result["terminate"] = raw["terminate"]
    structured = raw.get("structuredContent")
    if isinstance(structured, dict):
        # Timing, not behaviour.
        structured = {k: v for k, v in structured.items() if k != "wall_time_seconds"}
    if structured is not None:
        result["structuredContent"] = structured
    return normalize(result, root)


def record_case(pi: PiOracle, case: dict[str, Any]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="pith-tools-") as tmp:
        root_path = Path(os.path.realpath(tmp)) / "ws"
        build_fixture(case["fixture"], root_path)
        root = str(root_path)
        try:
            raw = pi.call(
                "runTool",
                tool=case["tool"],
                cwd=root,
                params=substitute_root(case["params"], root),
                timeoutMs=60_000,
            )
            recorded = dict(case)
            recorded["pi"] = pi_result(raw, root)
            if "files" in case:
                recorded["filesAfter"] = snapshot(root_path, case["files"])
        finally:
            release_unreadable(root_path)
    return recorded


def main() -> None:
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT
    cases: list[dict[str, Any]] = []
    skipped: list[str] = []
    with PiOracle(env={"LC_ALL": "C"}) as pi:
        version = pi.call("version")
        for case in CASES:
            if case.get("needsPermissions") and not permission_checks_apply():
                # As root a chmod 000 file is still readable, so Pi's answer would be wrong data.
                skipped.append(case["id"])
                continue
            cases.append(record_case(pi, case))
    golden = {
        "pi": {"version": version["piVersion"], "node": version["node"]},
        "recordedBy": "tests/conformance/record_tools.py",
        "env": {"LC_ALL": "C"},
        "notes": (
            "<ROOT> is the fixture directory (built by tool_fixtures.py), <BASH_LOG> bash's "
            "full-output file. Strings over 4000 chars are stored as {sha256, chars, head, "
            "tail}. filesAfter holds the watched files after the call (null when absent). "
            "structuredContent is recorded for reference only (without wall_time_seconds)."
        ),
        "skippedAsRoot": skipped,
        "cases": cases,
    }
    output.write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {output}: {len(cases)} cases, {output.stat().st_size} bytes")
    if skipped:
        print(f"skipped (running as root, permissions not enforced): {', '.join(skipped)}")


if __name__ == "__main__":
    main()
