"""pith's diffs equal Pi 1.6's (jsdiff 8.0.4) on every recorded case (tests/conformance/diff.json).

Recorded by tests/conformance/record_diff.py: `generateDiffString` and `generateUnifiedPatch`
called directly, and the `details` of Pi's edit tool (`generateEditDiff`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pith.tools._diff import display_diff, edit_diff, unified_patch

GOLDEN = json.loads((Path(__file__).parent / "diff.json").read_text(encoding="utf-8"))
CASES: list[dict[str, Any]] = GOLDEN["cases"]
PATH = "f.txt"


def _recipe_lines(recipe: dict[str, Any]) -> list[str]:
    # Same generator as record_diff.py; the stored sha256 catches any drift.
    n = recipe["n"]
    if recipe["kind"] == "numbered":
        period = recipe.get("period", 0)
        return [f"line {i % period if period else i}" for i in range(n)]
    assert recipe["kind"] == "blocks"
    lines: list[str] = []
    for i in range(n):
        lines += [f"def f{i}(x):", "    if x:", "        return x", "    pass", ""]
    return lines


def _text(source: dict[str, Any]) -> str:
    if "text" in source:
        return str(source["text"])
    lines = _recipe_lines(source["recipe"])
    for index, deleted, inserted in sorted(source.get("ops", []), reverse=True):
        lines[index : index + deleted] = inserted
    eol = source.get("eol", "\n")
    text = eol.join(lines)
    if source.get("finalNewline", True) and lines:
        text += eol
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == source["sha256"]
    return text


def _compact(result: str) -> object:
    if len(result) > 20000:
        return {"sha256": hashlib.sha256(result.encode("utf-8")).hexdigest()}
    return result


@dataclass(frozen=True)
class _Match:
    match_index: int
    match_length: int
    new_text: str


def _apply_exact(base: str, edits: list[dict[str, str]]) -> tuple[str, list[_Match]]:
    """Pi's exact-match path: each oldText found once in base, applied from the last one back."""
    matches = sorted(
        (_Match(base.index(e["oldText"]), len(e["oldText"]), e["newText"]) for e in edits),
        key=lambda m: m.match_index,
    )
    new = base
    for m in reversed(matches):
        new = new[: m.match_index] + m.new_text + new[m.match_index + m.match_length :]
    return new, matches


def _case_id(case: dict[str, Any]) -> str:
    return str(case["fn"])


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["fn"] == "generateDiffString"], ids=_case_id
)
def test_display_diff_matches_pi(case: dict[str, Any]) -> None:
    diff, first = display_diff(_text(case["old"]), _text(case["new"]), case["contextLines"])
    assert {"diff": _compact(diff), "firstChangedLine": first} == case["result"]


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["fn"] == "generateUnifiedPatch"], ids=_case_id
)
def test_unified_patch_matches_pi(case: dict[str, Any]) -> None:
    patch = unified_patch(PATH, _text(case["old"]), _text(case["new"]), case["contextLines"])
    assert _compact(patch) == case["result"]


@pytest.mark.parametrize("case", [c for c in CASES if c["fn"] == "editDiff"], ids=_case_id)
def test_edit_diff_matches_pi_edit_tool(case: dict[str, Any]) -> None:
    base = _text(case["base"])
    new, replacements = _apply_exact(base, case["edits"])
    result = edit_diff(PATH, base, new, replacements)
    assert {
        "diff": result.diff,
        "patch": result.patch,
        "firstChangedLine": result.first_changed_line,
    } == case["result"]


def test_golden_file_covers_every_function() -> None:
    assert GOLDEN["pi"]["version"] == "1.6.0"
    kinds = {case["fn"] for case in CASES}
    assert kinds == {"generateDiffString", "generateUnifiedPatch", "editDiff"}
