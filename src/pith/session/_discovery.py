"""Finding sessions on disk: the per-directory folder, the latest one, a listing.

Layout (Pi's): `<agent dir>/sessions/--<cwd with / as ->--/<timestamp>_<id>.jsonl`.

A listing reads each file a block at a time: however large a session grows, memory holds a
block and the few lines it decodes (the header, the first request, names, the last message).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

import msgspec

from pith.errors import InputError
from pith.json_input import JsonInputError, check_json_limits
from pith.regular_file import open_regular_file, read_regular_file
from pith.session._codec import json_lines
from pith.session._entries import timestamp_millis
from pith.session._lines import line_blocks, reverse_lines
from pith.session._short_ids import short_ids

__all__ = [
    "SessionInfo",
    "default_session_dir",
    "find_latest_session",
    "list_sessions",
    "read_header",
    "resolve_session_arg",
]

_HEADER_SCAN_BYTES = 1 << 20
_ACTIVITY_SCAN_BYTES = 16 << 20
_MESSAGE_MARK = b'"message"'
_NAME_MARK = b'"session_info"'


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
    """When the session was last used (epoch seconds): see `last_used`."""
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


def _object(line: bytes) -> dict[str, object] | None:
    try:
        check_json_limits(line, "session line", fix="")
        value = msgspec.json.decode(line)
    except (msgspec.DecodeError, JsonInputError):
        return None
    return value if isinstance(value, dict) else None


@dataclass
class _Scan:
    header: dict[str, object]
    entries: int = 0
    name: str | None = None
    first_message: str = ""


def _scan(handle: BinaryIO, size: int) -> _Scan | None:
    """The header, entry count, latest name and first user message, read a block at a time.

    Only the header, the lines up to the first user message and `session_info` lines are
    decoded; the other lines are only counted.
    """
    scan: _Scan | None = None
    for block in line_blocks(handle, 0, size):
        for line in block.split(b"\n"):
            if scan is None:
                if not line.strip():
                    continue
                value = _object(line)
                if value is None:
                    continue  # a malformed line before the header is skipped, as on load
                if value.get("type") != "session":
                    return None
                scan = _Scan(value)
                continue
            if not (line.startswith(b"{") or line.strip().startswith(b"{")):
                continue
            scan.entries += 1
            if _NAME_MARK in line:
                value = _object(line)
                if value is not None and value.get("type") == "session_info":
                    raw = value.get("name")
                    scan.name = raw.strip() or None if isinstance(raw, str) else None
            if not scan.first_message and _MESSAGE_MARK in line:
                value = _object(line)
                message = value.get("message") if value is not None else None
                if isinstance(message, dict) and message.get("role") == "user":
                    scan.first_message = _text_of(message).strip()
    return scan


def _last_message_time(handle: BinaryIO, size: int) -> float | None:
    """The time (epoch ms) of the last user or assistant message, found by reading the file
    backwards from its end (at most `_ACTIVITY_SCAN_BYTES`): the message's own timestamp, else
    its entry's."""
    for line in reverse_lines(handle, size, _ACTIVITY_SCAN_BYTES):
        if _MESSAGE_MARK not in line:
            continue
        value = _object(line)
        if value is None or value.get("type") != "message":
            continue
        message = value.get("message")
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            continue
        if "content" not in message:
            continue
        stamp = message.get("timestamp")
        if isinstance(stamp, int | float) and not isinstance(stamp, bool) and stamp > 0:
            return float(stamp)
        entry_time = value.get("timestamp")
        millis = timestamp_millis(entry_time) if isinstance(entry_time, str) else 0.0
        if millis > 0:
            return millis
    return None


def last_used(message_millis: float | None, header: dict[str, object], mtime: float) -> float:
    """When a session was last used, in epoch seconds, as Pi dates sessions: its newest user
    or assistant message, else its header's time, else the file's mtime (which copying or
    touching the file changes, so it comes last)."""
    if message_millis:
        return message_millis / 1000
    created = header.get("timestamp")
    millis = timestamp_millis(created) if isinstance(created, str) else 0.0
    return millis / 1000 if millis > 0 else mtime


