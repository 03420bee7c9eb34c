"""Path spelling rules shared by the resource loaders: how a path is made absolute, when it is
canonical, and when one path lies inside another. These follow Node's `path` module, because
Pi's behaviour (and the conformance data) depends on where it resolves and where it does not.
"""

from __future__ import annotations

import os

__all__ = ["PROJECT_DIR", "StrPath", "canonical_path", "is_within", "resolve_path"]

PROJECT_DIR = ".pith"
"""The project's own resource folder (Pi: `.pi`)."""

StrPath = str | os.PathLike[str]


def resolve_path(path: StrPath) -> str:
    """`path` made absolute against the process's working directory and normalised lexically
    (`..`, `.`, repeated and trailing slashes): symlinks are *not* resolved."""
    text = os.fspath(path)
    if not os.path.isabs(text):
        text = os.path.join(os.getcwd(), text)
    text = os.path.normpath(text)
    # POSIX lets normpath keep a leading `//`; Node does not.
    if text.startswith("//"):
        text = "/" + text.lstrip("/")
    return text


def canonical_path(path: StrPath) -> str:
    """The real path of `path` (symlinks resolved), or `path` as given when it cannot be
    resolved (missing, a loop, no permission)."""
    text = os.fspath(path)
    try:
        return os.path.realpath(text, strict=True)
    except (OSError, ValueError):
        return text


def is_within(parent: str, child: str) -> bool:
    """True when `child` is `parent` or below it (compared as resolved paths, lexically)."""
    parent_key = resolve_path(parent)
    child_key = resolve_path(child)
    if child_key == parent_key:
        return True
    prefix = parent_key if parent_key.endswith(os.sep) else parent_key + os.sep
    return child_key.startswith(prefix)
