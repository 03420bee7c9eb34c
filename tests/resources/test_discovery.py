"""What a session loads: precedence, settings entries and patterns, extension paths, the
`.agents/skills` walk — the parts of Pi's resolution the recordings do not pin."""

from __future__ import annotations

from pathlib import Path

import pytest

from pith.resources._discovery import discover_prompt_templates, discover_skills
from pith.resources._types import SourceInfo


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path.resolve()
    (root / "home" / "agent").mkdir(parents=True)
    (root / "home" / "proj" / ".git").mkdir(parents=True)
    return root


def _skill(folder: Path, name: str, description: str = "Does things.") -> Path:
    path = folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\nBody\n")
    return path


def _discover(root: Path, **options: object) -> tuple[list[str], list[tuple[str, str, str]]]:
    kwargs: dict = {"project_trusted": True, **options}
    skills, diagnostics = discover_skills(
        str(root / "home" / "proj"), str(root / "home" / "agent"), str(root / "home"), **kwargs
    )
    return (
        [skill.file_path.removeprefix(str(root) + "/") for skill in skills],
        [(d.type, d.message, d.path.removeprefix(str(root) + "/")) for d in diagnostics],
    )


def test_project_folder_beats_user_settings_entry(tree: Path) -> None:
    _skill(tree / "home" / "mine" / "same", "same", "from user settings")
    _skill(tree / "home" / "proj" / ".pith" / "skills" / "same", "same", "from the project")
    skills, diagnostics = _discover(tree, user_setting_paths=["~/mine"])
    assert skills == ["home/proj/.pith/skills/same/SKILL.md"]
    assert diagnostics == [("collision", 'name "same" collision', "home/mine/same/SKILL.md")]


def test_project_settings_count_only_when_trusted(tree: Path) -> None:
    _skill(tree / "home" / "proj" / "extra" / "x", "x")
    trusted, _ = _discover(tree, project_setting_paths=["../extra"])
    untrusted, _ = _discover(tree, project_trusted=False, project_setting_paths=["../extra"])
    assert trusted == ["home/proj/extra/x/SKILL.md"]
    assert untrusted == []


def test_exclude_pattern_switches_an_auto_skill_off(tree: Path) -> None:
    _skill(tree / "home" / "agent" / "skills" / "legacy", "legacy")
    _skill(tree / "home" / "agent" / "skills" / "fresh", "fresh")
    skills, diagnostics = _discover(tree, user_setting_paths=["!legacy"])
    assert skills == ["home/agent/skills/fresh/SKILL.md"]
    assert diagnostics == []


def test_force_include_beats_exclude(tree: Path) -> None:
    _skill(tree / "home" / "agent" / "skills" / "keep", "keep")
    _skill(tree / "home" / "agent" / "skills" / "drop", "drop")
    skills, _ = _discover(tree, user_setting_paths=["!*", "+skills/keep"])
    assert skills == ["home/agent/skills/keep/SKILL.md"]


def test_patterns_select_among_settings_folders(tree: Path) -> None:
    _skill(tree / "home" / "lib" / "alpha", "alpha")
    _skill(tree / "home" / "lib" / "beta", "beta")
    skills, _ = _discover(tree, user_setting_paths=["~/lib", "!b*"])
    assert skills == ["home/lib/alpha/SKILL.md"]


def test_missing_settings_path_is_reported(tree: Path) -> None:
    _, diagnostics = _discover(tree, user_setting_paths=["~/nowhere"])
    assert diagnostics == [("warning", "skill path in settings does not exist", "home/nowhere")]


def test_missing_cli_path_is_reported_once(tree: Path) -> None:
    _, diagnostics = _discover(tree, cli_paths=["gone", "gone"])
    assert diagnostics == [("warning", "skill path does not exist", "home/proj/gone")]


