"""The project a session runs in: settings, extensions and trust, loaded in the order every
entry point (the CLI's commands, `pith.create_session`) uses:

1. the user's settings (a malformed file stops here with a `ConfigError`);
2. the extensions, except the project's own;
3. whether the project is trusted (an explicit choice, `trust.json`, the extensions'
   `project_trust`, `defaultProjectTrust`; "ask" means untrusted when nobody can be asked);
4. for a trusted project, its settings merged in and its extensions loaded.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pith.app.session import load_extension_runner, load_project_extensions
from pith.extensions import ExtensionRunner
from pith.extensions.events import ProjectTrust
from pith.resources import (
    Settings,
    TrustChoice,
    TrustQuestion,
    TrustResolution,
    load_settings,
    resolve_project_trust,
    trust_requiring_resources,
)

__all__ = ["AskTrust", "Project", "load_project", "untrusted_notice"]

AskTrust = Callable[[TrustQuestion], Awaitable[TrustChoice | None]]
"""Puts the project-trust question to the user; None when they dismissed it."""


@dataclass
class Project:
    """A working directory with what applies to it."""

    cwd: str
    agent_dir: Path
    settings: Settings
    extensions: ExtensionRunner
    trust: TrustResolution
    warnings: list[str] = field(default_factory=list)
    """Problems found while loading (settings, extensions), for the caller to show."""


async def load_project(
    cwd: str,
    agent_dir: Path,
    *,
    extension_paths: Sequence[str] = (),
    no_extensions: bool = False,
    trust: bool | None = None,
    ask: AskTrust | None = None,
    settings: Mapping[str, object] | None = None,
) -> Project:
    """Settings, extensions and trust for `cwd`. `trust` decides for this run when given;
    `ask` puts an undecided question to the user (without it the project stays untrusted);
    `settings` are merged over the files' settings."""
    loaded = _overridden(load_settings(agent_dir), settings)
    runner = await load_extension_runner(
        cwd, agent_dir, loaded, paths=extension_paths, no_extensions=no_extensions
    )
    resolution = await resolve_project_trust(
        cwd,
        agent_dir,
        override=trust,
        default_trust=loaded.default_project_trust,
        extension_decision=lambda: runner.emit(ProjectTrust(cwd)),
        ask=ask,
    )
    if resolution.trusted:
        loaded = _overridden(loaded.with_project(cwd), settings)
    await load_project_extensions(
        runner, agent_dir, loaded, trusted=resolution.trusted, no_extensions=no_extensions
    )
    warnings = [*loaded.warnings, *runner.diagnostics]
    runner.diagnostics.clear()
    return Project(cwd, agent_dir, loaded, runner, resolution, warnings)


def _overridden(settings: Settings, overrides: Mapping[str, object] | None) -> Settings:
    return settings.with_overrides(overrides) if overrides else settings


def untrusted_notice(project: Project, approve: str = "pass --approve") -> str | None:
    """What an untrusted project keeps out and how to change that; None when nothing is.
    `approve` is how the caller trusts a project for one run (`pass --approve` on the command
    line)."""
    if project.trust.trusted:
        return None
    kept_out = trust_requiring_resources(project.cwd)
    if not kept_out:
        return None
    how = (
        f"you chose not to trust it (`pith trust --yes` changes that, {approve} to trust it "
        "for this run)"
        if project.trust.reason == "saved"
        else f"run `pith trust` to decide, or {approve} for this run"
    )
    return f"this project is not trusted, so pith does not load {', '.join(kept_out)}; {how}"
