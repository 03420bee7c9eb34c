"""Shell scripts a command runs from a file (`bash FILE`, `source FILE`, `./FILE`): their text,
so the commands in them are judged like the command line itself.

A script is read when it is a regular file of at most `MAX_SCRIPT_BYTES` in UTF-8; anything
else (missing, a folder, a FIFO, too large, binary, not UTF-8) cannot be judged, and the
caller asks. A file run as a command (`./build.sh`) is a shell script when its first line is
a `#!` naming a shell, or when it has no `#!` line at all (bash then runs it itself); a
program for another interpreter (`#!/usr/bin/env python3`) or a binary is a command like any
other. This is the I/O edge of the bash analysis: it reads files and nothing else.
"""

from __future__ import annotations

import os
import posixpath
import stat
from dataclasses import dataclass
from typing import Literal

__all__ = ["MAX_SCRIPT_BYTES", "ScriptText", "read_script", "shell_script_kind"]

MAX_SCRIPT_BYTES = 1 << 20

_SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"})


@dataclass(frozen=True)
class ScriptText:
    """A script's text, or why it cannot be read (`text` None)."""

    path: str
    text: str | None
    problem: str | None = None


def _open_regular(path: str) -> tuple[bytes | None, str | None]:
    try:
        info = os.stat(path)
    except OSError as error:
        return None, error.strerror or "cannot be read"
    if not stat.S_ISREG(info.st_mode):
        return None, "not a regular file"
    if info.st_size > MAX_SCRIPT_BYTES:
        return None, f"larger than {MAX_SCRIPT_BYTES // 1024} KiB"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        return None, error.strerror or "cannot be read"
    try:
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(MAX_SCRIPT_BYTES + 1)
    except OSError as error:
        return None, error.strerror or "cannot be read"
    if len(data) > MAX_SCRIPT_BYTES:
        return None, f"larger than {MAX_SCRIPT_BYTES // 1024} KiB"
    return data, None


def read_script(path: str, directory: str) -> ScriptText:
    """The text of the script `path` (relative to `directory`)."""
    absolute = posixpath.normpath(posixpath.join(directory, path))
    data, problem = _open_regular(absolute)
    if data is None:
        return ScriptText(absolute, None, problem)
    if b"\0" in data:
        return ScriptText(absolute, None, "a binary file")
    try:
        return ScriptText(absolute, data.decode("utf-8"))
    except UnicodeDecodeError:
        return ScriptText(absolute, None, "not UTF-8 text")


def shell_script_kind(path: str, directory: str) -> Literal["shell", "other", "missing"]:
    """Whether the file `path` names, run as a command, is a shell script (`shell`), another
    program (`other`), or no regular file at all (`missing`)."""
    absolute = posixpath.normpath(posixpath.join(directory, path))
    try:
        info = os.stat(absolute)
    except OSError:
        return "missing"
    if not stat.S_ISREG(info.st_mode):
        return "missing"
    try:
        with open(absolute, "rb") as handle:
            head = handle.read(256)
    except OSError:
        return "shell"  # exists but cannot be read: the caller cannot judge it
    if head.startswith(b"\x7fELF") or b"\0" in head:
        return "other"
    if not head.startswith(b"#!"):
        return "shell"
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return "shell"
    interpreter = posixpath.basename(words[0])
    if interpreter == "env":
        rest = [word for word in words[1:] if not word.startswith("-")]
        interpreter = posixpath.basename(rest[0]) if rest else ""
    return "shell" if interpreter in _SHELLS else "other"
