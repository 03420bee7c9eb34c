"""The session file on disk: load (with repair and migration), lock, append (docs/sessions.md).

Loading never loses data: a line cut off by a crash is moved to `<file>.corrupt` (and the file
cut back to its last complete line), and nothing else; malformed lines are reported by number
and skipped;
entries of unknown types are kept verbatim. Appending is one `O_APPEND` write per entry; when a
write fails, the file is cut back to its previous length and the caller gets a clear error.
While a session is open, an exclusive `flock` on the file (with `<file>.lock` naming the owner's
pid) keeps a second pith from writing to it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import gc
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import msgspec

from pith.errors import PithError
from pith.json_input import JsonInputError
from pith.regular_file import open_regular_file
from pith.session._codec import (
    decode_line,
    decode_lines,
    encode_entry,
    json_lines,
    salvage_problem,
)
from pith.session._entries import (
    CURRENT_VERSION,
    RawEntry,
    SessionEntry,
    SessionHeader,
    new_entry_id,
)
from pith.session._lines import (
    copy_range,
    count_newlines,
    end_of_last_line,
    last_non_blank_byte,
    line_blocks,
)

__all__ = [
    "LoadedSession",
    "SessionFileError",
    "SessionLock",
    "SessionLockedError",
    "SessionWriteError",
    "load_session",
    "migrate_entries",
]


class SessionFileError(PithError):
    """The file is not a session pith can open."""

    exit_code = 2


class SessionLockedError(PithError):
    """Another process has the session open."""

    exit_code = 2


class SessionWriteError(PithError):
    """An entry could not be written; nothing was recorded."""


@dataclass
class LoadedSession:
    header: SessionHeader
    entries: list[SessionEntry]
    warnings: list[str] = field(default_factory=list)
    rewritten: bool = False
    """True when the file was migrated (a `.bak` copy of the original was kept)."""


def load_session(path: Path, *, lock: SessionLock | None = None) -> LoadedSession:
    """Read a session file, repairing a torn last line and migrating old versions.

    The file is read a block of lines at a time, so memory holds the entries, not the file.
    Only with the session's `lock` held is the file changed; without it (a read-only look) a
    torn tail is skipped and old versions are migrated in memory only.
    """
    repair = lock is not None and lock.held
    try:
        handle = open_regular_file(path)
    except OSError as error:
        raise SessionFileError(f"cannot read session {path}: {error.strerror or error}") from None
    warnings: list[str] = []
    with handle:
        size = os.fstat(handle.fileno()).st_size
        cut = end_of_last_line(handle, size)
        with _no_gc():
            header, entries = _read_lines(path, handle, cut, warnings)
        tail_end = last_non_blank_byte(handle, cut, size)
        if tail_end is not None:
            last = _decode_tail(handle, cut, size, tail_end)
            is_session = isinstance(header, SessionHeader) or (
                header is None and isinstance(last, SessionHeader)
            )
            if last is not None and is_session:
                if header is None:
                    header = last
                elif not isinstance(last, SessionHeader):
                    entries.append(last)
                if repair:
                    _append_bytes(path, b"\n")  # complete line, missing only its newline
            elif isinstance(header, SessionHeader):
                if repair:
                    _quarantine_tail(path, handle, cut, size)
                    warnings.append(
                        f"{path}: the last line was cut off ({size - cut} bytes, probably a "
                        f"crash while writing); moved to {path.name}.corrupt"
                    )
                else:
                    warnings.append(f"{path}: the last line is incomplete and was skipped")
    if not isinstance(header, SessionHeader):
        if size == 0:
            raise SessionFileError(f"{path} is empty; it holds no session")
        if header is None and tail_end is None and not warnings:
            raise SessionFileError(f"{path} holds only blank lines, no session header")
        raise SessionFileError(
            f"{path} is not a pith/Pi session (its first line is not a session header)"
        )
    loaded = LoadedSession(header, entries, warnings)
    version = header.version if isinstance(header.version, int) else 1
    if version < CURRENT_VERSION:
        _migrate(path, loaded, lock=lock if repair else None)
    return loaded


def _read_lines(
    path: Path, handle: BinaryIO, end: int, warnings: list[str]
) -> tuple[SessionHeader | SessionEntry | None, list[SessionEntry]]:
    """The first line that parses (the header, in a session) and the entries after it, read
    from the complete lines before `end`; stops at once when the first is not a header."""
    first: SessionHeader | SessionEntry | None = None
    entries: list[SessionEntry] = []
    offset = 0
    counted, number = 0, 1  # line `number` starts at byte `counted`: counted only when needed
    for block in line_blocks(handle, 0, end):
        decoded = decode_lines(block)
        if decoded is None:
            number += count_newlines(handle, counted, offset)
            lines = block.split(b"\n")[:-1]
            decoded = _parse_lines(path, lines, warnings, number)
            number += len(lines)
            counted = offset + len(block)
        offset += len(block)
        for item in decoded:
            if first is None:
                first = item
                if not isinstance(item, SessionHeader):
                    return first, entries
            elif not isinstance(item, SessionHeader):
                entries.append(item)
    return first, entries


def _decode_tail(
    handle: BinaryIO, start: int, end: int, last_byte: int
) -> SessionHeader | SessionEntry | None:
    """The bytes after the last newline as an entry, if they are one missing only its newline.

    A JSON object ends in `}`: when the bytes do not, the line was cut off, and they are not
    read into memory at all (a crash can leave a cut-off line of any size).
    """
    if last_byte != ord("}"):
        return None
    handle.seek(start)
    try:
        return decode_line(handle.read(end - start))
    except JsonInputError:
        return None


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    """Pause the cycle collector: decoding allocates many objects and no cycles.

    Afterwards the objects go straight to the oldest generation (`freeze` then `unfreeze`
    moves them there without looking at them): left young, the collections that follow
    would walk every one of them, again and again as they age, only to find them alive. A
    garbage cycle made just before waits for the next full collection instead.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if not gc.get_freeze_count():  # someone's own frozen objects stay frozen
            gc.freeze()
            gc.unfreeze()
        if enabled:
            gc.enable()


