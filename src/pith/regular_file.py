"""Reading a file pith needs (settings, trust decisions, a session) without hanging on a FIFO.

Opening a FIFO for reading waits for a writer, and a device such as `/dev/zero` never ends, so a
file that is not a regular one is refused with an `OSError` whose `strerror` says what it is —
the same message every caller's "cannot read FILE (...)" line then shows.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

__all__ = [
    "NotARegularFileError",
    "open_regular_file",
    "read_regular_file",
    "require_regular_file",
]


class NotARegularFileError(OSError):
    """The path names a FIFO, a device, a socket or a folder rather than a file."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file"


def _refuse(path: str | os.PathLike[str], mode: int) -> NotARegularFileError:
    reason = f"not a regular file ({_kind(mode)}); replace it with a file or remove it"
    return NotARegularFileError(errno.EINVAL, reason, os.fspath(path))


def require_regular_file(path: str | os.PathLike[str]) -> None:
    """Nothing when `path` (links followed) is a regular file; `NotARegularFileError` when it
    is something else; the `OSError` of `os.stat` (e.g. `FileNotFoundError`) when it cannot be
    looked at."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise _refuse(path, mode)


def read_regular_file(path: str | os.PathLike[str], limit: int = -1) -> bytes:
    """The bytes of the regular file at `path` (links followed); at most `limit` of them when
    it is not negative.

    Raises `NotARegularFileError` for anything else — checked on the open file, so a FIFO is
    never waited on — and the usual `OSError`s (`FileNotFoundError`, ...) otherwise."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise _refuse(path, mode)
        os.set_blocking(descriptor, True)
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            return handle.read(limit)
    finally:
        os.close(descriptor)


def open_regular_file(path: str | os.PathLike[str]) -> BinaryIO:
    """The regular file at `path` (links followed), open for reading in binary; the caller
    closes it. Raises `NotARegularFileError` for anything else — checked on the open file, so
    a FIFO is never waited on — and the usual `OSError`s otherwise."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise _refuse(path, mode)
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise
