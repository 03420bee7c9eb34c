"""Noticing when pith's own settings or trust change during a run.

The permission rules and the project's trust are read once, when the session starts; a tool
call that changes them (an approved write to `.pith/settings.json`, `pith trust --yes` run
from bash) does not change this run's rules, but it changes the next run's. So the person
is told, once per change, right after the tool call that made it: which file, and that it
counts from the next start.

Watched: the agent directory's `settings.json`, `trust.json`, `models.json` and
`extensions/`, and everything in the project's `.pith/` folder (at most `MAX_FILES` entries).
A file's signature is its inode, size and modification time (`stat`), so a check costs a few
system calls and reads no file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

__all__ = ["MAX_FILES", "ControlWatch"]

MAX_FILES = 500

Signature = tuple[int, int, int] | None


def _signature(path: str) -> Signature:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def _tree(folder: Path, budget: int) -> Iterator[str]:
    """The paths under `folder` (itself included), at most `budget` of them."""
    count = 0
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in (*sorted(files), *dirs):
            if count >= budget:
                return
            count += 1
            yield os.path.join(root, name)


class ControlWatch:
    """Signatures of the watched files, and what changed since the last look."""

    def __init__(self, agent_dir: Path | None, cwd: str) -> None:
        self._agent_dir = agent_dir
        self._project = Path(cwd) / ".pith"
        self._seen = self._snapshot()

    def _paths(self) -> Iterable[str]:
        if self._agent_dir is not None:
            for name in ("settings.json", "trust.json", "models.json"):
                yield str(self._agent_dir / name)
            yield from _tree(self._agent_dir / "extensions", MAX_FILES)
        yield str(self._project)
        yield from _tree(self._project, MAX_FILES)

    def _snapshot(self) -> dict[str, Signature]:
        return {path: _signature(path) for path in self._paths()}

    def changes(self) -> list[str]:
        """The watched paths created, changed or removed since the last call (or the start)."""
        now = self._snapshot()
        changed = [
            path
            for path in sorted(set(now) | set(self._seen))
            if now.get(path) != self._seen.get(path)
        ]
        self._seen = now
        return changed
