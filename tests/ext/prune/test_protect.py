"""`is_protected`: by tool name, by `args.path`, by the loaded context files."""

from __future__ import annotations

import pytest

from pith.ext.prune import PruneConfig, is_protected


def test_a_protected_tool_name_is_protected_whatever_its_arguments() -> None:
    config = PruneConfig(protected_tools=("todo",))
    assert is_protected("todo", {}, config)
    assert is_protected("todo", None, config)
    assert not is_protected("read", {"path": "a.py"}, config)


def test_a_skill_read_is_protected_by_default() -> None:
    assert is_protected("read", {"path": "/home/u/.agents/skills/deploy/SKILL.md"}, PruneConfig())
    assert is_protected("read", {"path": "h\\skills\\x\\SKILL.md"}, PruneConfig())


def test_agents_and_claude_files_stay_protected_when_the_paths_are_emptied() -> None:
    config = PruneConfig(protected_paths=())
    assert is_protected("read", {"path": "AGENTS.md"}, config)
    assert is_protected("read", {"path": "/repo/sub/CLAUDE.md"}, config)
    assert not is_protected("read", {"path": "skills/x/SKILL.md"}, config)


@pytest.mark.parametrize("path", [42, {}, None, [], ""])
def test_a_path_that_is_not_a_string_protects_nothing(path: object) -> None:
    assert not is_protected("read", {"path": path}, PruneConfig())


def test_missing_arguments_protect_nothing() -> None:
    assert not is_protected("read", "not a mapping", PruneConfig())
    assert not is_protected("bash", {"command": "cat skills/x/SKILL.md"}, PruneConfig())


def test_empty_config_protects_only_the_standing_instructions() -> None:
    config = PruneConfig(protected_tools=(), protected_paths=())
    assert not is_protected("read", {"path": "src/app.py"}, config)


def test_a_loaded_context_file_is_protected_by_its_resolved_path() -> None:
    config = PruneConfig().with_context_files(frozenset({"/repo/docs/RULES.txt"}))
    assert is_protected("read", {"path": "docs/RULES.txt"}, config, cwd="/repo")
    assert is_protected("read", {"path": "/repo/docs/../docs/RULES.txt"}, config, cwd="/x")
    assert not is_protected("read", {"path": "docs/RULES.txt"}, config, cwd="/other")