def _parse_lines(
    path: Path, lines: list[bytes], warnings: list[str], first_number: int
) -> list[SessionHeader | SessionEntry]:
    parsed: list[SessionHeader | SessionEntry] = []
    for number, line in enumerate(lines, start=first_number):
        if not line.strip():
            continue
        try:
            entry = decode_line(line)
        except JsonInputError as error:
            warnings.append(f"{path}:{number}: {error.reason}; line skipped")
            continue
        if entry is None:
            warnings.append(f"{path}:{number}: not a JSON object; line skipped")
            continue
        if isinstance(entry, RawEntry):
            problem = salvage_problem(entry)
            if problem is not None:
                warnings.append(f"{path}:{number}: {problem} (the line is kept as it is)")
        parsed.append(entry)
    return parsed


def _append_bytes(path: Path, data: bytes) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(descriptor, data)
    finally:
        os.close(descriptor)


def _quarantine_tail(path: Path, handle: BinaryIO, keep: int, size: int) -> None:
    """Move the bytes from `keep` on to `<file>.corrupt` (a block at a time), then cut the
    file back to `keep`; the copy is on disk before anything is cut."""
    corrupt = path.with_name(path.name + ".corrupt")
    with open(corrupt, "ab") as target:
        copy_range(handle, keep, size, target)
        target.write(b"\n")
        target.flush()
        os.fsync(target.fileno())
    os.truncate(path, keep)


def migrate_entries(objects: list[dict[str, object]]) -> None:
    """Bring raw v1/v2 entries to v3 in place (v1: ids and parents; v2: `hookMessage` role)."""
    header = objects[0]
    version = header.get("version")
    version = version if isinstance(version, int) else 1
    if version < 2:
        taken: set[str] = set()
        previous: str | None = None
        for obj in objects[1:]:
            obj["id"] = new_entry_id(taken)
            taken.add(str(obj["id"]))
            obj["parentId"] = previous
            previous = str(obj["id"])
        for obj in objects[1:]:
            index = (
                obj.pop("firstKeptEntryIndex", None) if obj.get("type") == "compaction" else None
            )
            if isinstance(index, int) and 0 < index < len(objects):
                obj["firstKeptEntryId"] = objects[index].get("id")
    for obj in objects[1:]:
        message = obj.get("message") if obj.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") == "hookMessage":
            message["role"] = "custom"
    header["version"] = CURRENT_VERSION


