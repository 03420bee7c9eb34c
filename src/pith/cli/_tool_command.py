"""`pith tool NAME 'JSON_ARGS' [--cwd DIR] [--json]`."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING

from pith.ai import UNSET, ImageContent, TextContent, to_builtins
from pith.cli._startup import add_extension_options, add_trust_options, prepare_run
from pith.errors import InputError
from pith.json_input import MAX_ARGUMENT_DEPTH, JsonInputError, parse_json

if TYPE_CHECKING:
    pass

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
    add_trust_options(parser)
    add_extension_options(parser)
    return parser


def run(argv: list[str]) -> int:
    return asyncio.run(_main(argv))


async def _main(argv: list[str]) -> int:
    from pith.app import run_tool

    parsed = await prepare_run(argv, _parser)
    options, cwd = parsed.options, parsed.cwd
    text = sys.stdin.read() if options.arguments == "-" else options.arguments
    try:
        arguments = parse_json(text, "tool arguments", fix="", max_depth=MAX_ARGUMENT_DEPTH)
    except JsonInputError as error:
        raise InputError(
            f"tool arguments are {'refused: ' if error.limit else ''}{error.reason} "
            f"(line {error.line}, column {error.column}); "
            'quote them for the shell, e.g. \'{"path": "README.md"}\''
        ) from None
    outcome = await run_tool(
        options.name,
        arguments,
        cwd,
        extensions=parsed.runner,
        settings=parsed.settings.data,
        layers=parsed.settings.layers,
    )
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
