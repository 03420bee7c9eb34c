"""The skills and prompt templates a session loads, as Pi's resource loader finds them.

Order of precedence (earlier wins a name collision, which is reported as a `collision`
diagnostic; a file reached twice through different paths is loaded once, silently):

1. project settings entries (trusted projects only);
2. the project's own folders (trusted only): `.pith/skills` then `.agents/skills` of cwd and
   each ancestor up to the git root — `~/.agents/skills` is never a project folder — or
   `.pith/prompts`;
3. user settings entries;
4. `<agent dir>/skills` then `~/.agents/skills`, or `<agent dir>/prompts`;
5. `--skill` / `--prompt-template` paths: merged last, so they *lose* collisions (as in Pi);
6. paths contributed by extensions.

`no_skills` / `no_prompt_templates` drop 1–4. An explicit path loads even in an untrusted
project. Missing `--skill` / `--prompt-template` paths are reported.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence

from pith.resources._input_paths import merge_paths, resolve_input_path
from pith.resources._prompt_templates import load_prompt_templates
from pith.resources._resolve import Origin, find_source_info, resolve_candidates
from pith.resources._skills import load_skills
from pith.resources._types import Collision, Diagnostic, PromptTemplate, Skill, SourceInfo

__all__ = ["ExtensionPath", "discover_prompt_templates", "discover_skills"]

ExtensionPath = tuple[str, SourceInfo]
"""A path an extension contributes, and the source info its resources get (the `path` field
is replaced by each resource's own)."""


def _absolute(path: str, home: str) -> str:
    return resolve_input_path(path, os.getcwd(), home, trim=False)


def _resolved_extension_paths(
    extension_paths: Sequence[ExtensionPath], cwd: str, home: str
) -> list[ExtensionPath]:
    return [(resolve_input_path(path, cwd, home), info) for path, info in extension_paths]


def _missing(
    cli_paths: Sequence[str], cwd: str, home: str, diagnostics: list[Diagnostic], message: str
) -> list[Diagnostic]:
    reported = {diagnostic.path for diagnostic in diagnostics}
    missing: list[Diagnostic] = []
    for raw in cli_paths:
        path = resolve_input_path(raw, cwd, home)
        if not os.path.exists(path) and path not in reported:
            missing.append(Diagnostic("error", message, path))
            reported.add(path)
    return missing


def discover_skills(
    cwd: str,
    agent_dir: str,
    home: str,
    *,
    project_trusted: bool,
    project_setting_paths: Sequence[str] = (),
    user_setting_paths: Sequence[str] = (),
    cli_paths: Sequence[str] = (),
    extension_paths: Sequence[ExtensionPath] = (),
    no_skills: bool = False,
) -> tuple[list[Skill], list[Diagnostic]]:
    """The session's skills in precedence order, and every warning, collision and error met.

    `project_setting_paths` / `user_setting_paths` are the `skills` lists of the project and
    user settings (paths or `!`/`+`/`-` patterns); `cli_paths` the `--skill` values."""
    cwd, agent_dir, home = _absolute(cwd, home), _absolute(agent_dir, home), _absolute(home, home)
    candidates, problems = resolve_candidates(
        "skills",
        cwd,
        agent_dir,
        home,
        project_trusted=project_trusted,
        project_entries=project_setting_paths,
        user_entries=user_setting_paths,
    )
    origins: dict[str, Origin] = {c.path: c.origin for c in candidates}
    enabled = [] if no_skills else [c.path for c in candidates if c.enabled]
    extensions = _resolved_extension_paths(extension_paths, cwd, home)
    paths = merge_paths(
        merge_paths(enabled, cli_paths, cwd, home), [p for p, _ in extensions], cwd, home
    )
    skills: list[Skill] = []
    diagnostics: list[Diagnostic] = []
    if paths or not no_skills:
        skills, diagnostics = load_skills(cwd, agent_dir, paths, include_defaults=False, home=home)
    skills = [
        dataclasses.replace(
            skill,
            source_info=find_source_info(skill.file_path, extensions, origins) or skill.source_info,
        )
        for skill in skills
    ]
    diagnostics = [*problems, *diagnostics]
    diagnostics += _missing(cli_paths, cwd, home, diagnostics, "Skill path does not exist")
    return skills, diagnostics


def _dedupe(
    templates: list[PromptTemplate],
) -> tuple[list[PromptTemplate], list[Diagnostic]]:
    by_name: dict[str, PromptTemplate] = {}
    collisions: list[Diagnostic] = []
    for template in templates:
        existing = by_name.get(template.name)
        if existing is None:
            by_name[template.name] = template
            continue
        collisions.append(
            Diagnostic(
                "collision",
                f'name "/{template.name}" collision',
                template.file_path,
                Collision("prompt", template.name, existing.file_path, template.file_path),
            )
        )
    return list(by_name.values()), collisions


def discover_prompt_templates(
    cwd: str,
    agent_dir: str,
    home: str,
    *,
    project_trusted: bool,
    project_setting_paths: Sequence[str] = (),
    user_setting_paths: Sequence[str] = (),
    cli_paths: Sequence[str] = (),
    extension_paths: Sequence[ExtensionPath] = (),
    no_prompt_templates: bool = False,
) -> tuple[list[PromptTemplate], list[Diagnostic]]:
    """The session's prompt templates in precedence order (one per name), and every warning,
    collision and error met. The settings lists are the `prompts` lists of the project and
    user settings; `cli_paths` the `--prompt-template` values."""
    cwd, agent_dir, home = _absolute(cwd, home), _absolute(agent_dir, home), _absolute(home, home)
    candidates, problems = resolve_candidates(
        "prompts",
        cwd,
        agent_dir,
        home,
        project_trusted=project_trusted,
        project_entries=project_setting_paths,
        user_entries=user_setting_paths,
    )
    origins: dict[str, Origin] = {c.path: c.origin for c in candidates}
    enabled = [] if no_prompt_templates else [c.path for c in candidates if c.enabled]
    extensions = _resolved_extension_paths(extension_paths, cwd, home)
    paths = merge_paths(
        merge_paths(enabled, cli_paths, cwd, home), [p for p, _ in extensions], cwd, home
    )
    templates: list[PromptTemplate] = []
    diagnostics: list[Diagnostic] = []
    if paths or not no_prompt_templates:
        loaded, diagnostics = load_prompt_templates(
            cwd, agent_dir, paths, include_defaults=False, home=home
        )
        templates, collisions = _dedupe(loaded)
        diagnostics = [*diagnostics, *collisions]
    templates = [
        dataclasses.replace(
            template,
            source_info=find_source_info(template.file_path, extensions, origins)
            or template.source_info,
        )
        for template in templates
    ]
    diagnostics = [*problems, *diagnostics]
    diagnostics += _missing(
        cli_paths, cwd, home, diagnostics, "Prompt template path does not exist"
    )
    return templates, diagnostics
