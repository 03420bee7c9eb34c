"""Skill loading behaviour the Pi recordings do not pin: files that are not valid UTF-8,
folders that cannot be read, huge descriptions, symlink loops, `/skill:` edge cases."""

from __future__ import annotations

import os
import pickle
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pith.resources._skills import (
    expand_skill_command,
    format_skills_for_prompt,
    load_skill_file,
    load_skills,
    load_skills_from_dir,
)
from pith.resources._types import Skill, SourceInfo


def _skill(folder: Path, name: str, description: str = "Does things.", body: str = "Body") -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}\n")
    return path


def test_skill_file_that_is_not_utf8_loads_with_a_warning_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "latin" / "SKILL.md"
    path.parent.mkdir()
    path.write_bytes(b"---\nname: latin\ndescription: Caf\xe9 notes.\n---\nBody\n")
    skills, diagnostics = load_skills_from_dir(str(tmp_path), "user")
    assert [skill.description for skill in skills] == ["Caf\ufffd notes."]
    assert [(d.type, d.path) for d in diagnostics] == [("warning", str(path))]
    assert str(path) in diagnostics[0].message
    assert "UTF-8" in diagnostics[0].message


def test_loose_md_that_is_not_utf8_and_not_a_skill_is_silent(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_bytes(b"plain \xff text\n")
    assert load_skills_from_dir(str(tmp_path), "user") == ([], [])


def _run_unprivileged(action: Callable[[], Any]) -> Any:
    """`action()` in a child process without root's power to read every folder (root skips
    permission checks, so the test would otherwise see nothing unreadable)."""
    if os.geteuid() != 0:
        return action()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(read_end)
            os.setgid(65534)
            os.setuid(65534)
            payload = pickle.dumps(("ok", action()))
        except BaseException as error:  # report anything to the parent
            payload = pickle.dumps(("error", repr(error)))
        with os.fdopen(write_end, "wb") as out:
            out.write(payload)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as incoming:
        status, value = pickle.loads(incoming.read())
    os.waitpid(pid, 0)
    assert status == "ok", value
    return value


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A temporary folder an unprivileged child can enter (pytest's tmp_path is root-only)."""
    path = Path(tempfile.mkdtemp(prefix="pith-skills-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        for folder in path.rglob("*"):
            if folder.is_dir() and not folder.is_symlink():
                folder.chmod(0o755)
        for item in sorted(path.rglob("*"), reverse=True):
            item.rmdir() if item.is_dir() and not item.is_symlink() else item.unlink()
        path.rmdir()


def test_unreadable_folder_is_reported_and_the_rest_loads(shared_dir: Path) -> None:
    _skill(shared_dir, "good")
    _skill(shared_dir, "locked")
    for item in shared_dir.rglob("*"):
        item.chmod(0o755 if item.is_dir() else 0o644)
    (shared_dir / "locked").chmod(0)
    skills, diagnostics = _run_unprivileged(lambda: load_skills_from_dir(str(shared_dir), "user"))
    assert [skill.name for skill in skills] == ["good"]
    assert [(d.type, d.path) for d in diagnostics] == [("warning", str(shared_dir / "locked"))]
    assert diagnostics[0].message.startswith("cannot read directory: ")


def test_unreadable_skill_file_is_reported(shared_dir: Path) -> None:
    path = _skill(shared_dir, "secret")
    shared_dir.joinpath("secret").chmod(0o755)
    path.chmod(0)
    skills, diagnostics = _run_unprivileged(lambda: load_skills_from_dir(str(shared_dir), "user"))
    assert skills == []
    assert [(d.type, d.path) for d in diagnostics] == [("warning", str(path))]
    assert diagnostics[0].message.startswith("cannot read skill file: ")


def test_huge_description_loads_with_a_length_warning(tmp_path: Path) -> None:
    description = "x" * 200_000
    path = _skill(tmp_path, "big", description)
    skill, diagnostics = load_skill_file(str(path), "user")
    assert skill is not None
    assert skill.description == description
    assert [d.message for d in diagnostics] == ["description exceeds 1024 characters (200000)"]
    assert description in format_skills_for_prompt([skill])


def test_lengths_count_utf16_units_like_javascript(tmp_path: Path) -> None:
    path = _skill(tmp_path, "emoji", "\U0001f600" * 513)  # 513 characters, 1026 units
    _, diagnostics = load_skill_file(str(path), "user")
    assert [d.message for d in diagnostics] == ["description exceeds 1024 characters (1026)"]


def test_symlink_loop_is_walked_once(tmp_path: Path) -> None:
    _skill(tmp_path / "group", "inner")
    (tmp_path / "group" / "back").symlink_to(tmp_path)
    skills, diagnostics = load_skills_from_dir(str(tmp_path), "user")
    assert [skill.name for skill in skills] == ["inner"]
    assert diagnostics == []


def test_names_sort_by_bytes_not_case_or_locale(tmp_path: Path) -> None:
    for name in ("b", "B", "a", "é", "Z"):
        _skill(tmp_path, name)
    skills, _ = load_skills_from_dir(str(tmp_path), "user")
    assert [skill.base_dir.rsplit("/", 1)[1] for skill in skills] == ["B", "Z", "a", "b", "é"]


def test_load_skills_reports_a_folder_path_that_is_a_file_of_other_kind(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    skills, diagnostics = load_skills(
        str(tmp_path), str(tmp_path / "agent"), ["notes.txt"], False, home=str(tmp_path)
    )
    assert skills == []
    assert [(d.message, d.path) for d in diagnostics] == [
        ("skill path is not a markdown file", str(tmp_path / "notes.txt"))
    ]


def _loaded(path: Path) -> Skill:
    skill, _ = load_skill_file(str(path), "user")
    assert skill is not None
    return skill


def test_skill_command_reads_the_file_as_it_is_now(tmp_path: Path) -> None:
    path = _skill(tmp_path, "live", body="old")
    skill = _loaded(path)
    path.write_text("---\nname: live\ndescription: d\n---\n\n  new body  \n")
    expanded = expand_skill_command("/skill:live  go  ", [skill])
    assert expanded == (
        f'<skill name="live" location="{path}">\n'
        f"References are relative to {path.parent}.\n\nnew body\n</skill>\n\ngo"
    )


def test_skill_command_for_a_vanished_file_is_unchanged_and_reported(tmp_path: Path) -> None:
    path = _skill(tmp_path, "gone")
    skill = _loaded(path)
    path.unlink()
    errors: list[tuple[str, str]] = []
    text = "/skill:gone now"
    expanded = expand_skill_command(text, [skill], on_error=lambda s, e: errors.append((s.name, e)))
    assert expanded == text
    assert errors == [("gone", "No such file or directory")]


def test_skill_command_with_bad_yaml_now_is_unchanged(tmp_path: Path) -> None:
    path = _skill(tmp_path, "broken")
    skill = _loaded(path)
    path.write_text("---\nname: [\n---\nbody\n")
    assert expand_skill_command("/skill:broken", [skill]) == "/skill:broken"


def test_skills_block_with_no_reader_named_uses_read() -> None:
    skill = Skill(
        "a", "b", "/x/SKILL.md", "/x", SourceInfo("/x/SKILL.md", "local", "user", "top-level")
    )
    assert format_skills_for_prompt([skill], None) == format_skills_for_prompt([skill], "read")
