"""The write and ls tools."""

from __future__ import annotations

from pathlib import Path

from pith.tools._ls import collation_key

from .conftest import RunTool


def test_write_creates_parent_directories(run_tool: RunTool, tmp_path: Path) -> None:
    result = run_tool("write", path="a/b/c.txt", content="hi\n")
    assert result.text() == "Successfully wrote to a/b/c.txt"
    assert (tmp_path / "a/b/c.txt").read_text() == "hi\n"


def test_write_over_a_directory_is_a_clear_error(run_tool: RunTool, tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    result = run_tool("write", path="d", content="x")
    assert result.is_error
    assert result.text() == "d is a directory; give the path of a file to write."


def test_write_under_a_file_is_a_clear_error(run_tool: RunTool, tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    result = run_tool("write", path="f/g.txt", content="x")
    assert result.is_error
    assert "a file with that name exists" in result.text()


def test_ls_sorts_like_pi_and_marks_directories(run_tool: RunTool, tmp_path: Path) -> None:
    for name in ["b.txt", "A.md", ".env", "_x", "z9"]:
        (tmp_path / name).write_text("")
    (tmp_path / "src").mkdir()
    assert run_tool("ls").text() == "_x\n.env\nA.md\nb.txt\nsrc/\nz9"


def test_ls_limit_notice(run_tool: RunTool, tmp_path: Path) -> None:
    for index in range(5):
        (tmp_path / f"f{index}").write_text("")
    assert (
        run_tool("ls", limit=2).text()
        == "f0\nf1\n\n[2 entries limit reached. Use limit=4 for more]"
    )


def test_ls_errors(run_tool: RunTool, tmp_path: Path) -> None:
    (tmp_path / "f").write_text("")
    assert run_tool("ls", path="f").text() == f"Not a directory: {tmp_path / 'f'}"
    assert run_tool("ls", path="nope").text() == f"Path not found: {tmp_path / 'nope'}"
    (tmp_path / "empty").mkdir()
    assert run_tool("ls", path="empty").text() == "(empty directory)"


def test_collation_matches_unicode_root_order() -> None:
    names = ["xZy", "x9y", "x$y", "x_y", "x y", "x", "xéy", "xe", "x.y"]
    assert sorted(names, key=collation_key) == [
        "x",
        "x y",
        "x_y",
        "x.y",
        "x$y",
        "x9y",
        "xe",
        "xéy",
        "xZy",
    ]


# A path ending in "/" names a directory, as it does for bash (`echo x > notes/`): the tools
# refuse to treat it as the file without the slash, or to create a file by that name.


def test_write_to_a_trailing_slash_over_a_file_is_refused(
    run_tool: RunTool, tmp_path: Path
) -> None:
    (tmp_path / "notes").write_text("keep me\n")
    result = run_tool("write", path="notes/", content="replaced")
    assert result.is_error
    assert result.text() == "notes/: Not a directory (notes is a file); nothing was written."
    assert (tmp_path / "notes").read_text() == "keep me\n"


def test_write_to_a_trailing_slash_that_does_not_exist_is_refused(
    run_tool: RunTool, tmp_path: Path
) -> None:
    result = run_tool("write", path="notes/", content="x")
    assert result.is_error
    assert result.text() == (
        "notes/: Is a directory (a path ending in / names a directory); give the path of a "
        "file to write."
    )
    assert list(tmp_path.iterdir()) == []


def test_write_to_a_trailing_slash_of_a_directory_is_refused(
    run_tool: RunTool, tmp_path: Path
) -> None:
    (tmp_path / "d").mkdir()
    result = run_tool("write", path="d/", content="x")
    assert result.is_error
    assert "d/ is a directory" in result.text()
    assert list((tmp_path / "d").iterdir()) == []


def test_edit_of_a_trailing_slash_over_a_file_is_refused(run_tool: RunTool, tmp_path: Path) -> None:
    (tmp_path / "notes").write_text("old text\n")
    result = run_tool("edit", path="notes/", edits=[{"oldText": "old", "newText": "new"}])
    assert result.is_error
    assert result.text() == "notes/: Not a directory (notes is a file); nothing was written."
    assert (tmp_path / "notes").read_text() == "old text\n"


def test_edit_of_a_trailing_slash_that_does_not_exist_is_refused(
    run_tool: RunTool, tmp_path: Path
) -> None:
    result = run_tool("edit", path="notes/", edits=[{"oldText": "a", "newText": "b"}])
    assert result.is_error
    assert result.text().startswith("notes/: Is a directory")
    assert result.text().endswith("give the path of a file to edit.")
