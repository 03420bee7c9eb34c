"""pith's seven built-in tools give Pi 1.6's results on every recorded call.

Golden data: tests/conformance/tools.json, recorded by tests/conformance/record_tools.py through
the oracle's `runTool` (the full model-call pipeline: argument repair, schema validation,
execute, thrown errors as isError results). Each case rebuilds its fixture from
tests/conformance/tool_fixtures.py in a temporary directory and runs the same call through
`pith.app.run_tool`. Where pith deliberately differs from Pi, INTENDED holds pith's own
expected result, with the reason.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest

from pith.ai import UNSET, TextContent, to_builtins
from pith.app import run_tool
from tests.conformance.tool_fixtures import (
    EDIT_FILES,
    build_fixture,
    normalize,
    release_unreadable,
    snapshot,
    substitute_root,
)

GOLDEN = json.loads((Path(__file__).parent / "tools.json").read_text(encoding="utf-8"))
CASES: list[dict[str, Any]] = GOLDEN["cases"]


def _ok(text: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": False}
    if details is not None:
        result["details"] = details
    return result


def _error(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True, "details": {}}


def _reordered(text: str) -> dict[str, Any]:
    """pith lists the same lines as Pi, sorted by path (Pi prints them in rg/fd's thread order)."""
    return {"result": _ok(text), "sameLinesAsPi": True}


_FIND_NOTHING = "No files found matching pattern"

# Where pith deliberately differs from Pi (docs/differences.md): case id -> pith's own expected
# result, normalised as stored; "filesAfter" when the files end differently, "sameLinesAsPi"
# when only the order differs.
INTENDED: dict[str, dict[str, Any]] = {
    # Clearer one-line errors for missing files and directories (Pi shows Node's errno text).
    "read-directory": {"result": _error("sub is a directory, not a file. Use ls to list it.")},
    "read-missing": {"result": _error("File not found: nope.txt")},
    "read-missing-parent": {"result": _error("File not found: nodir/x.txt")},
    "read-broken-symlink": {"result": _error("File not found: broken_link.txt")},
    # Both coerce 3 to the path "3"; only the missing-file wording differs.
    "read-path-number": {"result": _error("File not found: 3")},
    "edit-missing-file": {"result": _error("File not found: nope.py")},
    "edit-directory": {"result": _error("sub is a directory, not a file. Use ls to list it.")},
    "write-to-directory": {
        "result": _error("sub is a directory; give the path of a file to write.")
    },
    # Missing or non-directory search path: pith's own one-liner instead of fd's stderr.
    "find-missing-path": {"result": _error("Path not found: <ROOT>/nope")},
    "find-path-is-file": {"result": _error("Not a directory: <ROOT>/README.md")},
    # pith refuses to show binary files as text (Pi returns the raw bytes, NULs included).
    "read-binary": {
        "result": _error(
            "binary.bin is a binary file (15B); its bytes cannot be shown as text. Inspect it "
            "with bash instead, e.g. `file binary.bin` or `xxd binary.bin | head`."
        )
    },
    # pith's read warns that U+FFFD stands for undecodable bytes.
    "read-invalid-utf8": {
        "result": _ok(
            "good line\nbad \ufffd\ufffd bytes\nend\n\n\n[The file is not valid UTF-8: "
            "undecodable bytes are shown as \ufffd. Do not edit it with the edit tool.]"
        )
    },
    # pith refuses to edit invalid UTF-8 (Pi would write U+FFFD over the bad bytes); the file
    # keeps its bytes.
    "edit-invalid-utf8": {
        "result": _error(
            "invalid_utf8.txt is not valid UTF-8 (invalid byte at offset 14); editing it would "
            "corrupt those bytes. Use bash (sed, perl) or rewrite it with write."
        ),
        "filesAfter": {
            "invalid_utf8.txt": {
                "base64": base64.b64encode(EDIT_FILES["invalid_utf8.txt"]).decode()
            }
        },
    },
    # pith's validation does not coerce null to the string "null" for a required string.
    "read-path-null": {
        "result": _error(
            'Validation failed for tool "read":\n  - path: expected string, got null\n\n'
            'Received arguments:\n{\n  "path": null\n}'
        )
    },
    # grep and find sort results by path.
    "grep-basic": _reordered(
        ".env:2: # TODO hidden\nREADME.md:2: TODO: write docs\n"
        "docs/guide.md:2: See the TODO list.\nsrc/main.py:5:     # TODO: more"
    ),
    "grep-subdir": _reordered(
        "App.PY:1: def upper():\nmain.py:4: def main():\npkg/mod.py:1: def mod_func():\n"
        "util.py:1: def helper(x):"
    ),
    "grep-glob-dot-slash": _reordered("src/main.py:4: def main():\nsrc/util.py:1: def helper(x):"),
    "grep-glob-double-star": _reordered(
        "src/main.py:4: def main():\nsrc/pkg/mod.py:1: def mod_func():\n"
        "src/util.py:1: def helper(x):\ntests/test_main.py:4: def test_main():"
    ),
    "grep-glob-braces": _reordered(
        "README.md:2: TODO: write docs\ndocs/guide.md:2: See the TODO list."
    ),
    # Sorted by path, so the first 3 by name are kept (Pi keeps whichever fd found first).
    "find-limit-reached": {
        "result": _ok(
            "f01.txt\nf02.txt\nf03.txt\n\n"
            "[3 results limit reached. Use limit=6 for more, or refine pattern]",
            {"resultLimitReached": 3},
        )
    },
    # grep and find skip .git.
    "grep-repo-dot-git-contents": {"result": _ok("No matches found")},
    "find-repo-dot-git": {"result": _ok(_FIND_NOTHING)},
    # pith's find lists directories only as parents of files, so empty ones are not found.
    "find-empty-dir": {"result": _ok(_FIND_NOTHING)},
    # Not a pith choice: Pi reads stdout and stderr through two pipes, so its order for unpaced
    # writes is a race (a,c,b in some recordings); pith's single pipe keeps the write order.
    "bash-stderr-interleaved": {"result": _ok("a\nb\nc\n")},
    # pith floors fractional offsets and limits (Pi prints "7.8 more lines ... offset=4.2").
    "read-offset-fraction": {
        "result": _ok("line 2\n\n[9 more lines in file. Use offset=3 to continue.]")
    },
    # A negative limit is an error (Pi slices from the end and suggests offset=0).
    "read-limit-negative": {"result": _error("limit must be 0 or more lines, got -1")},
    # true is not a line number (Pi turns it into 1).
    "read-bool-offset": {
        "result": _error(
            'Validation failed for tool "read":\n  - offset: expected number, got boolean\n\n'
            'Received arguments:\n{\n  "path": "small.txt",\n  "offset": true\n}'
        )
    },
    # pith names the size of the line it shows; Pi measures the empty piece after the final
    # newline ("line is 0B"). Everything else is Pi's text.
    "bash-one-100k-line-newline": {"textFix": ("(line is 97.7KB)", "(line is 0B)")},
    # pith reads on for up to a second after the shell exits, so a background child that
    # finishes within it is shown (Pi returns when the shell exits).
    "bash-background-writer": {"result": _ok("early\nlate\n")},
}


def _pith_result(case: dict[str, Any], root: Path) -> dict[str, Any]:
    params = substitute_root(case["params"], str(root))
    outcome = asyncio.run(run_tool(case["tool"], params, str(root)))
    result = outcome.result
    fix = INTENDED.get(case["id"], {}).get("textFix")
    if fix is not None:
        # Assert pith's own wording, then compare the rest of the text with Pi's.
        block = result.content[0]
        assert isinstance(block, TextContent)
        assert fix[0] in block.text
        block.text = block.text.replace(fix[0], fix[1])
    observed: dict[str, Any] = {
        "content": to_builtins(result.content),
        "isError": result.is_error,
    }
    if result.details is not UNSET:
        observed["details"] = to_builtins(result.details)
    if result.terminate:
        observed["terminate"] = True
    return normalize(observed, str(root))


def _expected(case: dict[str, Any]) -> dict[str, Any]:
    expected = {key: value for key, value in case["pi"].items() if key != "structuredContent"}
    return INTENDED.get(case["id"], {}).get("result", expected)


def _lines(result: dict[str, Any]) -> list[str]:
    return str(result["content"][0]["text"]).split("\n")


@pytest.fixture(autouse=True)
def _c_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    # The recording ran Pi's bash with LC_ALL=C.
    monkeypatch.setenv("LC_ALL", "C")


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_tool_result_matches_pi(case: dict[str, Any], tmp_path: Path) -> None:
    root = Path(os.path.realpath(tmp_path)) / "ws"
    build_fixture(case["fixture"], root)
    try:
        observed = _pith_result(case, root)
        assert observed == _expected(case)
        if INTENDED.get(case["id"], {}).get("sameLinesAsPi"):
            assert sorted(_lines(observed)) == sorted(_lines(case["pi"]))
        if "files" in case:
            files_expected = INTENDED.get(case["id"], {}).get("filesAfter", case["filesAfter"])
            assert snapshot(root, case["files"]) == files_expected
    finally:
        release_unreadable(root)


def test_intended_differences_name_recorded_cases() -> None:
    recorded = {case["id"] for case in CASES}
    assert set(INTENDED) <= recorded
