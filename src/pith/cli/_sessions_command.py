"""`pith sessions [--session-dir DIR] [--json]`: this directory's sessions, newest first."""

from __future__ import annotations

import argparse
import json
import os

__all__ = ["run"]


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="pith sessions",
        description="List the sessions of the current directory: name or first request, "
        "last use, number of entries, id. Continue one with `pith --session ID`.",
    )
    parser.add_argument("--session-dir", help="list this folder instead")
    parser.add_argument("--json", action="store_true", help="one JSON object per session")
    options = parser.parse_args(argv)

    from pith.app.session import format_session_list, session_dir_for
    from pith.cli._startup import configured_session_dir
    from pith.resources import agent_dir
    from pith.session import list_sessions

    cwd, home = os.getcwd(), agent_dir()
    configured = None if options.session_dir else configured_session_dir(cwd, home)
    directory = session_dir_for(cwd, home, options.session_dir, configured)
    sessions = list_sessions(directory)
    if options.json:
        for info in sessions:
            print(
                json.dumps(
                    {
                        "path": str(info.path),
                        "id": info.id,
                        "name": info.name,
                        "created": info.created,
                        "modified": info.modified,
                        "entries": info.entries,
                        "firstMessage": info.first_message,
                    },
                    ensure_ascii=False,
                )
            )
        return 0
    if not sessions:
        print(f"no sessions yet in {directory}")
        return 0
    print(format_session_list(sessions))
    return 0
