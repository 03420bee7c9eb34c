"""The wildcard dialect: the two pattern languages of permission rules (docs/permissions.md,
"Patterns")."""

from __future__ import annotations

import pytest

from pith.glob import command_matches, expand_home, path_pattern

HOME = "/home/ann"


@pytest.mark.parametrize(
    ("pattern", "value", "expected"),
    [
        ("git *", "git", True),
        ("git *", "git status", True),
        ("git *", "git status --short", True),
        ("git *", "gitx", False),
        ("git status *", "git status", True),
        ("g*t", "g", False),
        ("g*t", "t", False),
        ("g*t", "git", True),
        ("git*", "git", True),
        ("*", "line one\nline two", True),
        ("a?c", "a/c", True),
        ("a?c", "ac", False),
        ("a?c", "abbc", False),
        ("a.c", "abc", False),
        ("(x)+[y]", "(x)+[y]", True),
        ("^rm$", "rm", False),
        ("rm -rf *", "rm -rf /", True),
        ("npm run *", "npm run", True),
        ("~/bin/*", "/home/ann/bin/tool", True),
        ("$HOME/bin/*", "/home/ann/bin/tool", True),
        ("${HOME}/bin/*", "/home/ann/bin/tool", True),
        ("~/bin/*", "~/bin/tool", False),
    ],
)
def test_command_patterns(pattern: str, value: str, expected: bool) -> None:
    assert command_matches(pattern, value, HOME) is expected


def test_only_a_leading_home_expands() -> None:
    assert expand_home("~user/x", HOME) == "~user/x"
    assert expand_home("$HOMEDIR/x", HOME) == "$HOMEDIR/x"
    assert expand_home("a/~/b", HOME) == "a/~/b"
    assert expand_home("~", HOME) == HOME


@pytest.mark.parametrize(
    ("pattern", "value", "expected"),
    [
        ("*.env", ".env", True),
        ("*.env", "config/prod.env", True),  # `*` crosses directories
        ("*.env", "../other/.env", True),  # relative patterns judge outside paths too
        ("src/*", "src", True),  # `dir/*` covers the directory itself
        ("src/*", "src/a/b.py", True),
        ("src/*", "srcx/a.py", False),
        ("**/*.env", ".env", True),  # `**/` matches no directory at all
        ("**/*.env", "a/b/.env", True),
        ("src/**/*.py", "src/a.py", True),
        ("src/**/*.py", "src/a/b/c.py", True),
        ("./.env", ".env", True),
        ("a/../secrets/*", "secrets/key", True),
        ("secrets/", "secrets", True),  # a trailing slash: the folder and what is in it
        ("secrets/", "secrets/deep/key", True),
        ("secrets/", "secretsx", False),
        (".", ".", True),
    ],
)
def test_relative_path_patterns(pattern: str, value: str, expected: bool) -> None:
    compiled = path_pattern(pattern, HOME)
    assert compiled.kind == "relative"
    assert compiled.matches(value) is expected


@pytest.mark.parametrize(
    ("pattern", "value", "expected"),
    [
        ("/etc/*", "/etc/hosts", True),
        ("/etc/*", "/etc", True),
        ("/etc/*", "/etcetera", False),
        ("~/.ssh/*", "/home/ann/.ssh/id_rsa", True),
        ("$HOME/lib/*", "/home/ann/lib/x", True),
        ("/*", "/", True),
        ("/*", "/anything/at/all", True),
        ("/tmp/../etc/*", "/etc/passwd", True),
    ],
)
def test_absolute_path_patterns(pattern: str, value: str, expected: bool) -> None:
    compiled = path_pattern(pattern, HOME)
    assert compiled.kind == "absolute"
    assert compiled.matches(value) is expected
