"""Which roots a server is offered: a judge only takes folders away; without one (`pith mcp
list`) only folders inside the session's folder are offered; a failing judge offers none."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from pith.mcp._roots import offered_roots, root_list

CWD = Path("/work/project")
WANTED = [CWD, CWD / "src", Path("/data")]


def offered(judge: object) -> list[Path]:
    return asyncio.run(offered_roots("box", WANTED, judge, CWD))  # type: ignore[arg-type]


def test_without_a_judge_only_folders_inside_the_session_folder() -> None:
    assert offered(None) == [CWD, CWD / "src"]


def test_a_judge_cannot_add_a_folder_and_keeps_the_order() -> None:
    async def judge(server: str, wanted: Sequence[Path]) -> list[Path]:
        return [Path("/etc"), Path("/data"), CWD]

    assert offered(judge) == [CWD, Path("/data")]


def test_a_failing_judge_offers_nothing() -> None:
    async def judge(server: str, wanted: Sequence[Path]) -> list[Path]:
        raise RuntimeError("broken")

    assert offered(judge) == []


def test_the_answer_names_each_folder_by_a_file_uri() -> None:
    result = root_list([Path("/work/my project"), Path("/")])
    assert [(str(root.uri), root.name) for root in result.roots] == [
        ("file:///work/my%20project", "my project"),
        ("file:///", "/"),
    ]
