"""Loading the extensions of a run, and the command-line flags they add."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from pith.extensions import (
    ExtensionRunner,
    LoadOptions,
    discover_extensions,
    discover_project_extensions,
    load_extensions,
)
from pith.resources import Settings

__all__ = [
    "add_extension_flags",
    "apply_extension_flags",
    "load_extension_runner",
    "load_project_extensions",
]

LOG_FILE = Path("logs") / "extensions.log"


def _load_options(
    cwd: str, agent_dir: Path, settings: Settings, paths: Sequence[str], no_extensions: bool
) -> LoadOptions:
    return LoadOptions(
        cwd=cwd,
        agent_dir=agent_dir,
        cli_paths=list(paths),
        no_extensions=no_extensions,
        setting_entries=settings.string_list("extensions"),
        invocation_dir=os.getcwd(),
    )


async def load_extension_runner(
    cwd: str,
    agent_dir: Path,
    settings: Settings,
    *,
    paths: Sequence[str] = (),
    no_extensions: bool = False,
) -> ExtensionRunner:
    """Find and load this run's extensions, except the project's own (see
    `load_project_extensions`); problems are left in `runner.diagnostics`."""
    runner = ExtensionRunner(cwd, log_path=agent_dir / LOG_FILE, agent_dir=agent_dir)
    options = _load_options(cwd, agent_dir, settings, paths, no_extensions)
    specs, problems = discover_extensions(options)
    runner.diagnostics.extend(problems)
    await load_extensions(runner, specs)
    return runner


async def load_project_extensions(
    runner: ExtensionRunner,
    agent_dir: Path,
    settings: Settings,
    *,
    trusted: bool,
    no_extensions: bool = False,
) -> None:
    """The trusted project's `.pith/extensions/`, after the others (an untrusted project's
    are left out; the caller tells the user what trust keeps out)."""
    if not trusted:
        return
    options = _load_options(runner.cwd, agent_dir, settings, (), no_extensions)
    specs, problems = discover_project_extensions(
        options, [extension.name for extension in runner.extensions]
    )
    runner.diagnostics.extend(problems)
    await load_extensions(runner, specs)


def add_extension_flags(parser: argparse.ArgumentParser, runner: ExtensionRunner) -> None:
    """Teach `parser` the flags extensions registered (a clash with pith's own is reported)."""
    if not runner.flags:
        return
    group = parser.add_argument_group("extension flags")
    for flag in runner.flags.values():
        option = f"--{flag.name}"
        help_text = f"{flag.description} (from {flag.extension})".strip()
        try:
            if flag.type == "boolean":
                group.add_argument(
                    option, dest=_dest(flag.name), action="store_true", default=None, help=help_text
                )
            else:
                group.add_argument(
                    option, dest=_dest(flag.name), metavar="VALUE", default=None, help=help_text
                )
        except argparse.ArgumentError:
            runner.diagnostics.append(
                f"extension {flag.extension}: flag {option} clashes with one of pith's; ignored"
            )


def apply_extension_flags(options: argparse.Namespace, runner: ExtensionRunner) -> None:
    """Store the values given on the command line for `api.get_flag`."""
    for flag in runner.flags.values():
        value = getattr(options, _dest(flag.name), None)
        if value is not None:
            runner.flag_values[flag.name] = value


def _dest(name: str) -> str:
    return "extension_flag_" + name.replace("-", "_")
