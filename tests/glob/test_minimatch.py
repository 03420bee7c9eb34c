"""The minimatch dialect: the globs of settings `skills` / `prompts` lists."""

from __future__ import annotations

import pytest

from pith.glob import minimatch


@pytest.mark.parametrize(
    ("path", "pattern", "expected"),
    [
        ("a/b/SKILL.md", "**/SKILL.md", True),
        ("a/.b/SKILL.md", "**/SKILL.md", False),
        (".x", "*", False),
        ("a", "a/**", False),
        ("a/b/c", "a/**", True),
        ("abc", "a{b,x}c", True),
        ("x2", "x{1..3}", True),
        ("x.md", "*.MD", False),
        ("sub/a.md", "*.md", False),
        ("bar", "!foo", True),
    ],
)
def test_settings_globs_follow_minimatch(path: str, pattern: str, expected: bool) -> None:
    assert minimatch(path, pattern) is expected


@pytest.mark.parametrize(
    ("path", "pattern", "expected"),
    [
        ("b", "[b-a]", False),  # a reversed range names no character
        ("b", "[!b-a]", True),
        ("b", "[a-cz-x]", True),  # the reversed part is left out, the rest still counts
        ("y", "[a-cz-x]", False),
        ("skills/x", "skills/[z-a]", False),
    ],
)
def test_a_reversed_class_range_matches_nothing_instead_of_failing(
    path: str, pattern: str, expected: bool
) -> None:
    assert minimatch(path, pattern) is expected
