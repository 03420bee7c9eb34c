"""`pith tool NAME 'JSON_ARGS' [--cwd DIR] [--json]`."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys

from pith.ai import UNSET, ImageContent, TextContent, to_builtins
from pith.errors import InputError

__all__ = ["run"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pith tool",
        description=(
            "Run one built-in tool exactly as a model-issued call runs: argument repair and "
            "validation, output caps and notices included. Exit status: 0 on success, 1 when "
            "the tool reports an error, 2 for a bad request."
        ),
    )
    parser.add_argument("name", help="tool name: read, write, edit, bash, grep, find or ls")
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

    from pith.app import run_tool

    outcome = asyncio.run(run_tool(options.name, arguments, cwd))
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
