"""Where the git checkout around a directory keeps its metadata, read from the files git writes
(no `git` process): enough to tell a linked worktree nested inside its main checkout."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

from pith.resources._jstext import js_trim
from pith.resources._pathnames import canonical_path, is_within, resolve_path

__all__ = ["GitPaths", "find_git_paths", "nested_worktree_main_root"]

_GITDIR_PREFIX = "gitdir: "


@dataclass(frozen=True)
class GitPaths:
    repo_dir: str
    """The checkout's root: the nearest ancestor holding `.git`, spelled as walked (not
    realpath)."""
    common_git_dir: str
    """The repository's shared git dir: `<gitdir>/commondir` resolved, else the gitdir."""
    head_path: str


def _join_resolved(base: str, target: str) -> str:
    # Node's path.resolve(base, target): an absolute target replaces the base.
    return resolve_path(os.path.join(base, target))


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        return handle.read()


def _git_paths_at(directory: str, git_path: str) -> GitPaths | Literal[False] | None:
    """The git paths of `directory/.git`, None when it marks a broken checkout, or False when
    it is not git metadata at all (the walk goes on)."""
    if os.path.isfile(git_path):
        content = js_trim(_read_text(git_path))
        if not content.startswith(_GITDIR_PREFIX):
            return False
        git_dir = _join_resolved(directory, js_trim(content[len(_GITDIR_PREFIX) :]))
        head = os.path.join(git_dir, "HEAD")
        if not os.path.exists(head):
            return None
        commondir_file = os.path.join(git_dir, "commondir")
        common = (
            _join_resolved(git_dir, js_trim(_read_text(commondir_file)))
            if os.path.exists(commondir_file)
            else git_dir
        )
        return GitPaths(directory, common, head)
    if os.path.isdir(git_path):
        head = os.path.join(git_path, "HEAD")
        if not os.path.exists(head):
            return None
        return GitPaths(directory, git_path, head)
    return False


def find_git_paths(cwd: str) -> GitPaths | None:
    """The git metadata of the checkout holding `cwd` (an absolute, normalised path), found by
    walking up to the first `.git`; None outside a checkout or when the metadata is broken
    (a gitdir without `HEAD`, an unreadable `.git` file)."""
    directory = cwd
    while True:
        git_path = os.path.join(directory, ".git")
        if os.path.exists(git_path):
            try:
                found = _git_paths_at(directory, git_path)
            except OSError:
                return None
            if found is not False:
                return found
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def nested_worktree_main_root(cwd: str) -> tuple[str, str] | None:
    """`(worktree_root, main_root)`, both canonical, when `cwd` is inside a linked worktree
    checked out *below* its main checkout (`git worktree add wt/feat`); else None.

    Not for an ordinary checkout, a sibling worktree (main is not an ancestor), a bare layout
    (the dir holding `.bare` tracks nothing) or a submodule (its gitdir has no `commondir`, so
    its `dirname` is `.git/modules`, whose `.git` is not the common dir)."""
    paths = find_git_paths(cwd)
    if paths is None:
        return None
    common = canonical_path(paths.common_git_dir)
    worktree_root = canonical_path(paths.repo_dir)
    main_root = os.path.dirname(common)
    if worktree_root == main_root or not is_within(main_root, worktree_root):
        return None
    if canonical_path(os.path.join(main_root, ".git")) != common:
        return None
    return worktree_root, main_root
