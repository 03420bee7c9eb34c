"""What counts as leaving the working directory: a link is judged by where it points, and
reading the generated devices (`/dev/zero`, the random devices) leaves nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pith.ext.permissions import PermissionLayer, Ruleset, Situation, build_rules, decide

HOME = "/home/ann"


def decision(section: object, tool: str, cwd: Path, **arguments: object) -> str:
    rules = Ruleset(build_rules([PermissionLayer("settings.json", section)]), HOME)
    return decide(rules, tool, arguments, Situation(str(cwd), HOME)).state


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """A project with `vendor -> $OUTSIDE/lib` and `other -> $OUTSIDE/other`."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    for folder in (project, outside / "lib", outside / "other"):
        folder.mkdir(parents=True)
    (outside / "lib" / "notes.txt").write_text("notes\n")
    (outside / "other" / "notes.txt").write_text("other\n")
    os.symlink(outside / "lib", project / "vendor")
    os.symlink(outside / "other", project / "other")
    return project, outside


def test_a_link_out_is_allowed_when_its_target_is(layout: tuple[Path, Path]) -> None:
    project, outside = layout
    section = {"*": "allow", "external_directory": {"*": "ask", f"{outside}/lib/*": "allow"}}
    assert decision(section, "read", project, path="vendor/notes.txt") == "allow"
    assert decision(section, "bash", project, command="cat vendor/notes.txt") == "allow"
    assert decision(section, "read", project, path="other/notes.txt") == "ask"
    assert decision(section, "bash", project, command="cat other/notes.txt") == "ask"


def test_a_link_out_is_denied_when_its_target_is(layout: tuple[Path, Path]) -> None:
    project, outside = layout
    section = {"*": "allow", "external_directory": {"*": "allow", f"{outside}/lib/*": "deny"}}
    assert decision(section, "read", project, path="vendor/notes.txt") == "deny"
    assert decision(section, "read", project, path="other/notes.txt") == "allow"


def test_a_link_between_files_is_still_judged_in_both_forms(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("SECRET=1\n")
    os.symlink(tmp_path / ".env", tmp_path / "notes.txt")
    for section in ({"read": {"*.env": "deny"}}, {"path": {"*.env": "deny"}}):
        assert decision(section, "read", tmp_path, path="notes.txt") == "deny", section
        assert decision(section, "bash", tmp_path, command="cat notes.txt") == "deny", section


def test_an_outside_path_written_both_ways_is_judged_both_ways(
    layout: tuple[Path, Path], tmp_path: Path
) -> None:
    project, outside = layout
    os.symlink(outside / "lib", tmp_path / "link")
    section = {"external_directory": {"*": "allow", f"{tmp_path}/link/*": "deny"}}
    assert decision(section, "read", project, path=str(tmp_path / "link" / "notes.txt")) == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "head -c 60000 /dev/zero | tr '\\0' x",
        "head -c 16 /dev/urandom | od -An -tx1",
        "cat /dev/random | head -c 4",
        "dd if=/dev/zero of=blank.img bs=1k count=1",
        "base64 < /dev/urandom | head -c 20",
    ],
)
def test_reading_generated_devices_is_no_outside_access(tmp_path: Path, command: str) -> None:
    assert decision({}, "bash", tmp_path, command=command) == "allow", command


@pytest.mark.parametrize(
    "command",
    [
        "echo x > /dev/zero",
        "dd if=blank.img of=/dev/urandom",
        "cat /dev/sda",
        "head -c 10 /dev/mem",
        "tee /dev/random < x",
    ],
)
def test_writing_devices_and_reading_other_devices_is_outside(tmp_path: Path, command: str) -> None:
    assert decision({}, "bash", tmp_path, command=command) == "ask", command


def test_the_read_tool_on_generated_devices(tmp_path: Path) -> None:
    assert decision({}, "read", tmp_path, path="/dev/urandom") == "allow"
    assert decision({}, "write", tmp_path, path="/dev/urandom") == "ask"
    assert decision({}, "read", tmp_path, path="/dev/sda") == "ask"
    denied = {"path": {"/dev/zero": "deny"}}
    assert decision(denied, "bash", tmp_path, command="head -c 1 /dev/zero") == "deny"
