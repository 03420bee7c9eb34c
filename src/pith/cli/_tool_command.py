"""`pith tool NAME 'JSON_ARGS' [--cwd DIR] [--json]`."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import TYPE_CHECKING

from pith.ai import UNSET, ImageContent, TextContent, to_builtins
from pith.errors import InputError

if TYPE_CHECKING:
    from pith.agent import ToolCallOutcome

__all__ = ["run"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pith tool",
        description=(
            "Run one tool exactly as a model-issued call runs: argument repair and "
            "validation, the extensions' tool_call and tool_result handlers, output caps and "
            "notices included. Exit status: 0 on success, 1 when the tool reports an error "
            "(or an extension blocked the call), 2 for a bad request."
        ),
    )
    parser.add_argument(
        "name", help="tool name: read, write, edit, bash, grep, find, ls, or an extension's"
    )
    parser.add_argument(
        "arguments",
        nargs="?",
        default="{}",
        help="the arguments as a JSON object, or - to read them from standard input",
    )
    parser.add_argument("--cwd", default=None, help="working directory (default: current)")
    parser.add_argument(
        "--json",
        action="store_true",
        help='print {"content": [...], "details": ..., "isError": ...} instead of text',
    )
    from pith.cli._agent_command import add_extension_options

    add_extension_options(parser)
    return parser


def run(argv: list[str]) -> int:
    options = _parser().parse_args(argv)
    text = sys.stdin.read() if options.arguments == "-" else options.arguments
    try:
        arguments = json.loads(text)
    except ValueError as error:
        raise InputError(
            f"tool arguments are not valid JSON ({error}); "
            'quote them for the shell, e.g. \'{"path": "README.md"}\''
        ) from None
    cwd = os.path.abspath(options.cwd or os.getcwd())
    if not os.path.isdir(cwd):
        raise InputError(f"--cwd {options.cwd}: not a directory")

    outcome = asyncio.run(_run(options, arguments, cwd))
    result = outcome.result
    if options.json:
        payload = {
            "content": to_builtins(result.content),
            "details": None if result.details is UNSET else to_builtins(result.details),
            "isError": result.is_error,
        }
        print(json.dumps(payload, ensure_ascii=False))
    else:
        for block in result.content:
            if isinstance(block, TextContent):
                print(block.text)
            elif isinstance(block, ImageContent):
                size = len(block.data) * 3 // 4
                print(f"[image: {block.mime_type}, about {size} bytes]")
    return 1 if result.is_error else 0


async def _run(options: argparse.Namespace, arguments: object, cwd: str) -> ToolCallOutcome:
    from pith.app import load_extension_runner, run_tool
    from pith.resources import agent_dir, load_settings

    home = agent_dir()
    settings = load_settings(home)
    runner = await load_extension_runner(
        cwd, home, settings, paths=options.extension, no_extensions=options.no_extensions
    )
    for warning in [*settings.warnings, *runner.diagnostics]:
        print(f"pith: warning: {warning}", file=sys.stderr)
    runner.diagnostics.clear()
    return await run_tool(options.name, arguments, cwd, extensions=runner, settings=settings.data)
