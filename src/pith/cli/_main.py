"""Entry point: dispatch to a subcommand, turn failures into one-line messages."""

import sys
from collections.abc import Callable, Sequence

__all__ = ["main"]

_SUBCOMMANDS: dict[str, str] = {
    "tool": "run one built-in tool as a model's tool call would run it",
    "sessions": "list this directory's sessions",
    "export": "write a session as a self-contained HTML page (tree, outputs, context chart)",
    "context": "show what the next request of a session would contain",
    "trust": "see or decide whether pith trusts this project's .pith/ resources",
    "permissions": "see what the permission rules decide for a tool call (check, show)",
    "guard": "see how the tool guard would run a bash command (plan)",
    "mcp": "add, remove and list MCP servers in mcp.json",
    "auth": "save, list and remove provider API keys in auth.json (login, list, logout)",
    "batch": "run a JSON-lines file of tasks, each in its own workspace (locally or on Ray)",
}

_USAGE = """\
usage: pith [options] [@file ...] [message ...]
       pith <command> [args]

pith is a terminal coding agent whose edge is context engineering.

  pith                                      work in the terminal UI (docs/interactive.md)
  pith "fix the failing test"               the terminal UI, starting with this request
  pith -p "fix the failing test"            answer once and exit
  pith -p --mode json "..."                 one JSON event per line
  pith --mode rpc                           JSON-lines commands on stdin (docs/rpc.md)
  git diff | pith -p "review this diff"     piped input is prepended

options (see `pith --options` for all):
  -p, --print           answer once and exit
  --mode text|json|rpc  output format
  --model PATTERN       id, provider/id or provider/id:thinking
  --provider ID         openai, anthropic, ollama, or one from models.json
  --api-key KEY         key for this run
  --thinking LEVEL      off, minimal, low, medium, high, xhigh, max
  --tools a,b,+x,-y     choose tools (default: read,bash,edit,write)
  -nt, --no-tools       no tools at all
  -c, --continue        continue this directory's latest session
  -r, --resume          choose a session to resume
  --session FILE|ID     use that session;  --fork FILE|ID  continue in a copy
  --session-id ID       the id of a new session
  --no-session          keep nothing on disk
  -a, --approve         trust this project for this run (see `pith trust`)
  --yes                 answer every permission question with allow (denies stay)
  -e, --extension PATH  load an extension (its own flags: `pith -e PATH --help`)
  --list-models [TEXT]  list known models, or those TEXT names (provider, id, name)
  --options             every option, the extensions' included
  --version             print the version and exit
  --verbose             show Python tracebacks for internal errors

commands:
{commands}

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
        _require_working_directory()
        return _dispatch(args)
    except KeyboardInterrupt:
        print("pith: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`pith ... | head`): stop quietly, as Unix tools do.
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except Exception as error:  # the one place errors become messages
        return _report(error, verbose)


def _require_working_directory() -> None:
    """Every command resolves paths against the working directory: one removed under pith
    (`mkdir x && cd x && rmdir ../x`) is named here rather than failing somewhere inside."""
    import os

    try:
        os.getcwd()
    except FileNotFoundError:
        from pith.errors import InputError

        raise InputError(
            "the current folder no longer exists (it was removed or renamed after the shell "
            "entered it); cd to an existing folder and run pith again"
        ) from None


def _dispatch(args: list[str]) -> int:
    if not args:
        from pith.cli._agent_command import run as run_agent

        return run_agent(args)
    loads_extensions = any(a in ("-e", "--extension") or a.startswith("--extension=") for a in args)
    if args[0] in ("-h", "--help") and not loads_extensions:
        print(_usage(), end="")
        return 0
    if "--options" in args or (args[0] in ("-h", "--help") and loads_extensions):
        # Every option, wherever the flag stands; with -e, the extensions' flags too (the
        # agent command's own --help loads them first).
        rest = [a for a in args if a not in ("--options", "-h", "--help")]
        if loads_extensions:
            from pith.cli._agent_command import run as run_agent

            return run_agent([*rest, "--help"])
        from pith.cli._agent_command import parser

        parser().print_help()
        return 0
    if args[0] in ("-V", "--version"):
        from pith._version import __version__

        print(f"pith {__version__}")
        return 0
    command = args[0]
    if command in _SUBCOMMANDS:
        runner = _subcommand(command)
        return runner(args[1:])
    from pith.cli._agent_command import run as run_agent

    return run_agent(args)


def _subcommand(name: str) -> Callable[[list[str]], int]:
    if name == "tool":
        from pith.cli._tool_command import run as run_tool

        return run_tool
    if name == "sessions":
        from pith.cli._sessions_command import run as run_sessions

        return run_sessions
    if name == "export":
        from pith.cli._export_command import run as run_export

        return run_export
    if name == "trust":
        from pith.cli._trust_command import run as run_trust

        return run_trust
    if name == "permissions":
        from pith.cli._permissions_command import run as run_permissions

        return run_permissions
    if name == "mcp":
        from pith.cli._mcp_command import run as run_mcp

        return run_mcp
    if name == "auth":
        from pith.cli._auth_command import run as run_auth

        return run_auth
    if name == "batch":
        from pith.cli._batch_command import run as run_batch

        return run_batch
    if name == "guard":
        from pith.cli._guard_command import run as run_guard

        return run_guard
    from pith.cli._context_command import run as run_context

    return run_context


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
