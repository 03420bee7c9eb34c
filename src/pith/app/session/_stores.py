"""Choosing the session a run works in: new, continued, resumed, given, forked or in memory."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from pith.errors import InputError
from pith.session import (
    SessionInfo,
    SessionStore,
    default_session_dir,
    find_latest_session,
    format_time,
    list_sessions,
    resolve_session_arg,
    short_ids,
)

__all__ = ["SessionChoice", "format_session_list", "open_store", "session_dir_for"]

SESSION_DIR_ENV = "PITH_SESSION_DIR"


@dataclass
class SessionChoice:
    """What the command line asked for (one of them at most)."""

    continue_latest: bool = False
    resume: bool = False
    session: str | None = None
    fork: str | None = None
    no_session: bool = False
    session_dir: str | None = None
    session_id: str | None = None
    name: str | None = None


def session_dir_for(
    cwd: str, agent_dir: Path, explicit: str | None, configured: str | None = None
) -> Path:
    """`--session-dir`, then `$PITH_SESSION_DIR`, then the `sessionDir` setting, then
    `<agent dir>/sessions/--<cwd>--`."""
    for value in (explicit, os.environ.get(SESSION_DIR_ENV), configured):
        if value:
            return Path(value).expanduser().resolve()
    return default_session_dir(cwd, agent_dir)


def format_session_list(sessions: list[SessionInfo]) -> str:
    """One row per session; each id as much of it as tells it from the others listed, which
    `--session`, `--fork` and `pith export` take back."""
    ids = short_ids([info.id for info in sessions])
    width = max((len(shown) for shown in ids), default=0)
    lines = []
    for index, (info, shown) in enumerate(zip(sessions, ids, strict=True), start=1):
        title = info.name or info.first_message
        lines.append(
            f"{index:>3}. {format_time(info.modified)}  {info.entries:>5} entries  "
            f"{shown:<{width}}  {title[:70]}"
        )
    return "\n".join(lines)


def _pick(sessions: list[SessionInfo]) -> Path | None:
    print(format_session_list(sessions), file=sys.stderr)
    try:
        answer = input("Resume which session (number, Enter to cancel)? ").strip()
    except EOFError:
        return None
    if not answer:
        return None
    if not answer.isdigit() or not 1 <= int(answer) <= len(sessions):
        raise InputError(f"--resume: {answer!r} is not a number from the list")
    return sessions[int(answer) - 1].path


def open_store(
    choice: SessionChoice, cwd: str, agent_dir: Path, configured_dir: str | None = None
) -> SessionStore | None:
    """The session for this run; None when `--resume` was cancelled or only listed sessions.
    `configured_dir` is the `sessionDir` setting."""
    chosen = [
        flag
        for flag, on in (
            ("--continue", choice.continue_latest),
            ("--resume", choice.resume),
            ("--session", choice.session is not None),
            ("--fork", choice.fork is not None),
            ("--no-session", choice.no_session),
        )
        if on
    ]
    if len(chosen) > 1:
        raise InputError(f"{' and '.join(chosen)} cannot be combined; pick one")
    directory = session_dir_for(cwd, agent_dir, choice.session_dir, configured_dir)
    store = _open(choice, cwd, agent_dir, directory)
    if store is not None and choice.name:
        store.append_session_info(choice.name)
    return store


def _open(choice: SessionChoice, cwd: str, agent_dir: Path, directory: Path) -> SessionStore | None:
    if choice.no_session:
        return SessionStore.create(cwd, None, session_id=choice.session_id)
    if choice.fork is not None:
        source_path = resolve_session_arg(choice.fork, directory, agent_dir, option="--fork")
        with SessionStore.open(source_path, lock=False) as source:
            return source.fork(None, directory)
    if choice.session is not None:
        path = resolve_session_arg(choice.session, directory, agent_dir)
        if path.exists():
            return SessionStore.open(path, cwd=cwd)
        return SessionStore.create(cwd, None, session_id=choice.session_id, path=path)
    if choice.continue_latest:
        latest = find_latest_session(directory, cwd)
        if latest is not None:
            return SessionStore.open(latest)
    if choice.resume:
        sessions = list_sessions(directory)
        if not sessions:
            raise InputError(f"no sessions to resume in {directory}")
        if not (sys.stdin.isatty() and sys.stderr.isatty()):
            print(format_session_list(sessions))
            print(
                "\n(no terminal to choose in: run `pith --session ID -p ...` with one of these)",
                file=sys.stderr,
            )
            return None
        picked = _pick(sessions)
        return SessionStore.open(picked) if picked is not None else None
    return SessionStore.create(cwd, directory, session_id=choice.session_id)
