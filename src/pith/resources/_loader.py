"""Everything standing that a project contributes to the model's context, loaded together:
context files, skills, prompt templates, SYSTEM.md / APPEND_SYSTEM.md, with their diagnostics.

Trust decides what a project may give (docs/resources.md, Project trust): context files always
load; the project's `.pith/` skills, prompts, SYSTEM.md, APPEND_SYSTEM.md and settings only when
the project is trusted.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pith.resources._context_files import load_context_files
from pith.resources._discovery import ExtensionPath, discover_prompt_templates, discover_skills
from pith.resources._settings import Settings
from pith.resources._system_files import load_system_files
from pith.resources._system_prompt import docs_section
from pith.resources._types import ContextFile, Diagnostic, PromptTemplate, Skill

__all__ = ["ResourceOptions", "Resources", "load_resources"]


@dataclass
class Resources:
    """The loaded resources of a session (what `pith context` lists, with sources)."""

    context_files: list[ContextFile] = field(default_factory=list)
    skills: list[Skill] = field(default_factory=list)
    prompt_templates: list[PromptTemplate] = field(default_factory=list)
    custom_prompt: str | None = None
    """SYSTEM.md or `--system-prompt`: replaces pith's preamble, tools, rules and docs."""
    custom_prompt_source: str | None = None
    """The file it came from; None for literal text."""
    append: list[str] = field(default_factory=list)
    """APPEND_SYSTEM.md or `--append-system-prompt` values, in order."""
    append_sources: list[str | None] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    project_trusted: bool = False
    docs: str | None = None
    """pith's own `<docs>` section."""

    @property
    def append_text(self) -> str:
        return "\n\n".join(self.append)


@dataclass
class ResourceOptions:
    """What to load: the project, the user's choices on the command line, and settings."""

    cwd: str
    agent_dir: Path
    settings: Settings = field(default_factory=Settings)
    project_trusted: bool = False
    home: str | None = None
    skill_paths: Sequence[str] = ()
    """`--skill`."""
    prompt_template_paths: Sequence[str] = ()
    """`--prompt-template`."""
    no_skills: bool = False
    no_prompt_templates: bool = False
    no_context_files: bool = False
    system_prompt: str | None = None
    """`--system-prompt` (text, or a file that exists)."""
    append_system_prompt: Sequence[str] | None = None
    """`--append-system-prompt` values; None discovers APPEND_SYSTEM.md."""
    extension_skill_paths: Sequence[ExtensionPath] = ()
    extension_prompt_paths: Sequence[ExtensionPath] = ()


def load_resources(options: ResourceOptions) -> Resources:
    """Load every resource of a session in `options.cwd`."""
    cwd = options.cwd
    agent = str(options.agent_dir)
    home = options.home if options.home is not None else os.path.expanduser("~")
    trusted = options.project_trusted
    settings = options.settings
    diagnostics: list[Diagnostic] = []
    context: list[ContextFile] = []
    if not options.no_context_files:
        context, found = load_context_files(cwd, agent)
        diagnostics.extend(found)
    skills, found = discover_skills(
        cwd,
        agent,
        home,
        project_trusted=trusted,
        project_setting_paths=settings.project_list("skills") if trusted else (),
        user_setting_paths=settings.user_list("skills"),
        cli_paths=options.skill_paths,
        extension_paths=options.extension_skill_paths,
        no_skills=options.no_skills,
    )
    diagnostics.extend(found)
    templates, found = discover_prompt_templates(
        cwd,
        agent,
        home,
        project_trusted=trusted,
        project_setting_paths=settings.project_list("prompts") if trusted else (),
        user_setting_paths=settings.user_list("prompts"),
        cli_paths=options.prompt_template_paths,
        extension_paths=options.extension_prompt_paths,
        no_prompt_templates=options.no_prompt_templates,
    )
    diagnostics.extend(found)
    system = load_system_files(
        cwd,
        agent,
        trusted=trusted,
        system_prompt=options.system_prompt,
        append_system_prompt=options.append_system_prompt,
    )
    diagnostics.extend(system.diagnostics)
    custom = system.system_prompt
    return Resources(
        context_files=context,
        skills=skills,
        prompt_templates=templates,
        custom_prompt=custom.text if custom is not None else None,
        custom_prompt_source=custom.source if custom is not None else None,
        append=[item.text for item in system.append],
        append_sources=[item.source for item in system.append],
        diagnostics=diagnostics,
        project_trusted=trusted,
        docs=docs_section(),
    )
