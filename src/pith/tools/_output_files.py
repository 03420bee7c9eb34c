"""Full-output files: where a command's whole output goes once it passes the tools' caps.

Each file is private (`<tmp>/<prefix>-<16 hex>.log`, mode 0600, created with O_EXCL so it never
follows a planted link), cut at a size limit (`bashFullOutputMaxBytes`, 64 MiB by default) so a
runaway command cannot fill the disk, and swept: creating one removes files of the same prefix
older than a day. The bash tool (`pith-bash-…`) and the tool guard (`pith-guard-…`) share this.
"""

from __future__ import annotations

import os
import secrets
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

__all__ = [
    "DEFAULT_FULL_OUTPUT_MAX_BYTES",
    "FULL_OUTPUT_TTL_SECONDS",
    "create_output_file",
    "sweep_output_files",
    "write_output_file",
]

DEFAULT_FULL_OUTPUT_MAX_BYTES = 64 * 1024 * 1024
"""Room for any log a model reads back with offset/limit (a million lines and more); a command
that prints without end (`yes`) fills at most this much per call."""
FULL_OUTPUT_TTL_SECONDS = 24 * 3600
"""A file is kept for a day: long enough to read it back in the session that made it."""
_COPY_SIZE = 1 << 20


def create_output_file(prefix: str, extension: str = ".log") -> tuple[str, BinaryIO]:
    """A new private file `<tmp>/<prefix>-<16 hex><extension>`, opened for writing; files of
    the same prefix older than a day are swept first."""
    sweep_output_files(prefix, extension)
    directory = tempfile.gettempdir()
    while True:
        path = os.path.join(directory, f"{prefix}-{secrets.token_hex(8)}{extension}")
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        return path, os.fdopen(descriptor, "wb", buffering=0)


def sweep_output_files(prefix: str, extension: str = ".log", now: float | None = None) -> int:
    """Remove `<tmp>/<prefix>-*<extension>` files older than a day (best effort: another
    user's file, or one gone meanwhile, is left alone). Returns how many were removed."""
    folder = Path(tempfile.gettempdir())
    limit = (now if now is not None else time.time()) - FULL_OUTPUT_TTL_SECONDS
    try:
        candidates = list(folder.glob(f"{prefix}-*{extension}"))
    except OSError:
        return 0
    removed = 0
    for path in candidates:
        try:
            if path.lstat().st_mtime < limit:
                path.unlink()
                removed += 1
        except OSError:
            continue
    return removed


def write_output_file(
    prefix: str, parts: Iterable[bytes | tuple[str, int, int]], max_bytes: int
) -> tuple[str, bool] | None:
    """A new full-output file holding `parts` in order — bytes, or `(path, start, end)` ranges
    of other files, copied in blocks — cut at `max_bytes`. Returns its path and whether it was
    cut; None when it cannot be written."""
    try:
        path, handle = create_output_file(prefix)
    except OSError:
        return None
    room = max_bytes
    cut = False
    try:
        with handle:
            for part in parts:
                for block in _blocks(part):
                    if len(block) > room:
                        cut = True
                        block = block[:room]
                    handle.write(block)
                    room -= len(block)
                    if cut:
                        return path, True
    except OSError:
        return None
    return path, cut


def _blocks(part: bytes | tuple[str, int, int]) -> Iterable[bytes]:
    if isinstance(part, bytes):
        yield part
        return
    source, start, end = part
    with open(source, "rb") as handle:
        handle.seek(start)
        position = start
        while position < end:
            block = handle.read(min(_COPY_SIZE, end - position))
            if not block:
                return
            position += len(block)
            yield block
