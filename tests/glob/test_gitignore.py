"""The gitignore dialect: ignore-file rules of resource folders (the `ignore` package's
semantics)."""

from __future__ import annotations

from pith.glob import IgnoreRules, ignore_file_patterns


def _rules(content: str, prefix: str = "") -> IgnoreRules:
    rules = IgnoreRules()
    rules.add(ignore_file_patterns(content, prefix))
    return rules


def test_a_file_below_an_ignored_folder_is_ignored() -> None:
    assert _rules("build/").ignores("build/skill/SKILL.md")


def test_a_folder_pattern_does_not_match_a_file_of_that_name() -> None:
    assert not _rules("build/").ignores("build")


def test_a_later_negation_reincludes() -> None:
    rules = _rules("*.md\n!keep.md\n")
    assert rules.ignores("drop.md")
    assert not rules.ignores("keep.md")


def test_a_negation_cannot_reinclude_below_an_ignored_folder() -> None:
    assert _rules("old/\n!old/keep.md\n").ignores("old/keep.md")


def test_unanchored_names_match_at_any_depth_and_ignore_case() -> None:
    rules = _rules("Draft.md")
    assert rules.ignores("a/b/draft.md")
    assert rules.ignores("DRAFT.MD")


def test_nested_file_patterns_are_prefixed_with_their_folder() -> None:
    rules = _rules("/only-here\nanywhere\n", prefix="group/")
    assert rules.ignores("group/only-here/")
    assert not rules.ignores("only-here/")
    # Pi's prefixing anchors even a slash-free pattern to its folder (git would match it
    # in subfolders too).
    assert rules.ignores("group/anywhere")
    assert not rules.ignores("group/sub/anywhere")


def test_star_after_a_slash_needs_a_character() -> None:
    rules = _rules("a/*")
    assert rules.ignores("a/b")
    assert not rules.ignores("a/")


def test_double_star_segments() -> None:
    rules = _rules("docs/**/tmp\n**/cache\n")
    assert rules.ignores("docs/tmp")
    assert rules.ignores("docs/x/y/tmp")
    assert rules.ignores("deep/down/cache/")


def test_bracket_expressions_and_escapes() -> None:
    rules = _rules("x[0-9].md\n\\#literal.md\nq\\*.md\n")
    assert rules.ignores("x5.md")
    assert not rules.ignores("xa.md")
    assert rules.ignores("#literal.md")
    assert rules.ignores("q*.md")
    assert not rules.ignores("qq.md")


def test_unclosed_bracket_matches_nothing() -> None:
    assert not _rules("x[ab").ignores("x[ab")


def test_comments_blank_lines_and_trailing_spaces() -> None:
    rules = _rules("# comment\n\n   \nname.md   \n")
    assert rules.ignores("name.md")
    assert not rules.ignores("# comment")
