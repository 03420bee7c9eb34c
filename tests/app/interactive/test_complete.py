"""Completion in the editor: `/command` names, their arguments (sync and async), `@path`."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from pith.app.modes.interactive._complete import CommandInfo, EditorCompleter


async def branches(prefix: str) -> Sequence[str]:
    await asyncio.sleep(0)
    return ["main", "feature/tui", "fix"]


def broken(prefix: str) -> Sequence[str]:
    raise RuntimeError("an extension's completer failed")


COMMANDS = [
    CommandInfo("tree", "move in the tree"),
    CommandInfo("thinking", "thinking level", lambda p: ["off", "low", "high"]),
    CommandInfo("checkout", "switch branch", branches),
    CommandInfo("tree", "a second command of the same name"),
    CommandInfo("boom", "", broken),
]


def completer(cwd: Path | str = "/") -> EditorCompleter:
    return EditorCompleter(lambda: COMMANDS, str(cwd))


def texts(before: str, cwd: Path | str = "/") -> list[str]:
    async def collect() -> list[str]:
        found = completer(cwd).get_completions_async(Document(before), CompleteEvent())
        return [c.text async for c in found]

    return asyncio.run(collect())


def test_a_slash_completes_command_names_once_each() -> None:
    found = list(completer().get_completions(Document("/t"), CompleteEvent()))
    assert [c.text for c in found] == ["/tree", "/thinking"]
    assert [c.start_position for c in found] == [-2, -2]
    assert found[0].display_meta_text == "move in the tree"


def test_a_slash_alone_lists_every_command() -> None:
    assert texts("/") == ["/tree", "/thinking", "/checkout", "/boom"]


def test_a_command_argument_completes_from_its_list() -> None:
    assert texts("/thinking ") == ["off", "low", "high"]
    assert texts("/thinking h") == ["high"]


def test_async_argument_completions_are_awaited() -> None:
    assert texts("/checkout f") == ["feature/tui", "fix"]


def test_a_failing_argument_completer_offers_nothing() -> None:
    assert texts("/boom ") == []
    assert texts("/unknown x") == []


def test_text_that_is_not_a_command_gets_no_command_names() -> None:
    assert texts("tell me about /t") == []
    assert texts("line one\n/t") == []


def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("")
    (tmp_path / "src" / "api.py").write_text("")
    (tmp_path / "README.md").write_text("")
    (tmp_path / ".env").write_text("")
    (tmp_path / ".github").mkdir()
    return tmp_path


def test_an_at_path_lists_the_folder_with_folders_ending_in_a_slash(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    assert texts("look at @", cwd) == ["@README.md", "@src/"]
    assert texts("look at @s", cwd)[0] == "@src/"  # then files across the project


def test_a_fragment_after_at_finds_files_anywhere_in_the_project(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    (Path(cwd) / "src" / "deep").mkdir()
    (Path(cwd) / "src" / "deep" / "settings_loader.py").write_text("x\n")
    found = texts("open @setload", cwd)
    assert found[0] == "@src/deep/settings_loader.py"
    assert texts("open @zzzq", cwd) == []


def test_fuzzy_ranking_prefers_the_file_name_and_whole_fragments() -> None:
    from pith.app.modes.interactive._files import fuzzy_score, rank_paths

    paths = ["docs/main.md", "src/pith/__main__.py", "src/domain/app.py", "tests/test_main.py"]
    assert rank_paths("mainpy", paths)[:2] == ["tests/test_main.py", "src/pith/__main__.py"]
    assert rank_paths("appy", paths) == ["src/domain/app.py"]
    assert rank_paths("main", paths)[0] == "docs/main.md"  # the name matches as typed, shortest
    assert fuzzy_score("xyz", "src/app.py") is None
    assert fuzzy_score("", "anything") == 0


def test_an_at_path_descends_into_folders(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    found = list(completer(cwd).get_completions(Document("see @src/ap"), CompleteEvent()))
    assert [c.text for c in found] == ["@src/api.py", "@src/app.py"]
    assert [c.start_position for c in found] == [-len("@src/ap")] * 2
    assert [c.display_text for c in found] == ["src/api.py", "src/app.py"]


def test_hidden_entries_only_when_the_name_starts_with_a_dot(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    assert texts("@.", cwd) == ["@.env", "@.github/"]
    assert "@.env" not in texts("@", cwd)


def test_an_at_path_into_a_missing_folder_offers_nothing(tmp_path: Path) -> None:
    assert texts("@nowhere/x", project(tmp_path)) == []


def test_a_word_without_at_gets_no_paths(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    assert texts("src", cwd) == []
    assert texts("@src ", cwd) == []  # the word is finished
