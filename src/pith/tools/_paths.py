"""How tools turn the path a model wrote into a file on disk (docs/tools.md, Paths).

Relative paths resolve against the session's working directory, `~` expands, a leading `@`
(how people mention files) is stripped, and unusual Unicode spaces become plain spaces. For
reads, the macOS screenshot spellings (narrow no-break space before AM/PM, NFD, curly
apostrophe) are tried when the path as written does not exist.

`resolve_tool_path` is the one way from a built-in tool's `path` argument to the file it
touches: the tools use it, and so does the permission system, so that a spelling one of them
accepts can never name a different file for the other.
"""

from __future__ import annotations

import os
import re
import unicodedata
from urllib.parse import unquote, urlparse

__all__ = [
    "display_path",
    "expand_path",
    "resolve_read_path",
    "resolve_to_cwd",
    "resolve_tool_path",
]

_UNICODE_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
_AM_PM = re.compile(r" (AM|PM)\.", re.IGNORECASE)


def expand_path(path: str, home: str | None = None) -> str:
    """`path` with odd spaces normalized, a leading `@` removed, `~` expanded (to `home`, by
    default the user's) and a `file://` URL turned into its path."""
    normalized = _UNICODE_SPACES.sub(" ", path)
    if normalized.startswith("@"):
        normalized = normalized[1:]
    if normalized == "~":
        return home or os.path.expanduser("~")
    if normalized.startswith("~/"):
        return os.path.join(home or os.path.expanduser("~"), normalized[2:])
    if normalized.startswith("file://"):
        return unquote(urlparse(normalized).path)
    return normalized


def resolve_to_cwd(path: str, cwd: str, home: str | None = None) -> str:
    """The absolute, normalized form of `path` as seen from `cwd`."""
    expanded = expand_path(path, home)
    joined = expanded if os.path.isabs(expanded) else os.path.join(expand_path(cwd), expanded)
    resolved = os.path.normpath(joined)
    # POSIX keeps a leading "//"; Node's resolve (and every user) treats it as "/".
    return "/" + resolved.lstrip("/") if resolved.startswith("//") else resolved


def resolve_read_path(path: str, cwd: str, home: str | None = None) -> str:
    """Like `resolve_to_cwd`, trying macOS filename variants when the plain path is missing."""
    resolved = resolve_to_cwd(path, cwd, home)
    if os.path.lexists(resolved):
        return resolved
    am_pm = _AM_PM.sub(lambda match: f"\u202f{match.group(1)}.", resolved)
    nfd = unicodedata.normalize("NFD", resolved)
    curly = resolved.replace("'", "\u2019")
    nfd_curly = nfd.replace("'", "\u2019")
    for variant in (am_pm, nfd, curly, nfd_curly):
        if variant != resolved and os.path.lexists(variant):
            return variant
    return resolved


def resolve_tool_path(tool: str, path: str, cwd: str, home: str | None = None) -> str:
    """The absolute path the built-in tool `tool` touches for its `path` argument `path`
    (`home`: what `~` means, by default the user's home)."""
    if tool == "read":
        return resolve_read_path(path, cwd, home)
    return resolve_to_cwd(path, cwd, home)


def display_path(path: str, cwd: str) -> str:
    """`path` relative to `cwd` when inside it, else absolute; for messages to people."""
    absolute = resolve_to_cwd(path, cwd)
    relative = os.path.relpath(absolute, cwd)
    return absolute if relative == ".." or relative.startswith("../") else relative
