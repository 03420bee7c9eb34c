"""pith decides project trust as Pi 1.6 does on every recorded layout.

Golden data: resources/golden.json, group `trust`: `hasTrustRequiringProjectResources` (one
boolean per cwd) and `resolveProjectTrusted` with no UI and no extensions, `trust.json` in the
case's agent dir. HOME is `<ROOT>/home`. `.pi` is renamed `.pith`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pith.resources._trust import has_trust_requiring_resources, resolve_project_trust
from tests.conformance.resources_golden import build_fixture, case_ids, cases, pith_path

PROTECTED_CASES = cases("trust", "hasTrustRequiringProjectResources")
RESOLVE_CASES = cases("trust", "resolveProjectTrusted")


def test_every_trust_case_is_covered() -> None:
    assert len(PROTECTED_CASES) + len(RESOLVE_CASES) == len(cases("trust")) == 11


@pytest.mark.parametrize("case", PROTECTED_CASES, ids=case_ids(PROTECTED_CASES))
def test_protected_resources_match_pi(case: dict[str, Any], tmp_path: Path) -> None:
    root = build_fixture(case["fixture"], tmp_path)
    home = pith_path(case["env"]["HOME"], root)
    got = [
        has_trust_requiring_resources(pith_path(cwd, root), home) for cwd in case["args"]["cwds"]
    ]
    assert got == case["result"]


@pytest.mark.parametrize("case", RESOLVE_CASES, ids=case_ids(RESOLVE_CASES))
def test_resolution_matches_pi(case: dict[str, Any], tmp_path: Path) -> None:
    root = build_fixture(case["fixture"], tmp_path)
    args = case["args"]
    agent_dir = Path(pith_path(args["agentDir"], root))
    before = sorted(p.name for p in agent_dir.iterdir())
    resolution = asyncio.run(
        resolve_project_trust(
            pith_path(args["cwd"], root),
            agent_dir,
            pith_path(case["env"]["HOME"], root),
            override=args.get("trustOverride"),
            default_trust=args.get("defaultProjectTrust", "ask"),
            ask=None,
        )
    )
    assert resolution.trusted is case["result"]
    # Without a UI or an extension nothing is saved.
    assert sorted(p.name for p in agent_dir.iterdir()) == before
