"""What every command that talks to a project does first, in order:

1. read the options that decide what loads (`-e`, `--no-extensions`, `--cwd`, `-a`/`-na`);
2. load the user's settings (a malformed file stops pith here, exit 2);
3. load the extensions, except the project's own;
4. decide whether the project is trusted (`--approve`, `trust.json`, the extensions'
   `project_trust`, `defaultProjectTrust`; "ask" means untrusted without a terminal);
5. for a trusted project, merge its settings and load its extensions;
6. parse the whole command line, extension flags included;
7. (commands that build a session) load the resources: context files, skills, templates,
   SYSTEM.md, with `resources_discover` letting extensions add paths.

Steps 2 to 5 and 7 are `pith.sdk`'s, shared with the Python API (`pith.create_session`), so a
program and the command line get the same session for the same choices.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pith.errors import InputError

if TYPE_CHECKING:
    from pith.extensions import ExtensionRunner
    from pith.resources import Settings, TrustResolution
    from pith.sdk import AskTrust, Project, ResourceChoice

__all__ = [
    "PreparedRun",
    "add_extension_options",
    "add_resource_options",
    "add_trust_options",
    "configured_session_dir",
    "prepare_run",
    "resource_choice",
]


def add_extension_options(p: argparse.ArgumentParser) -> None:
    group = p.add_argument_group("extensions")
    group.add_argument(
        "-e",
        "--extension",
        action="append",
        default=[],
        metavar="PATH",
        help="load an extension (a .py file, a package folder or a module); repeatable",
    )
    group.add_argument(
        "-ne",
        "--no-extensions",
        action="store_true",
        help="load no discovered extensions (pith's built-ins and -e still load)",
    )


def add_trust_options(p: argparse.ArgumentParser) -> None:
    group = p.add_argument_group("project trust").add_mutually_exclusive_group()
    group.add_argument(
        "-a",
        "--approve",
        dest="approve",
        action="store_const",
        const=True,
        help="trust this project for this run (its .pith/ settings, extensions, skills, ...)",
    )
    group.add_argument(
        "-na",
        "--no-approve",
        dest="approve",
        action="store_const",
        const=False,
        help="do not trust this project for this run",
    )


def add_resource_options(p: argparse.ArgumentParser) -> None:
    group = p.add_argument_group("instructions and skills")
    group.add_argument(
        "--append-system-prompt",
        action="append",
        metavar="TEXT",
        help="add to the system prompt (text, or a file that exists); repeatable; replaces "
        "APPEND_SYSTEM.md",
    )
    group.add_argument(
        "--skill", action="append", default=[], metavar="PATH", help="load a skill (repeatable)"
    )
    group.add_argument(
        "--prompt-template",
        action="append",
        default=[],
        metavar="PATH",
        help="load a prompt template or a folder of them (repeatable)",
    )
    group.add_argument("-ns", "--no-skills", action="store_true", help="load no skills")
    group.add_argument(
        "-np", "--no-prompt-templates", action="store_true", help="load no prompt templates"
    )
    group.add_argument(
        "-nc",
        "--no-context-files",
        action="store_true",
        help="load no AGENTS.md / CLAUDE.md files",
    )


@dataclass
class PreparedRun:
    options: argparse.Namespace
    project: Project

    @property
    def runner(self) -> ExtensionRunner:
        return self.project.extensions

    @property
    def settings(self) -> Settings:
        return self.project.settings

    @property
    def agent_dir(self) -> Path:
        return self.project.agent_dir

    @property
    def cwd(self) -> str:
        return self.project.cwd

    @property
    def trust(self) -> TrustResolution:
        return self.project.trust


def warn(message: str) -> None:
    print(f"pith: warning: {message}", file=sys.stderr)


@dataclass
class _Early:
    extension: list[str]
    no_extensions: bool = False
    approve: bool | None = None
    cwd: str | None = None


def _early_options(argv: list[str]) -> _Early:
    """The options that decide what loads, read before the full parse (which needs the
    extensions' flags). A plain scan: argparse would take `-n` for an abbreviation of `-ne`."""
    early = _Early([])
    index = 0
    while index < len(argv):
        arg = argv[index]
        value = argv[index + 1] if index + 1 < len(argv) else None
        if arg == "--":
            break
        if arg in ("-e", "--extension") and value is not None:
            early.extension.append(value)
            index += 1
        elif arg.startswith("--extension="):
            early.extension.append(arg.partition("=")[2])
        elif arg in ("-ne", "--no-extensions"):
            early.no_extensions = True
        elif arg in ("-a", "--approve"):
            early.approve = True
        elif arg in ("-na", "--no-approve"):
            early.approve = False
        elif arg == "--cwd" and value is not None:
            early.cwd = value
            index += 1
        elif arg.startswith("--cwd="):
            early.cwd = arg.partition("=")[2]
        index += 1
    return early


async def prepare_run(
    argv: list[str],
    build_parser: Callable[[], argparse.ArgumentParser],
    ask: AskTrust | None = None,
) -> PreparedRun:
    """Settings, extensions and trust for `argv`, then `argv` parsed with extension flags.
    `ask` puts the trust question to the user (the interactive mode); without it an
    undecided project is untrusted."""
    from pith.app import add_extension_flags, apply_extension_flags
    from pith.resources import agent_dir
    from pith.sdk import COMMAND_LINE, load_project, untrusted_notice

    known = _early_options(argv)
    cwd = os.path.abspath(known.cwd or os.getcwd())
    if not os.path.isdir(cwd):
        raise InputError(f"--cwd {known.cwd}: not a directory")
    project = await load_project(
        cwd,
        agent_dir(),
        extension_paths=known.extension,
        no_extensions=known.no_extensions,
        trust=known.approve,
        ask=ask,
    )
    runner = project.extensions
    parser = build_parser()
    add_extension_flags(parser, runner)
    options = parser.parse_args(argv)
    apply_extension_flags(options, runner)
    for message in [*project.warnings, *runner.diagnostics]:
        warn(message)
    runner.diagnostics.clear()
    notice = untrusted_notice(project, COMMAND_LINE.approve)
    if notice is not None:
        warn(notice)
    return PreparedRun(options, project)


def resource_choice(options: argparse.Namespace) -> ResourceChoice:
    """The resource options of a command line (those `add_resource_options` adds)."""
    from pith.sdk import ResourceChoice

    return ResourceChoice(
        skill_paths=getattr(options, "skill", []) or [],
        prompt_template_paths=getattr(options, "prompt_template", []) or [],
        no_skills=getattr(options, "no_skills", False),
        no_prompt_templates=getattr(options, "no_prompt_templates", False),
        no_context_files=getattr(options, "no_context_files", False),
        system_prompt=getattr(options, "system_prompt", None),
        append_system_prompt=getattr(options, "append_system_prompt", None),
    )


def configured_session_dir(cwd: str, home: Path) -> str | None:
    """The `sessionDir` setting as a run in `cwd` reads it, for the commands that only look at
    sessions (`pith sessions`, `pith export`): the project's settings count when the project is
    trusted already (nobody is asked, no extension loads)."""
    import asyncio

    from pith.resources import load_settings, resolve_project_trust

    settings = load_settings(home)
    trust = asyncio.run(
        resolve_project_trust(cwd, home, default_trust=settings.default_project_trust)
    )
    if trust.trusted:
        settings = settings.with_project(cwd)
    return settings.values.session_dir