def _migrate(path: Path, loaded: LoadedSession, *, lock: SessionLock | None) -> None:
    """Bring an old-format file to v3: in memory, and (with the lock) on disk, keeping the
    original as `<file>.bak`. Old files predate long sessions; this one reads them whole."""
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        objects = [
            value
            for block in line_blocks(handle, 0, size)
            for value in json_lines(block)
            if isinstance(value, dict)
        ]
    migrate_entries(objects)
    lines = [msgspec.json.encode(obj) for obj in objects]
    backup = path.with_name(path.name + ".bak")
    if lock is not None:
        shutil.copyfile(path, backup)
        temporary = path.with_name(path.name + ".migrating")
        with open(temporary, "wb") as target:
            for line in lines:
                target.write(line + b"\n")
        lock.replace_file(temporary)
    reparsed = [decode_line(line) for line in lines]
    header = reparsed[0]
    assert isinstance(header, SessionHeader)
    loaded.header = header
    loaded.entries = [e for e in reparsed[1:] if e is not None and not isinstance(e, SessionHeader)]
    loaded.rewritten = lock is not None
    if lock is not None:
        loaded.warnings.append(
            f"{path}: migrated to session format v3 (original kept in {backup.name})"
        )
    else:
        loaded.warnings.append(
            f"{path}: read as session format v3; the file is migrated when it is next opened "
            "for writing"
        )


class SessionLock:
    """An exclusive `flock` on the session file itself; `<file>.lock` records the holder's pid.

    The lock lives on the session file's inode, which is never unlinked, so two processes can
    never both hold it; the pid file is only there to name the holder in the error.
    """

    def __init__(self, path: Path) -> None:
        self.session_path = path
        self.path = path.with_name(path.name + ".lock")
        self._descriptor: int | None = None

    @property
    def held(self) -> bool:
        return self._descriptor is not None

    def acquire(self) -> None:
        if self._descriptor is not None:
            return
        for _ in range(3):
            descriptor = os.open(self.session_path, os.O_RDONLY)
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as error:
                os.close(descriptor)
                if error.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise SessionLockedError(
                        f"session {self.session_path.name} is open in another pith process "
                        f"(pid {self._holder()}); close it there first, or continue in a copy "
                        "with --fork"
                    ) from None
                raise
            if self._is_current(descriptor):
                break
            os.close(descriptor)  # a migration replaced the file meanwhile: lock the new one
        else:
            raise SessionLockedError(
                f"session {self.session_path.name} keeps being replaced by another process; "
                "try again"
            )
        self._descriptor = descriptor
        with contextlib.suppress(OSError):
            self.path.write_text(f"{os.getpid()}\n", encoding="ascii")

    def _is_current(self, descriptor: int) -> bool:
        """True while `descriptor` is still the file at the session path (not replaced)."""
        held = os.fstat(descriptor)
        try:
            current = os.stat(self.session_path)
        except FileNotFoundError:
            return False
        return (held.st_dev, held.st_ino) == (current.st_dev, current.st_ino)

    def replace_file(self, replacement: Path) -> None:
        """Move `replacement` over the session file without ever letting the lock go.

        The new file is locked before it takes the session's name, so no other process can
        lock it first; one that locked the old file after this releases it sees it replaced.
        """
        assert self._descriptor is not None, "replace_file needs the lock"
        descriptor = os.open(replacement, os.O_RDONLY)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.replace(replacement, self.session_path)
        except BaseException:
            os.close(descriptor)
            raise
        os.close(self._descriptor)
        self._descriptor = descriptor

    def _holder(self) -> str:
        try:
            return self.path.read_text(encoding="ascii").strip() or "unknown"
        except OSError:
            return "unknown"

    def release(self) -> None:
        if self._descriptor is None:
            return
        with contextlib.suppress(OSError):
            if self._holder() == str(os.getpid()):
                os.unlink(self.path)
        os.close(self._descriptor)
        self._descriptor = None


class AppendOnlyFile:
    """Appends whole lines to a session file; a failed write leaves the file as it was."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._descriptor: int | None = None

    def create(self, lines: list[bytes]) -> None:
        """Create the file (it must not exist) with `lines`."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        try:
            _write_all(descriptor, b"".join(line + b"\n" for line in lines))
        except OSError:
            os.close(descriptor)
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            raise
        self._descriptor = descriptor

    def open(self) -> None:
        if self._descriptor is None:
            self._descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND)

    def append(self, line: bytes) -> None:
        self.open()
        assert self._descriptor is not None
        size = os.fstat(self._descriptor).st_size
        try:
            _write_all(self._descriptor, line + b"\n")
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(self._descriptor, size)
            raise

    def close(self) -> None:
        if self._descriptor is not None:
            os.close(self._descriptor)
            self._descriptor = None


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(descriptor, view)
        view = view[written:]


def encode_lines(header: SessionHeader, entries: list[SessionEntry]) -> list[bytes]:
    return [encode_entry(header), *(encode_entry(entry) for entry in entries)]
