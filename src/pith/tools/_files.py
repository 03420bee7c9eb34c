"""Checks shared by the file tools: clear errors for missing, unreadable and binary files."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from pith.agent import ToolError
from pith.tools._paths import expand_path
from pith.tools._truncate import format_size

__all__ = [
    "BINARY_SNIFF_BYTES",
    "binary_file_error",
    "describe_os_error",
    "looks_binary",
    "mutation_lock",
    "refuse_directory_path",
    "require_regular_file",
    "write_atomically",
]

BINARY_SNIFF_BYTES = 8192


def describe_os_error(error: OSError, path: str, action: str) -> str:
    """One line naming the file, what went wrong and, where useful, what to do."""
    code = error.errno
    if code == errno.ENOENT:
        return f"File not found: {path}"
    if code in (errno.EACCES, errno.EPERM):
        return f"Permission denied: cannot {action} {path}"
    if code == errno.EISDIR:
        return f"{path} is a directory, not a file. Use ls to list it."
    if code == errno.ENOTDIR:
        return f"A parent of {path} is not a directory"
    if code == errno.ENOSPC:
        return f"No space left on device while trying to {action} {path}"
    if code == errno.EROFS:
        return f"Read-only file system: cannot {action} {path}"
    reason = error.strerror or str(error)
    return f"Cannot {action} {path}: {reason}"


def refuse_directory_path(path: str, absolute: str, action: str) -> None:
    """Fail unless `path` may name a file: one ending in `/` names a directory, as in bash.

    `absolute` is its resolved form, which has lost the slash (so without this check,
    `notes/` would write over the file `notes`). An existing directory is left to the caller,
    which says so in its own words.
    """
    if not expand_path(path).endswith("/") or os.path.isdir(absolute):
        return
    if os.path.lexists(absolute):
        shown = path.rstrip("/")
        raise ToolError(f"{path}: Not a directory ({shown} is a file); nothing was written.")
    raise ToolError(
        f"{path}: Is a directory (a path ending in / names a directory); give the path of a "
        f"file to {action}."
    )


def require_regular_file(path: str, shown: str, action: str) -> os.stat_result:
    """Stat `path` (following links) and fail clearly unless it is a readable regular file."""
    try:
        info = os.stat(path)
    except OSError as error:
        raise ToolError(describe_os_error(error, shown, action)) from None
    if stat.S_ISDIR(info.st_mode):
        raise ToolError(f"{shown} is a directory, not a file. Use ls to list it.")
    return info


def looks_binary(head: bytes) -> bool:
    """True when the first bytes of a file hold a NUL: text files never do."""
    return b"\x00" in head


def binary_file_error(shown: str, size: int) -> str:
    return (
        f"{shown} is a binary file ({format_size(size)}); its bytes cannot be shown as text. "
        f"Inspect it with bash instead, e.g. `file {shown}` or `xxd {shown} | head`."
    )


_locks: dict[str, asyncio.Lock] = {}


@asynccontextmanager
async def mutation_lock(path: str) -> AsyncIterator[None]:
    """Serialize writes and edits to one file (by real path); other files run in parallel."""
    key = os.path.realpath(path)
    lock = _locks.setdefault(key, asyncio.Lock())
    try:
        async with lock:
            yield
    finally:
        if not lock.locked() and _locks.get(key) is lock:
            del _locks[key]


def write_atomically(path: str, data: bytes) -> None:
    """Replace the file at `path` (through symlinks) so a crash never leaves it half written.

    The new content goes to a temporary file beside the target and is renamed over it, keeping
    the target's permission bits. Where the directory cannot take a new file, the target is
    written in place instead.
    """
    target = os.path.realpath(path)
    directory = os.path.dirname(target)
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=".pith-", suffix=".tmp", dir=directory)
    except PermissionError:
        with open(target, "wb") as handle:
            handle.write(data)
        return
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
