"""SYSTEM.md / APPEND_SYSTEM.md behaviour the Pi recordings do not pin."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pith.errors import InputError
from pith.resources._system_files import PromptText, load_system_files
from tests.resources._unreadable import make_unreadable


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path))
    (root / "agent").mkdir()
    (root / "agent" / "SYSTEM.md").write_text("Agent system.\n", encoding="utf-8")
    (root / "agent" / "APPEND_SYSTEM.md").write_text("Agent append.\n", encoding="utf-8")
    (root / "proj" / ".pith").mkdir(parents=True)
    return root


def test_empty_system_prompt_value_disables_discovery(tree: Path) -> None:
    loaded = load_system_files(tree / "proj", tree / "agent", trusted=True, system_prompt="")
    assert loaded.system_prompt is None
    assert loaded.append == [PromptText("Agent append.\n", str(tree / "agent/APPEND_SYSTEM.md"))]


def test_empty_append_list_disables_discovery(tree: Path) -> None:
    loaded = load_system_files(tree / "proj", tree / "agent", trusted=True, append_system_prompt=[])
    assert loaded.append == []
    assert loaded.system_prompt == PromptText("Agent system.\n", str(tree / "agent/SYSTEM.md"))


def test_empty_append_value_is_dropped(tree: Path) -> None:
    loaded = load_system_files(
        tree / "proj", tree / "agent", trusted=True, append_system_prompt=["", "text"]
    )
    assert loaded.append == [PromptText("text", None)]


def test_relative_cli_path_is_read_from_the_process_directory(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tree / "notes.md").write_text("From notes.\n", encoding="utf-8")
    monkeypatch.chdir(tree)
    loaded = load_system_files(
        tree / "proj", tree / "agent", trusted=True, system_prompt="notes.md"
    )
    assert loaded.system_prompt == PromptText("From notes.\n", str(tree / "notes.md"))


def test_cli_path_that_is_a_directory_is_an_input_error(tree: Path) -> None:
    with pytest.raises(InputError) as raised:
        load_system_files(tree / "proj", tree / "agent", trusted=True, system_prompt=str(tree))
    assert str(raised.value).startswith(f"--system-prompt {tree}: cannot read the file")
    assert raised.value.exit_code == 2


def test_unreadable_cli_append_file_is_an_input_error(tree: Path) -> None:
    make_unreadable(tree / "locked.md")
    with pytest.raises(InputError, match=r"--append-system-prompt .*locked\.md: cannot read"):
        load_system_files(
            tree / "proj",
            tree / "agent",
            trusted=True,
            append_system_prompt=[str(tree / "locked.md")],
        )


def test_unreadable_discovered_file_is_reported_and_not_replaced(tree: Path) -> None:
    (tree / "proj" / ".pith" / "SYSTEM.md").mkdir()
    loaded = load_system_files(tree / "proj", tree / "agent", trusted=True)
    # The project's file was the one chosen: the agent dir's does not stand in for it.
    assert loaded.system_prompt is None
    assert [(d.type, d.path) for d in loaded.diagnostics] == [
        ("warning", str(tree / "proj/.pith/SYSTEM.md"))
    ]


def test_invalid_utf8_system_md_loads_with_a_warning(tree: Path) -> None:
    (tree / "agent" / "SYSTEM.md").write_bytes(b"Be terse \xff.\n")
    loaded = load_system_files(tree / "proj", tree / "agent", trusted=False)
    assert loaded.system_prompt == PromptText("Be terse \ufffd.\n", str(tree / "agent/SYSTEM.md"))
    assert [d.path for d in loaded.diagnostics] == [str(tree / "agent/SYSTEM.md")]


def test_untrusted_project_files_are_never_read(tree: Path) -> None:
    make_unreadable(tree / "proj" / ".pith" / "SYSTEM.md")
    loaded = load_system_files(tree / "proj", tree / "agent", trusted=False)
    assert loaded.system_prompt == PromptText("Agent system.\n", str(tree / "agent/SYSTEM.md"))
    assert loaded.diagnostics == []
