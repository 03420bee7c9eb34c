"""Putting a session together from what was chosen: the one function every entry point (the
CLI's commands and `pith.create_session`) builds its session with, so the same choices give
the same session whoever asks."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pith.ai import Model, ModelRegistry, ThinkingLevel, as_thinking_level
from pith.app.session import AgentSession, SessionOptions, build_agent_session
from pith.extensions import ExtensionUI, Mode
from pith.extensions.events import ResourcesDiscover
from pith.resources import ResourceOptions, Resources, SourceInfo, load_resources
from pith.sdk._project import Project
from pith.session import SessionStore

__all__ = [
    "ResourceChoice",
    "SessionSetup",
    "Warn",
    "assemble_session",
    "choose_thinking",
    "load_session_resources",
]

Warn = Callable[[str], None]
"""Where a one-line warning goes (the CLI prints it to standard error)."""


@dataclass
class ResourceChoice:
    """Which instructions, skills and templates a session loads besides the discovered ones."""

    skill_paths: Sequence[str] = ()
    prompt_template_paths: Sequence[str] = ()
    no_skills: bool = False
    no_prompt_templates: bool = False
    no_context_files: bool = False
    system_prompt: str | None = None
    """Replaces pith's own system prompt (text, or a file that exists)."""
    append_system_prompt: Sequence[str] | None = None


@dataclass
class SessionSetup:
    """Everything a session is built from."""

    project: Project
    registry: ModelRegistry
    model: Model
    store: SessionStore
    thinking: ThinkingLevel
    tools: SessionOptions = field(default_factory=SessionOptions)
    resources: ResourceChoice = field(default_factory=ResourceChoice)
    mode: Mode = "print"
    ui: ExtensionUI | None = None


async def load_session_resources(project: Project, choice: ResourceChoice, warn: Warn) -> Resources:
    """The resources of a session in `project`, with the paths extensions add
    (`resources_discover`); each problem found is a warning."""
    discovered = await project.extensions.emit(ResourcesDiscover(project.cwd))

    def extension_paths(paths: list[tuple[str, str]]) -> list[tuple[str, SourceInfo]]:
        return [
            (path, SourceInfo(path, "extension", "temporary", "top-level", None))
            for path, _ in paths
        ]

    resources = load_resources(
        ResourceOptions(
            cwd=project.cwd,
            agent_dir=project.agent_dir,
            settings=project.settings,
            project_trusted=project.trust.trusted,
            skill_paths=list(choice.skill_paths),
            prompt_template_paths=list(choice.prompt_template_paths),
            no_skills=choice.no_skills,
            no_prompt_templates=choice.no_prompt_templates,
            no_context_files=choice.no_context_files,
            system_prompt=choice.system_prompt,
            append_system_prompt=(
                list(choice.append_system_prompt)
                if choice.append_system_prompt is not None
                else None
            ),
            extension_skill_paths=extension_paths(discovered.skill_paths),
            extension_prompt_paths=extension_paths(discovered.prompt_paths),
        )
    )
    for diagnostic in resources.diagnostics:
        warn(f"{diagnostic.path}: {diagnostic.message}" if diagnostic.path else diagnostic.message)
    return resources


async def assemble_session(
    setup: SessionSetup, warn: Warn, *, cwd: str | None = None
) -> AgentSession:
    """The session for `setup` (not started yet). `cwd` is where its tools work when that is
    not the project's directory (a session file recorded elsewhere)."""
    project = setup.project
    resources = await load_session_resources(project, setup.resources, warn)
    return build_agent_session(
        cwd=cwd or project.cwd,
        store=setup.store,
        registry=setup.registry,
        model=setup.model,
        thinking=setup.thinking,
        options=setup.tools,
        extensions=project.extensions,
        mode=setup.mode,
        ui=setup.ui,
        settings=project.settings,
        resources=resources,
    )


def choose_thinking(
    asked: str | None, store: SessionStore, model: Model, default: str | None
) -> tuple[ThinkingLevel, str | None]:
    """The thinking level of a run and a warning, if any: the level asked for, else the one a
    resumed session last used, else the settings' default, else `medium` for a reasoning model
    and `off` for another. A level asked for a model that does not reason is dropped with a
    warning (a default in settings applies to any model, so it is not warned about)."""
    resumed = store.projection().thinking_level if store.entries else None
    level = as_thinking_level(asked or resumed or default, "medium" if model.reasoning else "off")
    if asked is not None and asked != "off" and not model.reasoning:
        return "off", (
            f"thinking level {asked} ignored: {model.key} does not reason "
            '(set "reasoning": true for it in models.json if it does)'
        )
    return level, None
