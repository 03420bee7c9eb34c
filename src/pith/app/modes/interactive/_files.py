"""`@` completion across the project: the files ripgrep would list (`.gitignore` respected),
ranked by how well a typed fragment matches them — `@mainpy` finds `src/pith/__main__.py`.

The listing is made once and kept for a few seconds, so typing stays fast in a large tree;
ranking is pure (`rank_paths`)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Sequence

from pith.tools import find_rg, list_files

__all__ = ["ProjectFiles", "fuzzy_score", "rank_paths"]

_MAX_FILES = 50_000
_FRESH_SECONDS = 5.0
_LIST_SECONDS = 3.0
"""How long a listing may take; a tree too big for it is searched in what came by then."""


def fuzzy_score(query: str, path: str) -> int | None:
    """How well `query` matches `path` (higher is better), None when its characters do not
    all appear in order. Case-insensitive; matches in the file name, at the start of a name
    or a word, and in a row count more; shorter paths win ties."""
    if not query:
        return 0
    lowered, wanted = path.lower(), query.lower()
    name_start = lowered.rfind("/") + 1
    score = 0
    position = -1
    previous = -2
    for char in wanted:
        position = lowered.find(char, position + 1)
        if position < 0:
            return None
        score += 1
        if position == previous + 1:
            score += 3  # consecutive
        if position >= name_start:
            score += 2  # in the file name
        if position == 0 or lowered[position - 1] in "/_-. ":
            score += 2  # at the start of a word
        previous = position
    if wanted in lowered[name_start:]:
        score += 10  # the fragment is in the name as typed
    return score * 100 - len(path)


def rank_paths(query: str, paths: Sequence[str], limit: int = 20) -> list[str]:
    scored = [(score, path) for path in paths if (score := fuzzy_score(query, path)) is not None]
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [path for _, path in scored[:limit]]


class ProjectFiles:
    """The project's files, listed at most every few seconds."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self._files: list[str] = []
        self._at = float("-inf")

    def files(self) -> list[str]:
        now = time.monotonic()
        if now - self._at > _FRESH_SECONDS:
            self._files = self._list()
            self._at = now
        return self._files

    def _list(self) -> list[str]:
        rg = find_rg()
        if rg is not None:
            try:
                done = subprocess.run(
                    [rg, "--files", "--hidden", "--glob", "!.git"],
                    cwd=self.cwd,
                    capture_output=True,
                    timeout=_LIST_SECONDS,
                    check=False,
                )
                output: bytes = done.stdout
            except subprocess.TimeoutExpired as slow:  # a huge tree: what came in time
                output = slow.output or b""
            except (OSError, subprocess.SubprocessError):
                output = b""
            lines = output.decode("utf-8", "replace").splitlines()
            return [line.removeprefix("./") for line in lines[:_MAX_FILES]]
        found: list[str] = []
        try:
            for path in list_files(self.cwd, require_git=False):
                found.append(path)
                if len(found) >= _MAX_FILES:
                    break
        except OSError:
            pass
        return found
