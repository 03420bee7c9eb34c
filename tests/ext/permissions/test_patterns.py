"""The patterns suggested when a call is approved for the session (docs/permissions.md)."""

from __future__ import annotations

import pytest

from pith.ext.permissions._suggest import command_arity, suggest_command, suggest_path
from pith.glob import path_pattern

HOME = "/home/ann"


@pytest.mark.parametrize(
    ("words", "arity"),
    [
        (["git", "status", "--short"], 2),
        (["npm", "run", "dev"], 3),
        (["NPM", "RUN", "dev"], 3),
        (["ls"], 1),
        (["mytool", "--verbose"], 1),
        (["docker", "compose", "up", "-d"], 3),
        (["aws", "s3"], 2),  # clamped to the number of words
    ],
)
def test_arity(words: list[str], arity: int) -> None:
    assert command_arity(words) == arity


@pytest.mark.parametrize(
    ("command", "pattern"),
    [
        ("git status --short", "git status *"),
        ("npm run dev", "npm run dev*"),
        ("ls", "ls"),
        ("mytool --verbose", "mytool *"),
        ("# check\nfind . -name x", "find *"),
    ],
)
def test_suggested_bash_patterns(command: str, pattern: str) -> None:
    assert suggest_command(command) == pattern


@pytest.mark.parametrize(
    ("path", "directory", "pattern"),
    [
        ("/other/project/src/foo.ts", False, "/other/project/src/*"),
        ("/a/b/", True, "/a/b/*"),
        ("/", True, "/*"),
        ("/file", False, "/*"),
    ],
)
def test_suggested_path_patterns(path: str, directory: bool, pattern: str) -> None:
    assert suggest_path(path, directory=directory) == pattern


def test_an_approved_folder_pattern_covers_depth_but_not_siblings() -> None:
    compiled = path_pattern(suggest_path("/a/b/file"), HOME)
    assert compiled.matches("/a/b/c/d")
    assert not compiled.matches("/a/bc/x")
