"""pith loads skills and prompt templates exactly as Pi 1.6 does, on every recorded case of
the `frontmatter`, `skills`, `skills_prompt` and `prompts` groups of
tests/conformance/resources/golden.json.

Pi's result objects are compared field for field with pith's dataclasses (camelCase keys ->
snake_case fields). Two differences are intended and normalized here, nothing else:

- names: project resources live in `.pith/` where Pi's live in `.pi/`, and the default agent
  dir is `~/.pith/agent` (fixtures are built with `.pi` path segments renamed, expected paths
  mapped the same way);
- YAML error wording: Pi reports the `yaml` package's multi-line message; pith reports one line
  (`invalid YAML frontmatter at line L, column C: problem`). Such diagnostics are compared by
  type and path, and pith's message is checked to be that one line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pith.resources._discovery import discover_prompt_templates, discover_skills
from pith.resources._frontmatter import FrontmatterError, parse_frontmatter
from pith.resources._prompt_templates import (
    expand_prompt_template,
    parse_command_args,
    substitute_args,
)
from pith.resources._skills import (
    expand_skill_command,
    format_skills_for_prompt,
    load_skills,
    load_skills_from_dir,
)
from pith.resources._types import Diagnostic, PromptTemplate, Skill, SourceInfo

from .resources_golden import build_fixture, cases, pith_path

GROUPS = ("frontmatter", "skills", "skills_prompt", "prompts")
YAML_ERROR = re.compile(r" at line \d+, column \d+:\n")
PITH_YAML_ERROR = re.compile(r"invalid YAML frontmatter( at line \d+, column \d+)?: [^\n]+")


def _params(group: str, *fns: str) -> list[Any]:
    return [
        pytest.param(case, id=case["id"]) for case in cases(group) if not fns or case["fn"] in fns
    ]


def test_every_case_of_these_groups_is_covered() -> None:
    covered = {
        "frontmatter": {"parseFrontmatter"},
        "skills": {"loadSkillsFromDir", "loadSkills", "resourceLoader"},
        "skills_prompt": {"formatSkillsForPrompt"},
        "prompts": {"resourceLoader", "expandInputs", "parseCommandArgs", "substituteArgs"},
    }
    for group in GROUPS:
        assert {case["fn"] for case in cases(group)} <= covered[group]


# --- expected values: Pi's, as pith spells them ---------------------------------------------


def _expected(value: Any, root: Path) -> Any:
    """A recorded value with `<ROOT>` filled in and `.pi` path segments renamed."""
    if isinstance(value, str):
        return pith_path(value, root)
    if isinstance(value, list):
        return [_expected(item, root) for item in value]
    if isinstance(value, dict):
        return {key: _expected(item, root) for key, item in value.items()}
    return value


def _source_info(info: SourceInfo) -> dict[str, Any]:
    out: dict[str, Any] = {
        "path": info.path,
        "source": info.source,
        "scope": info.scope,
        "origin": info.origin,
    }
    if info.base_dir is not None:
        out["baseDir"] = info.base_dir
    return out


def _skill_json(skill: Skill) -> dict[str, Any]:
    return {
        "name": skill.name,
        "description": skill.description,
        "filePath": skill.file_path,
        "baseDir": skill.base_dir,
        "sourceInfo": _source_info(skill.source_info),
        "disableModelInvocation": skill.disable_model_invocation,
    }


def _template_json(template: PromptTemplate) -> dict[str, Any]:
    out: dict[str, Any] = {"name": template.name, "description": template.description}
    if template.argument_hint is not None:
        out["argumentHint"] = template.argument_hint
    out |= {
        "content": template.content,
        "sourceInfo": _source_info(template.source_info),
        "filePath": template.file_path,
    }
    return out


def _diagnostic_json(diagnostic: Diagnostic) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": diagnostic.type,
        "message": diagnostic.message,
        "path": diagnostic.path,
    }
    if diagnostic.collision is not None:
        out["collision"] = {
            "resourceType": diagnostic.collision.resource_type,
            "name": diagnostic.collision.name,
            "winnerPath": diagnostic.collision.winner_path,
            "loserPath": diagnostic.collision.loser_path,
        }
    return out


def _diagnostics(ours: list[Diagnostic], expected: list[dict[str, Any]]) -> list[Any]:
    """pith's diagnostics as Pi's, with YAML error messages checked and then blanked on both
    sides (the one intended difference in wording)."""
    assert len(ours) == len(expected), [d.message for d in ours]
    out: list[Any] = []
    for diagnostic, theirs in zip(ours, expected, strict=True):
        mine = _diagnostic_json(diagnostic)
        if YAML_ERROR.search(theirs["message"]):
            assert PITH_YAML_ERROR.fullmatch(mine["message"]), mine["message"]
            mine["message"] = theirs["message"] = "<yaml error>"
        out.append(mine)
    return out


# --- frontmatter ----------------------------------------------------------------------------


@pytest.mark.parametrize("case", _params("frontmatter"))
def test_frontmatter_matches_pi(case: dict[str, Any]) -> None:
    content = case["args"]["content"]
    if "error" in case:
        with pytest.raises(FrontmatterError) as raised:
            parse_frontmatter(content)
        assert PITH_YAML_ERROR.fullmatch(str(raised.value)), str(raised.value)
        return
    parsed = parse_frontmatter(content)
    assert {"frontmatter": parsed.data, "body": parsed.body} == case["result"]


# --- skills ---------------------------------------------------------------------------------


def _settings_list(path: Path, key: str) -> list[str]:
    if not path.is_file():
        return []
    value = json.loads(path.read_text(encoding="utf-8")).get(key, [])
    assert isinstance(value, list)
    return [str(item) for item in value]


def _session_args(args: dict[str, Any], root: Path) -> dict[str, Any]:
    """The arguments of a `resourceLoader` case, for pith's discover functions."""
    cwd = pith_path(args["cwd"], root)
    agent_dir = pith_path(args["agentDir"], root)
    trusted = bool(args["projectTrusted"])
    return {
        "cwd": cwd,
        "agent_dir": agent_dir,
        "home": str(root / "home"),
        "project_trusted": trusted,
        "settings": (Path(cwd) / ".pith" / "settings.json" if trusted else None),
        "user_settings": Path(agent_dir) / "settings.json",
        "options": _expected(args.get("options", {}), root),
    }