def _info(path: Path) -> SessionInfo | None:
    try:
        if not path.is_file():
            return None
        with open_regular_file(path) as handle:
            status = os.fstat(handle.fileno())
            scan = _scan(handle, status.st_size)
            if scan is None:
                return None
            message_millis = _last_message_time(handle, status.st_size)
    except OSError:
        return None
    created = scan.header.get("timestamp")
    return SessionInfo(
        path=path,
        id=str(scan.header.get("id")),
        name=scan.name,
        created=created if isinstance(created, str) else "",
        modified=last_used(message_millis, scan.header, status.st_mtime),
        entries=scan.entries,
        first_message=" ".join(scan.first_message.split())[:200] or "(no messages)",
    )


def list_sessions(session_dir: Path) -> list[SessionInfo]:
    """Every readable session in `session_dir`, most recently used first (`last_used`)."""
    try:
        files = [path for path in session_dir.iterdir() if path.suffix == ".jsonl"]
    except OSError:
        return []
    infos = [info for path in files if (info := _info(path)) is not None]
    infos.sort(key=lambda info: info.modified, reverse=True)
    return infos


_PI_FILE_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}T[\d-]+Z_(.+)$")
"""`<timestamp>_<id>`: how pith and Pi name session files."""
_MAX_CANDIDATES = 10


def _stored_ids(directory: Path) -> list[tuple[str, Path]]:
    """The id of every session file in `directory`: from its name when pith or Pi named it,
    else from its header."""
    try:
        files = sorted(path for path in directory.iterdir() if path.suffix == ".jsonl")
    except OSError:
        return []
    found = []
    for path in files:
        named = _PI_FILE_NAME.match(path.stem)
        if named is not None:
            found.append((named.group(1), path))
            continue
        header = read_header(path)
        if header is not None:
            found.append((str(header["id"]), path))
    return found


def resolve_session_arg(
    value: str, session_dir: Path, agent_dir: Path, option: str = "--session"
) -> Path:
    """A session as a user names one (`--session`, `--fork`, `pith export` ...): a path to a
    file, or an id or id prefix as `pith sessions` prints it.

    Ids are looked up in the listed folder (`session_dir`) first, then in every other folder of
    `<agent dir>/sessions`, so the prefix the listing printed picks its session even when a
    session of another folder starts the same way. A whole id wins over longer ones it starts.
    Errors begin with `option` and the value, as the user typed them."""
    candidate = Path(value).expanduser()
    if candidate.suffix == ".jsonl" or os.sep in value or candidate.exists():
        return candidate.resolve()
    listed = session_dir.resolve()
    others = [
        pair
        for directory in sorted((agent_dir / "sessions").glob("*"))
        if directory.is_dir() and directory.resolve() != listed
        for pair in _stored_ids(directory)
    ]
    groups = (_stored_ids(session_dir), others)
    for whole in (True, False):
        for group in groups:
            matches = sorted(
                {
                    (session_id, path)
                    for session_id, path in group
                    if session_id == value or (not whole and session_id.startswith(value))
                },
                key=lambda pair: pair[1],
            )
            if len(matches) == 1:
                return matches[0][1]
            if matches:
                raise InputError(_ambiguous(option, value, matches))
    raise InputError(f"{option} {value}: no session file or id matches; see `pith sessions`")


def _ambiguous(option: str, value: str, matches: list[tuple[str, Path]]) -> str:
    """The error for a prefix several sessions start with: one line per candidate, with the
    shortest id that picks it and its name or first request."""
    shown = short_ids([session_id for session_id, _ in matches])
    repeated = {text for text in shown if shown.count(text) > 1}
    names = [
        str(path) if text in repeated else text
        for text, (_, path) in zip(shown, matches, strict=True)
    ][:_MAX_CANDIDATES]
    width = max(len(name) for name in names)
    lines = [f"{option} {value}: {len(matches)} sessions match; give more of the id:"]
    for name, (_, path) in zip(names, matches[: len(names)], strict=True):
        info = _info(path)
        title = (info.name or info.first_message) if info is not None else "(not readable)"
        lines.append(f"  {name:<{width}}  {title[:70]}")
    if len(matches) > _MAX_CANDIDATES:
        lines.append(f"  ... and {len(matches) - _MAX_CANDIDATES} more")
    return "\n".join(lines)


def format_time(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M")