def test_extension_paths_come_last_with_their_source(tree: Path) -> None:
    _skill(tree / "home" / "agent" / "skills" / "dup", "dup")
    _skill(tree / "ext" / "skills" / "dup", "dup")
    _skill(tree / "ext" / "skills" / "own", "own")
    info = SourceInfo("", "extension:demo", "temporary", "top-level", str(tree / "ext"))
    skills, diagnostics = discover_skills(
        str(tree / "home" / "proj"),
        str(tree / "home" / "agent"),
        str(tree / "home"),
        project_trusted=True,
        extension_paths=[(str(tree / "ext" / "skills"), info)],
    )
    assert [skill.name for skill in skills] == ["dup", "own"]
    assert skills[1].source_info == SourceInfo(
        skills[1].file_path, "extension:demo", "temporary", "top-level", str(tree / "ext")
    )
    assert [d.type for d in diagnostics] == ["collision"]


def test_agents_walk_stops_at_a_git_file(tree: Path) -> None:
    repo = tree / "home" / "work" / "repo"
    (repo / "sub").mkdir(parents=True)
    (repo / ".git").write_text("gitdir: /elsewhere\n")
    _skill(repo / "sub" / ".agents" / "skills" / "inner", "inner")
    _skill(repo / ".agents" / "skills" / "at-root", "at-root")
    _skill(tree / "home" / "work" / ".agents" / "skills" / "above", "above")
    skills, _ = discover_skills(
        str(repo / "sub"), str(tree / "home" / "agent"), str(tree / "home"), project_trusted=True
    )
    assert [skill.name for skill in skills] == ["inner", "at-root"]


def test_no_skills_keeps_cli_paths_only(tree: Path) -> None:
    _skill(tree / "home" / "agent" / "skills" / "auto", "auto")
    _skill(tree / "home" / "cli" / "given", "given")
    skills, _ = _discover(tree, no_skills=True, cli_paths=["~/cli"])
    assert skills == ["home/cli/given/SKILL.md"]


def _templates(root: Path, **options: object) -> tuple[list[str], list[tuple[str, str]]]:
    kwargs: dict = {"project_trusted": True, **options}
    templates, diagnostics = discover_prompt_templates(
        str(root / "home" / "proj"), str(root / "home" / "agent"), str(root / "home"), **kwargs
    )
    return [t.name for t in templates], [(d.type, d.message) for d in diagnostics]


def test_settings_prompt_folder_is_walked_recursively_with_ignore_files(tree: Path) -> None:
    lib = tree / "home" / "prompts-lib"
    (lib / "deep").mkdir(parents=True)
    (lib / "top.md").write_text("top")
    (lib / "deep" / "nested.md").write_text("nested")
    (lib / "deep" / "skip.md").write_text("skip")
    (lib / "deep" / ".gitignore").write_text("skip.md\n")
    (lib / ".hidden.md").write_text("hidden")
    names, diagnostics = _templates(tree, user_setting_paths=["~/prompts-lib"])
    assert names == ["nested", "top"]
    assert diagnostics == []


def test_cli_prompt_folder_takes_every_md_file(tree: Path) -> None:
    given = tree / "home" / "given"
    given.mkdir()
    (given / ".dot.md").write_text("dot")
    (given / "plain.md").write_text("plain")
    (given / ".gitignore").write_text("plain.md\n")
    names, _ = _templates(tree, cli_paths=["~/given"])
    assert names == [".dot", "plain"]


def test_project_prompts_need_trust(tree: Path) -> None:
    prompts = tree / "home" / "proj" / ".pith" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "mine.md").write_text("mine")
    assert _templates(tree)[0] == ["mine"]
    assert _templates(tree, project_trusted=False)[0] == []


def test_missing_prompt_paths_are_reported(tree: Path) -> None:
    _, diagnostics = _templates(
        tree, user_setting_paths=["~/none"], cli_paths=["missing.md"], no_prompt_templates=True
    )
    assert diagnostics == [
        ("warning", "prompt template path in settings does not exist"),
        ("error", "Prompt template path does not exist"),
    ]
