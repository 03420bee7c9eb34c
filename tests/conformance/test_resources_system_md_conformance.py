"""pith finds the same SYSTEM.md / APPEND_SYSTEM.md text as Pi 1.6 (or reads the same
--system-prompt / --append-system-prompt values) on every recorded tree.

Golden data: resources/golden.json, the `systemPrompt`, `systemPromptSource`,
`appendSystemPrompt` and `appendSystemPromptSources` of every `resourceLoader` case (group
`system_md` and the loader cases of the other groups). `.pi` is renamed `.pith`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pith.resources._system_files import load_system_files
from tests.conformance.resources_golden import (
    build_fixture,
    case_ids,
    cases,
    pith_path,
    unroot,
)

LOADER_CASES = cases(fn="resourceLoader")
FIELDS = ("systemPrompt", "systemPromptSource", "appendSystemPrompt", "appendSystemPromptSources")


def test_every_system_md_case_is_covered() -> None:
    assert {case["id"] for case in cases("system_md")} <= {case["id"] for case in LOADER_CASES}
    assert len(cases("system_md")) == 7


@pytest.mark.parametrize("case", LOADER_CASES, ids=case_ids(LOADER_CASES))
def test_system_files_match_pi(case: dict[str, Any], tmp_path: Path) -> None:
    root = build_fixture(case["fixture"], tmp_path)
    args = case["args"]
    options = args.get("options", {})
    system_prompt = options.get("systemPrompt")
    appends = options.get("appendSystemPrompt")
    loaded = load_system_files(
        pith_path(args["cwd"], root),
        pith_path(args["agentDir"], root),
        trusted=args["projectTrusted"],
        system_prompt=None if system_prompt is None else pith_path(system_prompt, root),
        append_system_prompt=None if appends is None else [pith_path(a, root) for a in appends],
    )
    assert loaded.diagnostics == []
    custom = loaded.system_prompt
    got = {
        "systemPrompt": None if custom is None else unroot(custom.text, root),
        "systemPromptSource": (
            None
            if custom is None or custom.source is None
            else {"path": unroot(custom.source, root)}
        ),
        "appendSystemPrompt": [unroot(a.text, root) for a in loaded.append],
        "appendSystemPromptSources": [
            {"path": unroot(a.source, root)} for a in loaded.append if a.source is not None
        ],
    }
    result = case["result"]
    expected = {
        "systemPrompt": result["systemPrompt"],
        "systemPromptSource": (
            None
            if result["systemPromptSource"] is None
            else {"path": pith_path(result["systemPromptSource"]["path"], Path("<ROOT>"))}
        ),
        "appendSystemPrompt": result["appendSystemPrompt"],
        "appendSystemPromptSources": [
            {"path": pith_path(s["path"], Path("<ROOT>"))}
            for s in result["appendSystemPromptSources"]
        ],
    }
    assert got == expected
