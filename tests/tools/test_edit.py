"""The edit tool: exact then fuzzy matching, line endings and BOM kept, clear failures."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .conftest import RunTool


def test_exact_replacement_and_diff_details(run_tool: RunTool, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    result = run_tool("edit", path="a.py", edits=[{"oldText": "return 1", "newText": "return 2"}])
    assert result.text() == "Successfully replaced 1 block(s) in a.py."
    assert (tmp_path / "a.py").read_text() == "def f():\n    return 2\n"
    assert isinstance(result.details, dict)
    assert result.details["firstChangedLine"] == 2
    assert "-    return 1\n+    return 2" in str(result.details["patch"])


def test_all_edits_match_the_original_not_each_other(run_tool: RunTool, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("one\ntwo\nthree\n")
    run_tool(
        "edit",
        path="f.txt",
        edits=[{"oldText": "one", "newText": "two"}, {"oldText": "two", "newText": "2"}],
    )
    assert (tmp_path / "f.txt").read_text() == "two\n2\nthree\n"


def test_crlf_and_bom_are_preserved(run_tool: RunTool, tmp_path: Path) -> None:
    path = tmp_path / "win.txt"
    path.write_bytes(b"\xef\xbb\xbfalpha\r\nbeta\r\ngamma\r\n")
    run_tool("edit", path="win.txt", edits=[{"oldText": "beta\ngamma", "newText": "B\nG\nH"}])
    assert path.read_bytes() == b"\xef\xbb\xbfalpha\r\nB\r\nG\r\nH\r\n"


def test_fuzzy_match_rewrites_only_the_touched_lines(run_tool: RunTool, tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("keep “this”   \nsay “hello”  \nkeep too\n")
    result = run_tool("edit", path="q.txt", edits=[{"oldText": 'say "hello"', "newText": "say hi"}])
    assert not result.is_error, result.text()
    assert path.read_text() == "keep “this”   \nsay hi\nkeep too\n"


def test_errors_name_the_failing_edit(run_tool: RunTool, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\nb\na\n")
    missing = run_tool(
        "edit",
        path="f.txt",
        edits=[{"oldText": "b", "newText": "c"}, {"oldText": "z", "newText": ""}],
    )
    assert missing.text() == (
        "Could not find edits[1] in f.txt. The oldText must match exactly including all "
        "whitespace and newlines."
    )
    duplicate = run_tool("edit", path="f.txt", edits=[{"oldText": "a", "newText": "c"}])
    assert duplicate.text().startswith("Found 2 occurrences of the text in f.txt.")
    overlap = run_tool(
        "edit",
        path="f.txt",
        edits=[{"oldText": "a\nb", "newText": "x"}, {"oldText": "b\na", "newText": "y"}],
    )
    assert overlap.text() == (
        "edits[0] and edits[1] overlap in f.txt. Merge them into one edit or target disjoint "
        "regions."
    )
    assert (tmp_path / "f.txt").read_text() == "a\nb\na\n"  # failures never write


def test_legacy_and_stringified_argument_shapes_are_accepted(
    run_tool: RunTool, tmp_path: Path
) -> None:
    (tmp_path / "f.txt").write_text("x y z\n")
    run_tool("edit", path="f.txt", oldText="x", newText="X")
    run_tool("edit", path="f.txt", edits='[{"oldText": "y", "newText": "Y"}]')
    run_tool("edit", path="f.txt", edits={"oldText": "z", "newText": "Z"})
    assert (tmp_path / "f.txt").read_text() == "X Y Z\n"


def test_invalid_utf8_is_refused_so_no_byte_is_lost(run_tool: RunTool, tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes("café au lait\n".encode("latin-1"))
    result = run_tool("edit", path="latin1.txt", edits=[{"oldText": "lait", "newText": "miel"}])
    assert result.is_error
    assert "not valid UTF-8" in result.text()
    assert path.read_bytes() == "café au lait\n".encode("latin-1")


def test_missing_file_suggests_nothing_was_written(run_tool: RunTool, tmp_path: Path) -> None:
    result = run_tool("edit", path="nope.txt", edits=[{"oldText": "a", "newText": "b"}])
    assert result.is_error
    assert result.text() == "File not found: nope.txt"
    assert not (tmp_path / "nope.txt").exists()


def test_permissions_and_symlinks_survive_an_edit(run_tool: RunTool, tmp_path: Path) -> None:
    target = tmp_path / "script.sh"
    target.write_text("echo old\n")
    target.chmod(0o755)
    (tmp_path / "link.sh").symlink_to("script.sh")
    run_tool("edit", path="link.sh", edits=[{"oldText": "old", "newText": "new"}])
    assert (tmp_path / "link.sh").is_symlink()
    assert target.read_text() == "echo new\n"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o755


def test_empty_edits_are_rejected(run_tool: RunTool, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a")
    result = run_tool("edit", path="f.txt", edits=[])
    assert result.is_error
    assert (
        result.text() == "Edit tool input is invalid. edits must contain at least one replacement."
    )
