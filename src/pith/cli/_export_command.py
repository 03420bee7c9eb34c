"""`pith export [SESSION] [-o FILE]`: a session as one self-contained HTML page."""

from __future__ import annotations

import argparse
import os
import sys

from pith.errors import InputError

__all__ = ["run"]

_HINT = "give a session file (.jsonl) or an id from `pith sessions`"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pith export",
        description="Write a session as one HTML page that needs nothing else to open: the "
        "whole tree (every branch, the current leaf marked), tool calls with their outputs, "
        "summaries and labels, and a chart of the context size of every model request.",
    )
    parser.add_argument(
        "session",
        nargs="?",
        help="a session file or id (prefix); default: this directory's latest session",
    )
    parser.add_argument(
        "-o",
        "--output",
        help="the HTML file to write, or a folder (DIR/ is made when missing); "
        "default: ./pith-session-<id>.html",
    )
    parser.add_argument("--session-dir", help="where to look for session ids")
    return parser


def run(argv: list[str]) -> int:
    options = _parser().parse_args(argv)

    from pith.app.export import export_session_file
    from pith.app.session import session_dir_for
    from pith.cli._startup import configured_session_dir
    from pith.resources import agent_dir
    from pith.session import SessionFileError, find_latest_session, resolve_session_arg

    cwd = os.getcwd()
    home = agent_dir()
    configured = None if options.session_dir else configured_session_dir(cwd, home)
    directory = session_dir_for(cwd, home, options.session_dir, configured)
    if options.session is None:
        path = find_latest_session(directory, cwd)
        if path is None:
            raise InputError(f"export: no session in {directory} yet; {_HINT}")
    else:
        path = resolve_session_arg(options.session, directory, home, option="export")
    try:
        result = export_session_file(path, options.output, cwd=cwd)
    except SessionFileError as error:
        raise SessionFileError(f"{error}; {_HINT}") from None
    for warning in result.warnings:
        print(f"pith: warning: {warning}", file=sys.stderr)
    print(result.path)
    return 0
