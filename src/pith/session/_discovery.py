"""Finding sessions on disk: the per-directory folder, the latest one, a listing.

Layout (Pi's): `<agent dir>/sessions/--<cwd with / as ->--/<timestamp>_<id>.jsonl`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pith.errors import InputError
from pith.regular_file import read_regular_file
from pith.session._codec import json_lines

__all__ = [
    "SessionInfo",
    "default_session_dir",
    "find_latest_session",
    "list_sessions",
    "read_header",
    "resolve_session_arg",
]

_HEADER_SCAN_BYTES = 1 << 20


def default_session_dir(cwd: str, agent_dir: Path) -> Path:
    """`<agent dir>/sessions/--<cwd>--`: the leading `/` dropped, `/`, `\\` and `:` as `-`."""
    resolved = os.path.abspath(cwd)
    safe = "--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", resolved)) + "--"
    return agent_dir / "sessions" / safe


def read_header(path: Path) -> dict[str, object] | None:
    """The header object of a session file (first parsed line), or None if it is not one."""
    try:
        block = read_regular_file(path, _HEADER_SCAN_BYTES)
    except OSError:
        return None
    for value in json_lines(block):
        if (
            isinstance(value, dict)
            and value.get("type") == "session"
            and isinstance(value.get("id"), str)
        ):
            return value
        return None
    return None


def _same_dir(a: str, b: str) -> bool:
    return bool(a) and os.path.realpath(a) == os.path.realpath(b)


def find_latest_session(session_dir: Path, cwd: str | None = None) -> Path | None:
    """The most recently modified session in `session_dir` (for `cwd`, when given)."""
    try:
        files = [path for path in session_dir.iterdir() if path.suffix == ".jsonl"]
    except OSError:
        return None
    files.sort(key=lambda path: path.stat().st_mtime, reverse=True)
    for path in files:
        header = read_header(path)
        if header is None:
            continue
        header_cwd = header.get("cwd")
        if cwd is None or (isinstance(header_cwd, str) and _same_dir(header_cwd, cwd)):
            return path
    return None


@dataclass
class SessionInfo:
    path: Path
    id: str
    name: str | None
    created: str
    modified: float
    entries: int
    first_message: str


def _text_of(message: object) -> str:
    if not isinstance(message, dict):
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            str(block.get("text", ""))
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        )
    return ""


def _info(path: Path) -> SessionInfo | None:
    try:
        data = read_regular_file(path)
    except OSError:
        return None
    header: dict[str, object] | None = None
    entries = 0
    name: str | None = None
    first = ""
    for value in json_lines(data):
        if not isinstance(value, dict):
            continue
        if header is None:
            if value.get("type") != "session":
                return None
            header = value
            continue
        entries += 1
        if value.get("type") == "session_info":
            raw = value.get("name")
            name = raw.strip() or None if isinstance(raw, str) else None
        if not first and value.get("type") == "message":
            message = value.get("message")
            if isinstance(message, dict) and message.get("role") == "user":
                first = _text_of(message).strip()
    if header is None:
        return None
    created = header.get("timestamp")
    return SessionInfo(
        path=path,
        id=str(header.get("id")),
        name=name,
        created=created if isinstance(created, str) else "",
        modified=path.stat().st_mtime,
        entries=entries,
        first_message=" ".join(first.split())[:200] or "(no messages)",
    )


def list_sessions(session_dir: Path) -> list[SessionInfo]:
    """Every readable session in `session_dir`, most recently used first."""
    try:
        files = [path for path in session_dir.iterdir() if path.suffix == ".jsonl"]
    except OSError:
        return []
    infos = [info for path in files if (info := _info(path)) is not None]
    infos.sort(key=lambda info: info.modified, reverse=True)
    return infos


def resolve_session_arg(value: str, session_dir: Path, agent_dir: Path) -> Path:
    """`--session FILE|ID`: a path to a file, or an id (or id prefix) of a session on disk."""
    candidate = Path(value).expanduser()
    if candidate.suffix == ".jsonl" or os.sep in value or candidate.exists():
        return candidate.resolve()
    search = [session_dir, *sorted((agent_dir / "sessions").glob("*"))]
    matches: list[Path] = []
    for directory in search:
        if not directory.is_dir():
            continue
        for path in directory.glob("*.jsonl"):
            session_id = path.stem.split("_", 1)[-1]
            if session_id == value or session_id.startswith(value):
                matches.append(path)
    unique = sorted(set(matches))
    if len(unique) == 1:
        return unique[0]
    if not unique:
        raise InputError(f"--session {value}: no session file or id matches; see `pith sessions`")
    listed = ", ".join(path.name for path in unique[:5])
    raise InputError(f"--session {value}: several sessions match ({listed}); give more of the id")


def format_time(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M")
