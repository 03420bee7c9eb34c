"""Behaviour of pith's edit diffs that callers and the model rely on (exact Pi parity is checked
by tests/conformance/test_diff_conformance.py)."""

from __future__ import annotations

from dataclasses import dataclass

from pith.tools._diff import LineChange, diff_lines, display_diff, edit_diff, unified_patch


@dataclass(frozen=True)
class _Match:
    match_index: int
    match_length: int
    new_text: str


def _numbered(count: int) -> str:
    return "".join(f"line {i}\n" for i in range(1, count + 1))


def _replace(base: str, edits: list[tuple[str, str]]) -> tuple[str, list[_Match]]:
    matches = sorted(
        (_Match(base.index(old), len(old), new) for old, new in edits),
        key=lambda m: m.match_index,
    )
    new_content = base
    for m in reversed(matches):
        new_content = (
            new_content[: m.match_index]
            + m.new_text
            + new_content[m.match_index + m.match_length :]
        )
    return new_content, matches


def test_one_line_change_shows_four_context_lines_between_skip_markers() -> None:
    old = _numbered(20)
    diff, first_changed = display_diff(old, old.replace("line 10\n", "LINE 10\n"))
    assert diff.split("\n") == [
        "    ...",
        "  6 line 6",
        "  7 line 7",
        "  8 line 8",
        "  9 line 9",
        "-10 line 10",
        "+10 LINE 10",
        " 11 line 11",
        " 12 line 12",
        " 13 line 13",
        " 14 line 14",
        "    ...",
    ]
    assert first_changed == 10


def test_identical_texts_give_empty_diff_and_no_changed_line() -> None:
    assert display_diff("a\nb\n", "a\nb\n") == ("", None)


def test_patch_marks_a_missing_final_newline_on_each_side() -> None:
    assert unified_patch("a.txt", "a\nb", "a\nc") == (
        "--- a.txt\n"
        "+++ a.txt\n"
        "@@ -1,2 +1,2 @@\n"
        " a\n"
        "-b\n"
        "\\ No newline at end of file\n"
        "+c\n"
        "\\ No newline at end of file\n"
    )


def test_patch_of_new_file_starts_old_side_at_line_zero() -> None:
    assert unified_patch("a.txt", "", "x\ny\n") == "--- a.txt\n+++ a.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n"


def test_patch_without_changes_has_only_file_headers() -> None:
    assert unified_patch("a.txt", "same\n", "same\n") == "--- a.txt\n+++ a.txt\n"


def test_diff_lines_keeps_crlf_and_treats_lone_cr_as_line_content() -> None:
    assert diff_lines("a\r\nb\rc\n", "a\r\nB\n") == [
        LineChange("a\r\n", 1, added=False, removed=False),
        LineChange("b\rc\n", 1, added=False, removed=True),
        LineChange("B\n", 1, added=True, removed=False),
    ]


def test_diff_lines_lists_removal_before_addition_for_a_replaced_line() -> None:
    assert [(c.value, c.added, c.removed) for c in diff_lines("x\n", "y\n")] == [
        ("x\n", False, True),
        ("y\n", True, False),
    ]


def test_edit_diff_equals_whole_file_diff_for_distinct_lines() -> None:
    base = _numbered(300)
    new, replacements = _replace(base, [("line 20\n", "twenty\n"), ("line 250\n", "")])
    result = edit_diff("f.txt", base, new, replacements)
    assert (result.diff, result.first_changed_line) == display_diff(base, new)
    assert result.patch == unified_patch("f.txt", base, new)


def test_edit_diff_shows_one_skip_marker_between_distant_edits() -> None:
    base = _numbered(300)
    new, replacements = _replace(base, [("line 20\n", "twenty\n"), ("line 250\n", "")])
    lines = edit_diff("f.txt", base, new, replacements).diff.split("\n")
    between = lines[lines.index("  24 line 24") : lines.index(" 246 line 246") + 1]
    assert between == ["  24 line 24", "     ...", " 246 line 246"]


def test_edit_diff_numbers_lines_with_the_whole_file_width() -> None:
    base = _numbered(1000)
    new, replacements = _replace(base, [("line 5\n", "five\n")])
    result = edit_diff("f.txt", base, new, replacements)
    assert "-   5 line 5" in result.diff.split("\n")
    assert "@@ -1,9 +1,9 @@" in result.patch
