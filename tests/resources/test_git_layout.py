"""Reading git's own files to find the checkout around a folder, and the nested-worktree rule
for context files, on layouts written by hand and by a real `git worktree add`."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pith.resources._context_files import load_context_files
from pith.resources._git_layout import find_git_paths, nested_worktree_main_root


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return Path(os.path.realpath(tmp_path))


def _nested(root: Path, git_file: str, commondir: str = "../..\n") -> Path:
    """main/ with a linked worktree at main/wt/feat whose `.git` file holds `git_file`."""
    gitdir = root / "main" / ".git" / "worktrees" / "feat"
    gitdir.mkdir(parents=True)
    (root / "main" / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (gitdir / "HEAD").write_text("ref: refs/heads/feat\n")
    (gitdir / "commondir").write_text(commondir)
    worktree = root / "main" / "wt" / "feat"
    worktree.mkdir(parents=True)
    (worktree / ".git").write_text(git_file, newline="")
    return worktree


def test_gitdir_line_with_crlf_and_a_bom_is_understood(root: Path) -> None:
    worktree = _nested(root, "\ufeffgitdir: ../../.git/worktrees/feat  \r\n", " ../..\r\n")
    assert nested_worktree_main_root(str(worktree)) == (str(worktree), str(root / "main"))


def test_absolute_gitdir_is_understood(root: Path) -> None:
    worktree = _nested(root, f"gitdir: {root}/main/.git/worktrees/feat\n")
    found = find_git_paths(str(worktree / "src"))
    assert found is not None
    assert (found.repo_dir, found.common_git_dir) == (str(worktree), str(root / "main" / ".git"))


def test_git_file_that_is_not_a_pointer_is_passed_over(root: Path) -> None:
    (root / "outer" / ".git").mkdir(parents=True)
    (root / "outer" / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "outer" / "inner").mkdir()
    (root / "outer" / "inner" / ".git").write_text("not a gitdir line\n")
    found = find_git_paths(str(root / "outer" / "inner"))
    assert found is not None
    assert found.repo_dir == str(root / "outer")


def test_git_dir_without_head_ends_the_search(root: Path) -> None:
    (root / "outer" / ".git").mkdir(parents=True)
    (root / "outer" / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "outer" / "inner" / ".git").mkdir(parents=True)
    assert find_git_paths(str(root / "outer" / "inner")) is None


def test_commondir_that_is_a_directory_means_no_checkout(root: Path) -> None:
    worktree = _nested(root, "gitdir: ../../.git/worktrees/feat\n")
    commondir = root / "main" / ".git" / "worktrees" / "feat" / "commondir"
    commondir.unlink()
    commondir.mkdir()
    assert find_git_paths(str(worktree)) is None


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to write a real worktree")
def test_real_nested_worktree_hides_the_main_checkouts_file(root: Path) -> None:
    main = root / "main"
    main.mkdir()
    _git("init", "-q", "-b", "main", cwd=main)
    (main / "AGENTS.md").write_text("Main.\n")
    _git("add", "AGENTS.md", cwd=main)
    _git("commit", "-q", "-m", "init", cwd=main)
    _git("worktree", "add", "-q", "-b", "feat", "wt/feat", cwd=main)
    feat = main / "wt" / "feat"
    (feat / "AGENTS.md").write_text("Feature branch.\n")
    files, _ = load_context_files(feat, root / "agent")
    assert [(f.path, f.content) for f in files] == [(str(feat / "AGENTS.md"), "Feature branch.\n")]
