"""The write and ls tools."""

from __future__ import annotations

from pathlib import Path

from pith.tools.ls import collation_key

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
