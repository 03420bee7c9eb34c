"""A task's workspace: its own copy of the source, and the changes made in it.

A git repository is cloned (its HEAD commit, objects hard-linked where the file system
allows); any other folder is copied. The source is only read. The changes are measured with a
separate git directory beside the workspace (never inside it, so the agent sees exactly the
source's files): a snapshot of the tree once setup has run, and a binary diff against it at the
end. Files the workspace's .gitignore rules ignore are left out of both.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from pith.errors import InputError

__all__ = ["WorkspaceError", "diff_since", "is_repository", "prepare_workspace", "snapshot"]

_GIT_TIMEOUT = 600.0


def is_repository(folder: Path) -> bool:
    return (folder / ".git").exists()


def prepare_workspace(source: Path, workspace: Path) -> None:
    """Make `workspace` (which must not exist) a copy of `source`."""
    workspace.parent.mkdir(parents=True, exist_ok=True)
    if not is_repository(source):
        shutil.copytree(source, workspace, symlinks=True)
        return
    head = _git(["rev-parse", "HEAD"], cwd=source).strip()
    _git(["clone", "--quiet", "--no-checkout", str(source), str(workspace)], cwd=source)
    _git(["checkout", "--quiet", "--detach", head], cwd=workspace)


def snapshot(workspace: Path, baseline: Path) -> str:
    """Record the workspace's files in the git directory `baseline` (created when missing);
    returns the tree id to diff against later."""
    if not (baseline / "HEAD").exists():
        _git(["init", "--quiet", "--bare", str(baseline)], cwd=workspace.parent)
        objects = workspace / ".git" / "objects"
        if objects.is_dir():
            # Blobs the clone already has are not written a second time.
            (baseline / "objects" / "info" / "alternates").write_text(f"{objects.resolve()}\n")
    _baseline_git(baseline, workspace, ["add", "--all", "."])
    return _baseline_git(baseline, workspace, ["write-tree"]).strip()


def diff_since(workspace: Path, baseline: Path, tree: str) -> str:
    """The workspace's changes since the snapshot `tree`, as a patch `git apply` takes."""
    _baseline_git(baseline, workspace, ["add", "--all", "."])
    return _baseline_git(baseline, workspace, ["diff", "--cached", "--binary", tree, "--", "."])


def _baseline_git(baseline: Path, workspace: Path, args: list[str]) -> str:
    # The user's global excludes file is left out: the same workspace gives the same patch
    # on any machine. The workspace's own .gitignore files still apply.
    prefix = ["-c", "core.excludesFile=/dev/null", "--git-dir", str(baseline)]
    return _git([*prefix, "--work-tree", str(workspace), *args], cwd=workspace)


def _git(args: list[str], *, cwd: Path) -> str:
    command = ["git", "-c", "core.quotepath=false", "-c", "core.autocrlf=false", *args]
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT,
            stdin=subprocess.DEVNULL,
            # Out of the terminal's process group: Ctrl+C stops the batch, which then records
            # the task as aborted, rather than killing a clone half-way into an `error` row.
            start_new_session=True,
        )
    except FileNotFoundError:
        raise InputError("git is not installed; pith batch needs it for workspaces") from None
    if done.returncode != 0:
        raise WorkspaceError(f"git {args[-1] if args else ''} failed: {done.stderr.strip()}")
    return done.stdout


class WorkspaceError(Exception):
    """A workspace could not be made or measured; the task ends with status error."""
