"""Command lines that extensions can extend: load the extensions, then parse with their flags.

`-e`, `--no-extensions` and `--cwd` are read first (they decide what loads); the full parse
then knows every flag the loaded extensions registered.
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
    from pith.resources import Settings

__all__ = ["ParsedRun", "add_extension_options", "parse_with_extensions"]


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


@dataclass
class ParsedRun:
    options: argparse.Namespace
    runner: ExtensionRunner
    settings: Settings
    agent_dir: Path
    cwd: str


async def parse_with_extensions(
    argv: list[str], build_parser: Callable[[], argparse.ArgumentParser]
) -> ParsedRun:
    """Load the extensions `argv` asks for, then parse `argv` with their flags too."""
    from pith.app import add_extension_flags, apply_extension_flags, load_extension_runner
    from pith.resources import agent_dir, load_settings

    early = argparse.ArgumentParser(add_help=False)
    add_extension_options(early)
    early.add_argument("--cwd")
    known = early.parse_known_args(argv)[0]
    cwd = os.path.abspath(known.cwd or os.getcwd())
    if not os.path.isdir(cwd):
        raise InputError(f"--cwd {known.cwd}: not a directory")
    home = agent_dir()
    settings = load_settings(home)
    runner = await load_extension_runner(
        cwd, home, settings, paths=known.extension, no_extensions=known.no_extensions
    )
    parser = build_parser()
    add_extension_flags(parser, runner)
    options = parser.parse_args(argv)
    apply_extension_flags(options, runner)
    for warning in [*settings.warnings, *runner.diagnostics]:
        print(f"pith: warning: {warning}", file=sys.stderr)
    runner.diagnostics.clear()
    return ParsedRun(options, runner, settings, home, cwd)