def _discover_skills(session: dict[str, Any]) -> tuple[list[Skill], list[Diagnostic]]:
    options = session["options"]
    project = session["settings"]
    return discover_skills(
        session["cwd"],
        session["agent_dir"],
        session["home"],
        project_trusted=session["project_trusted"],
        project_setting_paths=_settings_list(project, "skills") if project else [],
        user_setting_paths=_settings_list(session["user_settings"], "skills"),
        cli_paths=options.get("additionalSkillPaths", []),
        no_skills=options.get("noSkills", False),
    )


def _discover_templates(
    session: dict[str, Any],
) -> tuple[list[PromptTemplate], list[Diagnostic]]:
    options = session["options"]
    project = session["settings"]
    return discover_prompt_templates(
        session["cwd"],
        session["agent_dir"],
        session["home"],
        project_trusted=session["project_trusted"],
        project_setting_paths=_settings_list(project, "prompts") if project else [],
        user_setting_paths=_settings_list(session["user_settings"], "prompts"),
        cli_paths=options.get("additionalPromptTemplatePaths", []),
        no_prompt_templates=options.get("noPromptTemplates", False),
    )


@pytest.mark.parametrize("case", _params("skills", "loadSkillsFromDir"))
def test_load_skills_from_dir_matches_pi(case: dict[str, Any], tmp_path: Path) -> None:
    root = build_fixture(case["fixture"], tmp_path)
    args = case["args"]
    skills, diagnostics = load_skills_from_dir(pith_path(args["dir"], root), args["source"])
    expected = _expected(case["result"], root)
    assert [_skill_json(skill) for skill in skills] == expected["skills"]
    assert _diagnostics(diagnostics, expected["diagnostics"]) == expected["diagnostics"]


