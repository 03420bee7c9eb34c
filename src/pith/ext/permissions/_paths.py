"""The forms of one path that permission rules are matched against, and whether it is outside
the working directory.

A path is judged in two *lineages*: as written (normalized: `..` and `.` collapsed, made
absolute against the directory it is relative to) and as the file system resolves it (symlinks
followed). Each lineage has a relative form (relative to the working directory; `../…` when
outside) for relative patterns and an absolute form for absolute patterns. The caller takes
the most restrictive answer of the lineages, so a link never hides what it points to
(`notes.txt -> .env` is denied by `*.env`) — except that rules on leaving the working directory
judge only the lineages that do leave it (`outside_lineages`): a link inside the project
pointing out is judged on where it points, not on its inside name.

A file tool's `path` argument is turned into a path by the tools' own `resolve_tool_path`
(`tool_path_forms`), so every spelling a tool accepts (`file://` URLs, a leading `@`, `~`,
look-alike spaces, the read tool's screenshot-name variants) is judged as the file it opens.
A path from a bash command (`path_forms`) is already expanded as bash expands it; `~` is
still taken as the home directory and a leading `@` dropped, the stricter reading.

"Outside the working directory" is decided on the resolved path: a dangling link is judged by
where its target would be, a link loop (unresolvable) counts as outside, and the null and
terminal devices are never outside (`2>/dev/null` must not ask). Reading the zero and random devices
touches nothing outside either (`harmless_read`); writing them does.
"""

from __future__ import annotations

import errno
import os
import posixpath
from dataclasses import dataclass

from pith.glob import expand_home
from pith.tools import resolve_tool_path

__all__ = ["PathForms", "is_device", "path_forms", "tool_path_forms"]

_DEVICES = frozenset({"/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_READ_DEVICES = frozenset({"/dev/zero", "/dev/random", "/dev/urandom"})
"""Devices whose content is generated: reading them reveals nothing of the machine."""


def is_device(absolute: str) -> bool:
    """The null and terminal devices: writing to them touches nothing."""
    return absolute in _DEVICES or absolute.startswith("/dev/fd/")


@dataclass(frozen=True)
class PathForms:
    typed: str
    """The path as the tool call or command gave it."""
    absolute: str
    """Normalized and absolute, symlinks not followed."""
    relative: str
    """`absolute` relative to the working directory (`.` for the directory itself)."""
    resolved: str | None
    """Symlinks followed; None when the path cannot be resolved (a link loop)."""
    resolved_relative: str | None
    """`resolved` relative to the working directory's own resolved path."""
    outside: bool
    """Outside the working directory (decided on `resolved`)."""
    written_outside: bool = True
    """`absolute` (as written, symlinks not followed) is outside the working directory."""
    harmless_read: bool = False
    """A device whose reading touches nothing outside (`/dev/zero`, `/dev/urandom`, …)."""

    def lineages(self) -> list[tuple[str, str]]:
        """`(relative, absolute)` as written, then as resolved when that differs."""
        out = [(self.relative, self.absolute)]
        if self.resolved is not None and self.resolved_relative is not None:
            resolved = (self.resolved_relative, self.resolved)
            if resolved != out[0]:
                out.append(resolved)
        return out

    def outside_lineages(self) -> list[tuple[str, str]]:
        """The lineages that leave the working directory (all of them when it is outside
        but neither form says where: a link loop)."""
        if not self.outside:
            return []
        found = self.lineages()
        if self.resolved is None or self.written_outside:
            return found
        return found[1:] or found

    @property
    def shown(self) -> str:
        """The path for messages: the absolute form, with the real target when it differs."""
        if self.resolved is not None and self.resolved != self.absolute:
            return f"{self.absolute} (-> {self.resolved})"
        return self.absolute


def _resolve(absolute: str) -> str | None:
    """Follow symlinks; a missing tail is kept as written; None for a loop."""
    try:
        return os.path.realpath(absolute, strict=True)
    except FileNotFoundError:
        pass
    except OSError as error:
        if error.errno == errno.ELOOP:
            return None
    try:
        resolved = os.path.realpath(absolute)
    except OSError:
        return None
    # realpath without `strict` stops at a loop and returns it unresolved: test that.
    try:
        os.stat(resolved)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return None
    return resolved


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def path_forms(path: str, cwd: str, home: str, base: str | None = None) -> PathForms:
    """The forms of `path` from a bash command (relative to `base`, by default the working
    directory `cwd`)."""
    typed = path[1:] if path.startswith("@") else path
    expanded = expand_home(typed, home)
    absolute = posixpath.normpath(posixpath.join(base or cwd, expanded))
    return _forms(typed, absolute, cwd)


def tool_path_forms(tool: str, path: str, cwd: str, home: str) -> PathForms:
    """The forms of the file the built-in tool `tool` touches for its `path` argument (any
    other tool's path is taken as the file tools would take it for)."""
    return _forms(path, resolve_tool_path(tool, path, cwd, home), cwd)


def _forms(typed: str, absolute: str, cwd: str) -> PathForms:
    if absolute.startswith("//"):
        absolute = "/" + absolute.lstrip("/")
    cwd_absolute = posixpath.normpath(cwd)
    relative = posixpath.relpath(absolute, cwd_absolute)
    written_outside = not _inside(absolute, cwd_absolute)
    if is_device(absolute):
        return PathForms(typed, absolute, relative, absolute, relative, False, written_outside)
    resolved = _resolve(absolute)
    real_cwd = os.path.realpath(cwd_absolute)
    if resolved is None:
        return PathForms(typed, absolute, relative, None, None, True, written_outside)
    return PathForms(
        typed,
        absolute,
        relative,
        resolved,
        posixpath.relpath(resolved, real_cwd),
        outside=not _inside(resolved, real_cwd),
        written_outside=written_outside,
        harmless_read=resolved in _READ_DEVICES,
    )
