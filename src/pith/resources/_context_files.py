"""Context files: the AGENTS.md / CLAUDE.md instructions of the agent dir and of every folder
from `/` down to the working directory, in the order they go into the system prompt.

They load whether or not the project is trusted (only `--no-context-files` turns them off, and
that is the caller's business).
"""

from __future__ import annotations

import os
from typing import NamedTuple

from pith.resources._git_layout import nested_worktree_main_root
from pith.resources._pathnames import StrPath, canonical_path, resolve_path
from pith.resources._text_file import read_text_file
from pith.resources._types import ContextFile, Diagnostic

__all__ = ["CONTEXT_FILE_NAMES", "LoadedContextFiles", "load_context_files"]

CONTEXT_FILE_NAMES = ("AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")
"""The names looked for in each folder, best first; the first that is a readable file wins."""


class LoadedContextFiles(NamedTuple):
    files: list[ContextFile]
    """In prompt order: the agent dir's file, then `/` down to the working directory."""
    diagnostics: list[Diagnostic]
    """Files that could not be read (skipped) or were not valid UTF-8 (loaded)."""


def _load_from_dir(directory: str, diagnostics: list[Diagnostic]) -> ContextFile | None:
    """The folder's context file: the first candidate that is a file and can be read."""
    for name in CONTEXT_FILE_NAMES:
        path = os.path.join(directory, name)
        # A directory called AGENTS.md (or a dangling link) is passed over silently.
        if not os.path.isfile(path):
            continue
        try:
            content, warning = read_text_file(path)
        except OSError as error:
            reason = error.strerror or str(error)
            diagnostics.append(
                Diagnostic("warning", f"{path}: cannot read context file ({reason}); skipped", path)
            )
            continue
        if warning is not None:
            diagnostics.append(warning)
        return ContextFile(path, content)
    return None


def _shadowed_context_file(cwd: str) -> str | None:
    """In a linked worktree nested inside its main checkout, the main checkout's context file
    that the worktree's own file replaces (same basename; canonical path). Loading both would
    give the same repository's instructions twice."""
    roots = nested_worktree_main_root(cwd)
    if roots is None:
        return None
    worktree_root, main_root = roots
    worktree_file = _load_from_dir(worktree_root, [])
    if worktree_file is None:
        return None
    return os.path.join(main_root, os.path.basename(worktree_file.path))


def load_context_files(cwd: StrPath, agent_dir: StrPath) -> LoadedContextFiles:
    """The context files for a session in `cwd`, with `agent_dir` as the user's agent dir.

    One file per folder (see `CONTEXT_FILE_NAMES`): the agent dir's first, then every folder
    from `/` down to `cwd`. The walk uses `cwd` as spelled (made absolute, `..` removed, links
    kept), and a path already loaded is skipped, so a file reached under two names loads
    twice. Content has its BOM removed and is otherwise exact."""
    resolved_cwd = resolve_path(cwd)
    diagnostics: list[Diagnostic] = []
    files: list[ContextFile] = []
    seen: set[str] = set()

    agent_file = _load_from_dir(resolve_path(agent_dir), diagnostics)
    if agent_file is not None:
        files.append(agent_file)
        seen.add(agent_file.path)

    shadowed = _shadowed_context_file(resolved_cwd)
    ancestors: list[ContextFile] = []
    directory = resolved_cwd
    while True:
        found = _load_from_dir(directory, diagnostics)
        if found is not None and found.path not in seen:
            # The folder's real path, not the file's: a worktree AGENTS.md that links to the
            # main checkout's file must still count as the worktree's.
            real = os.path.join(canonical_path(directory), os.path.basename(found.path))
            if shadowed is None or resolve_path(real) != resolve_path(shadowed):
                ancestors.append(found)
                seen.add(found.path)
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    ancestors.reverse()
    files.extend(ancestors)
    return LoadedContextFiles(files, diagnostics)