@pytest.mark.parametrize("case", _params("skills", "loadSkills"))
def test_load_skills_matches_pi(case: dict[str, Any], tmp_path: Path) -> None:
    root = build_fixture(case["fixture"], tmp_path)
    args = _expected(case["args"], root)
    skills, diagnostics = load_skills(
        args["cwd"],
        args["agentDir"],
        args.get("skillPaths", []),
        args.get("includeDefaults", True),
        home=str(root / "home"),
    )
    expected = _expected(case["result"], root)
    assert [_skill_json(skill) for skill in skills] == expected["skills"]
    assert _diagnostics(diagnostics, expected["diagnostics"]) == expected["diagnostics"]


@pytest.mark.parametrize("case", _params("skills", "resourceLoader"))
def test_session_skills_match_pi(case: dict[str, Any], tmp_path: Path) -> None:
    root = build_fixture(case["fixture"], tmp_path)
    skills, diagnostics = _discover_skills(_session_args(case["args"], root))
    expected = _expected(case["result"], root)
    assert [_skill_json(skill) for skill in skills] == expected["skills"]
    assert _diagnostics(diagnostics, expected["skillDiagnostics"]) == expected["skillDiagnostics"]


# --- skills_prompt --------------------------------------------------------------------------


def _given_skill(raw: dict[str, Any]) -> Skill:
    return Skill(
        name=raw["name"],
        description=raw["description"],
        file_path=raw["filePath"],
        base_dir=raw["baseDir"],
        source_info=SourceInfo(raw["filePath"], "local", "user", "top-level"),
        disable_model_invocation=raw["disableModelInvocation"],
    )


@pytest.mark.parametrize("case", _params("skills_prompt"))
def test_skills_block_matches_pi(case: dict[str, Any], tmp_path: Path) -> None:
    args = case["args"]
    tool = args.get("fileReadTool")
    if "fromCase" in args:
        (source,) = [c for c in cases() if c["id"] == args["fromCase"]]
        root = build_fixture(source["fixture"], tmp_path)
        skills, _ = _discover_skills(_session_args(source["args"], root))
    else:
        root = tmp_path
        skills = [_given_skill(_expected(raw, root)) for raw in args["skills"]]
    text = (
        format_skills_for_prompt(skills) if tool is None else format_skills_for_prompt(skills, tool)
    )
    assert text == _expected(case["result"], root)


# --- prompts --------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _params("prompts", "resourceLoader"))
def test_session_templates_match_pi(case: dict[str, Any], tmp_path: Path) -> None:
    root = build_fixture(case["fixture"], tmp_path)
    session = _session_args(case["args"], root)
    templates, diagnostics = _discover_templates(session)
    skills, skill_diagnostics = _discover_skills(session)
    expected = _expected(case["result"], root)
    assert [_template_json(template) for template in templates] == expected["prompts"]
    assert _diagnostics(diagnostics, expected["promptDiagnostics"]) == expected["promptDiagnostics"]
    assert [_skill_json(skill) for skill in skills] == expected["skills"]
    assert (
        _diagnostics(skill_diagnostics, expected["skillDiagnostics"])
        == expected["skillDiagnostics"]
    )


@pytest.mark.parametrize("case", _params("prompts", "expandInputs"))
def test_prompt_expansion_matches_pi(case: dict[str, Any], tmp_path: Path) -> None:
    root = build_fixture(case["fixture"], tmp_path)
    session = _session_args(case["args"], root)
    skills, _ = _discover_skills(session)
    templates, _ = _discover_templates(session)
    results = []
    for text in case["args"]["texts"]:
        after_skill = expand_skill_command(text, skills)
        results.append(
            {"afterSkill": after_skill, "expanded": expand_prompt_template(after_skill, templates)}
        )
    assert results == _expected(case["result"], root)


@pytest.mark.parametrize("case", _params("prompts", "parseCommandArgs"))
def test_parse_command_args_matches_pi(case: dict[str, Any]) -> None:
    assert [parse_command_args(text) for text in case["args"]["inputs"]] == case["result"]


@pytest.mark.parametrize("case", _params("prompts", "substituteArgs"))
def test_substitute_args_matches_pi(case: dict[str, Any]) -> None:
    results = [substitute_args(content, args) for content, args in case["args"]["inputs"]]
    assert results == case["result"]
