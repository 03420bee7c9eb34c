"""Paths as users type them (`--skill`, settings entries) made absolute the way Pi's
`resolvePath` does it, and Pi's `mergePaths`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from urllib.parse import unquote, urlparse

from pith.resources._jstext import js_trim
from pith.resources._pathnames import canonical_path

__all__ = ["merge_paths", "normalize_input", "resolve_input_path"]


def normalize_input(raw: str, home: str, *, trim: bool = False) -> str:
    """Pi's `normalizePath`: optional trim, `~` / `~/x` expanded, `file://` URLs made paths."""
    text = js_trim(raw) if trim else raw
    if text == "~":
        return home
    if text.startswith("~/"):
        return os.path.join(home, text[2:])
    if text.startswith("file://"):
        return unquote(urlparse(text).path)
    return text


def _lexical(path: str) -> str:
    normalized = os.path.normpath(path)
    return "/" + normalized.lstrip("/") if normalized.startswith("//") else normalized


def resolve_input_path(raw: str, base: str, home: str, *, trim: bool = True) -> str:
    """Pi's `resolvePath(raw, base, {trim})`: a path as typed by a user or written in settings
    (`~` expanded), made absolute against `base` lexically (symlinks are not resolved)."""
    text = normalize_input(raw, home, trim=trim)
    if os.path.isabs(text):
        return _lexical(text)
    return _lexical(os.path.join(os.path.abspath(normalize_input(base, home)), text))


def merge_paths(
    primary: Sequence[str], additional: Sequence[str], cwd: str, home: str
) -> list[str]:
    """Both lists resolved against `cwd`, in order, each real path once (first wins)."""
    merged: list[str] = []
    seen: set[str] = set()
    for raw in [*primary, *additional]:
        resolved = resolve_input_path(raw, cwd, home)
        key = canonical_path(resolved)
        if key not in seen:
            seen.add(key)
            merged.append(resolved)
    return merged
