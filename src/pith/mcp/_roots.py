"""The roots pith offers a server: the folders it may work in (`roots/list`).

A server asks for its roots after it connects (and again after `notifications/roots/list_changed`,
which pith does not send: the list is fixed for a session). By default a server gets the
session's folder alone; an entry's `roots` replaces that list. The folders wanted are judged
once per server and session by a `RootsJudge` (the MCP extension hands them to the permission
system): what it refuses is not offered. Pure, except for the judge the caller supplies.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import mcp_types as types
from pydantic import FileUrl

__all__ = ["RootsJudge", "inside", "offered_roots", "root_list", "wanted_roots"]

RootsJudge = Callable[[str, Sequence[Path]], Awaitable[Sequence[Path]]]
"""`(server name, folders wanted)` → the folders that may be offered."""


def wanted_roots(written: Sequence[str] | None, cwd: Path, home: str) -> list[Path]:
    """The folders an entry's `roots` names (None: the session's folder), absolute and
    normalized, without repeats, in the order written."""
    if written is None:
        return [Path(os.path.normpath(cwd))]
    out: list[Path] = []
    for text in written:
        if text == "~" or text.startswith("~/"):
            text = home + text[1:]
        path = Path(os.path.normpath(cwd / text))
        if path not in out:
            out.append(path)
    return out


def root_list(paths: Sequence[Path]) -> types.ListRootsResult:
    """The answer to `roots/list`: each folder as a `file://` URI named by its last part."""
    return types.ListRootsResult(
        roots=[
            types.Root(uri=FileUrl(path.as_uri()), name=path.name or str(path)) for path in paths
        ]
    )


def inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


async def offered_roots(
    server: str, wanted: Sequence[Path], judge: RootsJudge | None, cwd: Path
) -> list[Path]:
    """`wanted`, less what `judge` refuses. A judge only takes folders away, never adds one;
    one that fails offers nothing. With no judge (`pith mcp list`), only the folders inside
    the session's folder are offered."""
    if judge is None:
        here = Path(os.path.normpath(cwd))
        return [path for path in wanted if inside(path, here)]
    if not wanted:
        return []
    try:
        allowed = set(await judge(server, list(wanted)))
    except Exception:
        return []
    return [path for path in wanted if path in allowed]
