"""pith's files (settings.json, models.json, trust.json, a SKILL.md's frontmatter) when they hold
what no one should write: one line naming the file, the line and what to do — no traceback, no
hang, no guess."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pith.resources._settings import SettingsWriteError, edit_settings_file
from pith.testing import FakeServer, configure_agent_dir, subprocess_env

DEEP = '{"retry": ' + "[" * 100_000 + "]" * 100_000 + "}"
HUGE = '{"retry": {"maxRetries": ' + "9" * 5000 + "}}"


def pith(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "pith", *args],
        cwd=work,
        env=subprocess_env(tmp_path / "agent", HOME=str(tmp_path / "home")),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def agent_file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / "agent" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "internal error" not in result.stderr
    return result.stderr


@pytest.mark.parametrize("name", ["settings.json", "models.json", "trust.json"])
@pytest.mark.parametrize(
    ("text", "reason"),
    [(DEEP, "nested more than 128 levels deep"), (HUGE, "a number longer than 1000 digits")],
)
def test_a_file_too_deep_or_with_a_huge_number_is_named_in_one_line(
    tmp_path: Path, name: str, text: str, reason: str
) -> None:
    path = agent_file(tmp_path, name, text)
    if name == "trust.json":
        result = pith(tmp_path, "trust")
    else:
        result = pith(tmp_path, "-p", "--model", "x/y", "hello")
    assert one_line(result).startswith(f"pith: {path}:1:")
    assert reason in result.stderr


def test_a_key_given_twice_in_settings_is_refused_with_its_line(tmp_path: Path) -> None:
    text = (
        "{\n"
        '  "permission": {"bash": {"rm *": "deny"}},\n'
        '  "permission": {"bash": {"ls *": "allow"}}\n'
        "}\n"
    )
    path = agent_file(tmp_path, "settings.json", text)
    assert one_line(pith(tmp_path, "-p", "hello")) == (
        f'pith: {path}:3:3: the key "permission" appears twice here; fix the file or remove it\n'
    )


def test_a_pattern_given_twice_in_one_map_is_refused(tmp_path: Path) -> None:
    text = '{"permission": {"bash": {\n  "rm *": "deny",\n  "rm *": "allow"\n}}}\n'
    path = agent_file(tmp_path, "settings.json", text)
    assert one_line(pith(tmp_path, "-p", "hello")).startswith(
        f'pith: {path}:3:3: the key "rm *" appears twice here'
    )


def test_a_key_given_twice_in_project_settings_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "work" / ".pith"
    project.mkdir(parents=True)
    (project / "settings.json").write_text('{"prune": {}, "prune": {}}')
    result = pith(tmp_path, "--approve", "-p", "hello")
    assert one_line(result).startswith(f"pith: {project / 'settings.json'}:1:15: the key")


@pytest.mark.parametrize("name", ["models.json", "trust.json"])
def test_a_key_given_twice_in_models_or_trust_is_refused(tmp_path: Path, name: str) -> None:
    text = {
        "models.json": '{"providers": {}, "providers": {}}',
        "trust.json": '{"/a": false, "/a": true}',
    }[name]
    path = agent_file(tmp_path, name, text)
    result = pith(tmp_path, "trust") if name == "trust.json" else pith(tmp_path, "-p", "hi")
    assert "appears twice here" in one_line(result)
    assert result.stderr.startswith(f"pith: {path}:1:")


def test_saving_settings_refuses_a_file_with_a_key_given_twice(tmp_path: Path) -> None:
    path = agent_file(tmp_path, "settings.json", '{"prune": {"a": 1}, "prune": {"b": 2}}')
    with pytest.raises(SettingsWriteError, match='line 1: the key "prune" appears twice'):
        edit_settings_file(path, lambda settings: settings.update(x=1))
    assert path.read_text() == '{"prune": {"a": 1}, "prune": {"b": 2}}'


def test_a_misspelt_setting_is_named_with_the_closest_key(tmp_path: Path) -> None:
    path = agent_file(tmp_path, "settings.json", '{\n  "permision": {"*": "deny"}\n}\n')
    result = pith(tmp_path, "-p", "--model", "x/y", "hello")
    assert (
        f"pith: warning: {path}:2: unknown setting 'permision' is ignored; "
        "did you mean 'permission'?\n"
    ) in result.stderr


def test_an_extension_s_own_setting_is_not_warned_about(tmp_path: Path) -> None:
    agent_file(tmp_path, "settings.json", '{"myExtension": {"on": true}}')
    result = pith(tmp_path, "-p", "--model", "x/y", "hello")
    assert "myExtension" not in result.stderr


@pytest.mark.parametrize("name", ["settings.json", "trust.json"])
def test_a_fifo_in_place_of_a_file_is_refused_without_waiting(tmp_path: Path, name: str) -> None:
    path = tmp_path / "agent" / name
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    result = pith(tmp_path, "trust") if name == "trust.json" else pith(tmp_path, "-p", "hi")
    assert one_line(result).startswith(f"pith: {path}: cannot read")
    assert "not a regular file (a FIFO)" in result.stderr


def test_a_symlinked_trust_file_is_written_through_the_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "pith-trust.json"
    real.parent.mkdir()
    real.write_text("{}\n")
    link = tmp_path / "agent" / "trust.json"
    link.parent.mkdir()
    link.symlink_to(real)
    result = pith(tmp_path, "trust", "--yes")
    assert result.returncode == 0, result.stderr
    assert link.is_symlink()
    assert json.loads(real.read_text()) == {str((tmp_path / "work").resolve()): True}


@contextlib.contextmanager
def unwritable(path: Path) -> Iterator[None]:
    """`path` made unchangeable: read-only for a user, immutable (chattr) for root."""
    mode = path.stat().st_mode
    path.chmod(0o555 if path.is_dir() else 0o444)
    as_root = os.geteuid() == 0
    if as_root:
        subprocess.run(["chattr", "+i", str(path)], check=True)
    try:
        yield
    finally:
        if as_root:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        path.chmod(mode)


def test_an_unwritable_trust_file_is_one_clear_line(tmp_path: Path) -> None:
    path = agent_file(tmp_path, "trust.json", "{}\n")
    (tmp_path / "agent" / "trust.json.lock").touch()
    with unwritable(path), unwritable(path.parent):
        result = pith(tmp_path, "trust", "--yes")
    assert result.returncode == 1, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"pith: {path}: cannot save the trust decision (")
    assert path.read_text() == "{}\n"


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested more than 128 levels deep"),
        ("9" * 5000, "a number longer than 1000 digits"),
    ],
)
def test_a_skill_whose_frontmatter_is_too_deep_is_named_and_the_others_load(
    tmp_path: Path, value: str, reason: str
) -> None:
    skills = tmp_path / "agent" / "skills"
    (skills / "bad").mkdir(parents=True)
    (skills / "bad" / "SKILL.md").write_text(f"---\nname: bad\nmeta: {value}\n---\nBody.\n")
    (skills / "good").mkdir()
    (skills / "good" / "SKILL.md").write_text("---\nname: good\ndescription: Works.\n---\nOk.\n")
    with FakeServer({"turns": [{"text": "ok", "expect": ["Works."]}]}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        result = pith(tmp_path, "-p", "--model", "fake/m", "hello")
        assert server.problems() == []
    assert result.returncode == 0, result.stderr
    assert str(skills / "bad" / "SKILL.md") in result.stderr
    assert "line 3, column " in result.stderr
    assert reason in result.stderr
    assert "internal error" not in result.stderr
