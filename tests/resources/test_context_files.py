"""Context-file behaviour the Pi recordings do not pin: unreadable, non-UTF-8 and huge files,
relative working directories."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pith.resources._context_files import load_context_files
from pith.resources._types import ContextFile
from tests.resources._unreadable import make_unreadable


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path))
    (root / "agent").mkdir()
    (root / "proj").mkdir()
    return root


def _project_files(tree: Path, cwd: Path) -> list[ContextFile]:
    files, _ = load_context_files(cwd, tree / "agent")
    return [f for f in files if f.path.startswith(str(tree))]


def test_invalid_utf8_file_loads_with_replacement_characters_and_a_warning(tree: Path) -> None:
    path = tree / "proj" / "AGENTS.md"
    path.write_bytes(b"\xef\xbb\xbfcaf\xe9 rules\r\n")
    files, diagnostics = load_context_files(tree / "proj", tree / "agent")
    assert ContextFile(str(path), "caf\ufffd rules\r\n") in files
    assert [(d.type, d.path) for d in diagnostics] == [("warning", str(path))]
    assert "not valid UTF-8" in diagnostics[0].message
    assert "\n" not in diagnostics[0].message


def test_unreadable_file_is_reported_and_the_next_candidate_loads(tree: Path) -> None:
    make_unreadable(tree / "proj" / "AGENTS.md")
    (tree / "proj" / "CLAUDE.md").write_text("Claude rules.\n", encoding="utf-8")
    files, diagnostics = load_context_files(tree / "proj", tree / "agent")
    assert ContextFile(str(tree / "proj" / "CLAUDE.md"), "Claude rules.\n") in files
    assert [(d.type, d.path) for d in diagnostics] == [("warning", str(tree / "proj/AGENTS.md"))]
    assert diagnostics[0].message.startswith(f"{tree / 'proj/AGENTS.md'}: cannot read")
    assert "\n" not in diagnostics[0].message


def test_unreadable_agent_dir_file_is_reported_once_and_skipped(tree: Path) -> None:
    make_unreadable(tree / "agent" / "AGENTS.md")
    files, diagnostics = load_context_files(tree / "proj", tree / "agent")
    assert all(not f.path.startswith(str(tree / "agent")) for f in files)
    assert [d.path for d in diagnostics] == [str(tree / "agent" / "AGENTS.md")]


def test_huge_file_loads_whole_and_exact(tree: Path) -> None:
    body = "".join(f"rule {i}: keep it exact\r\n" for i in range(400_000))  # ~10 MB
    (tree / "proj" / "AGENTS.md").write_bytes(("\ufeff" + body).encode("utf-8"))
    files = _project_files(tree, tree / "proj")
    assert len(files) == 1
    assert files[0].content == body


def test_relative_cwd_resolves_against_the_process_directory(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tree / "proj" / "sub").mkdir()
    (tree / "proj" / "AGENTS.md").write_text("Project.\n", encoding="utf-8")
    monkeypatch.chdir(tree / "proj")
    assert _project_files(tree, Path("sub/..")) == [
        ContextFile(str(tree / "proj" / "AGENTS.md"), "Project.\n")
    ]


def test_dangling_symlink_is_skipped_silently(tree: Path) -> None:
    (tree / "proj" / "AGENTS.md").symlink_to("missing.md")
    (tree / "proj" / "CLAUDE.md").write_text("Fallback.\n", encoding="utf-8")
    files, diagnostics = load_context_files(tree / "proj", tree / "agent")
    assert ContextFile(str(tree / "proj" / "CLAUDE.md"), "Fallback.\n") in files
    assert diagnostics == []


def test_broken_worktree_git_file_does_not_stop_loading(tree: Path) -> None:
    (tree / "proj" / ".git").write_bytes(b"gitdir: \xff\xfe/nowhere\n")
    (tree / "proj" / "AGENTS.md").write_text("Still here.\n", encoding="utf-8")
    assert _project_files(tree, tree / "proj") == [
        ContextFile(str(tree / "proj" / "AGENTS.md"), "Still here.\n")
    ]
