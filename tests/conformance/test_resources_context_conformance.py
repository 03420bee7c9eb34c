"""pith loads the same context files (AGENTS.md / CLAUDE.md) as Pi 1.6 on every recorded tree.

Golden data: resources/golden.json, groups `context` (`loadProjectContextFiles`) and the
`agentsFiles` of every `resourceLoader` case. Each case rebuilds its fixture in a fresh
temporary directory (`.pi` renamed `.pith`; see resources_golden.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pith.resources._context_files import load_context_files
from tests.conformance.resources_golden import (
    build_fixture,
    case_ids,
    cases,
    pith_path,
    unroot,
)

WALK_CASES = cases("context", "loadProjectContextFiles")
LOADER_CASES = cases(fn="resourceLoader")


def _loaded(case: dict[str, Any], tmp_path: Path) -> tuple[list[dict[str, str]], Path]:
    root = build_fixture(case["fixture"], tmp_path)
    args = case["args"]
    files, diagnostics = load_context_files(
        pith_path(args["cwd"], root), pith_path(args["agentDir"], root)
    )
    assert diagnostics == []
    return [{"path": unroot(f.path, root), "content": f.content} for f in files], root


def _expected(files: list[dict[str, str]]) -> list[dict[str, str]]:
    # Expected paths keep <ROOT>; only `.pi` segments are renamed.
    return [{"path": pith_path(f["path"], Path("<ROOT>")), "content": f["content"]} for f in files]


def test_every_context_case_is_covered() -> None:
    covered = {case["id"] for case in WALK_CASES + LOADER_CASES}
    assert {case["id"] for case in cases("context")} <= covered
    assert len(WALK_CASES) == 25


@pytest.mark.parametrize("case", WALK_CASES, ids=case_ids(WALK_CASES))
def test_context_files_match_pi(case: dict[str, Any], tmp_path: Path) -> None:
    loaded, _ = _loaded(case, tmp_path)
    assert loaded == _expected(case["result"])


@pytest.mark.parametrize("case", LOADER_CASES, ids=case_ids(LOADER_CASES))
def test_resource_loader_agents_files_match_pi(case: dict[str, Any], tmp_path: Path) -> None:
    expected = _expected(case["result"]["agentsFiles"])
    if case["args"].get("options", {}).get("noContextFiles"):
        # --no-context-files is the loader's switch: Pi then loads nothing, agent dir included.
        assert expected == []
        return
    loaded, _ = _loaded(case, tmp_path)
    assert loaded == expected
