"""The segment glob: the pruner's protected-path contract (docs/pruning.md, "Protection")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pith.glob import compile_segment_glob, segment_glob_match


@pytest.mark.parametrize(
    ("pattern", "path"),
    [
        ("**/skills/**/*.md", "/Users/x/.agents/skills/release/SKILL.md"),
        ("**/skills/**/*.md", "a/skills/b/c/notes.md"),
        ("**/skills/**/*.md", "skills/x/SKILL.md"),
        ("**/SKILL.md", "SKILL.md"),
        ("skills/?.md", "skills/a.md"),
        ("a+b(c).md", "a+b(c).md"),
        ("**", "any/thing/at/all"),
        ("src/**/test_*.py", "src/test_a.py"),
    ],
)
def test_matches(pattern: str, path: str) -> None:
    assert segment_glob_match(pattern, path)


@pytest.mark.parametrize(
    ("pattern", "path"),
    [
        ("skills/*.md", "skills/a/b.md"),
        ("skills/?.md", "skills//x.md"),
        ("skills/?.md", "skills/ab.md"),
        ("a.md", "aXmd"),
        ("skills/a.md", "xskills/a.md"),
        ("skills/a.md", "skills/a.md.bak"),
        ("**/SKILL.md", "a/skill.md"),
        ("**/skills/**/*.md", "a/skills/b/c/notes.txt"),
        ("a[b].md", "ab.md"),
    ],
)
def test_does_not_match(pattern: str, path: str) -> None:
    assert not segment_glob_match(pattern, path)


def test_backslashes_in_path_and_pattern_read_as_slashes() -> None:
    assert segment_glob_match("**/skills/**/*.md", "h\\skills\\x\\SKILL.md")
    assert segment_glob_match("skills\\*.md", "skills/a.md")


def test_compiled_patterns_are_cached() -> None:
    assert compile_segment_glob("**/cache-me/*.md") is compile_segment_glob("**/cache-me/*.md")


@given(st.text())
def test_any_pattern_compiles_and_matches_itself_when_it_has_no_wildcards(pattern: str) -> None:
    regex = compile_segment_glob(pattern)
    if "*" not in pattern and "?" not in pattern:
        assert regex.fullmatch(pattern.replace("\\", "/"))
