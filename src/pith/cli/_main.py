"""Entry point: dispatch to a subcommand, turn failures into one-line messages."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

__all__ = ["main"]

_SUBCOMMANDS: dict[str, str] = {
    "tool": "run one built-in tool as a model's tool call would run it",
}

_USAGE = """\
usage: pith [--version] [--help] <command> [args]

pith is a terminal coding agent whose edge is context engineering.

commands:
{commands}

options:
  --version   print the version and exit
  --verbose   show Python tracebacks for internal errors
  -h, --help  show this help and exit

Run `pith <command> --help` for a command's own options.
"""


def _usage() -> str:
    width = max(len(name) for name in _SUBCOMMANDS)
    lines = [f"  {name.ljust(width)}  {text}" for name, text in _SUBCOMMANDS.items()]
    return _USAGE.format(commands="\n".join(lines))


def main(argv: Sequence[str] | None = None) -> int:
    """Run pith; returns the process exit code (also used by the console script)."""
    args = list(sys.argv[1:] if argv is None else argv)
    verbose = "--verbose" in args
    if verbose:
        args.remove("--verbose")
    try:
        return _dispatch(args)
    except KeyboardInterrupt:
        print("pith: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # the one place errors become messages
        return _report(error, verbose)


def _dispatch(args: list[str]) -> int:
    if not args or args[0] in ("-h", "--help"):
        print(_usage(), end="")
        return 0
    if args[0] in ("-V", "--version"):
        from pith import __version__

        print(f"pith {__version__}")
        return 0
    command = args[0]
    if command == "tool":
        from pith.cli._tool_command import run

        runner: Callable[[list[str]], int] = run
        return runner(args[1:])
    print(f"pith: unknown command {command!r}\n", file=sys.stderr)
    print(_usage(), end="", file=sys.stderr)
    return 2


def _report(error: Exception, verbose: bool) -> int:
    from pith.errors import PithError

    if verbose:
        import traceback

        traceback.print_exception(error, file=sys.stderr)
    if isinstance(error, PithError):
        print(f"pith: {error}", file=sys.stderr)
        return error.exit_code
    print(
        f"pith: internal error: {type(error).__name__}: {error} (run with --verbose for details)",
        file=sys.stderr,
    )
    return 1
