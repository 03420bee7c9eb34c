"""The paths in the arguments of a tool pith does not know (an MCP tool, an extension's tool).

pith's own file tools name their file `path`; other tools name it as they like. An argument is
taken as a path by its **name** — compared in snake case, so `filePath` is `file_path`:

- `path`, `file`, `filename`, `file_name`, `filepath`, `file_path`, `repo_path`, `directory`,
  `dir`, `cwd`, `folder`, and any name ending in `_path`, `_file`, `_filename`, `_file_name`,
  `_dir`, `_directory` or `_folder` — and their plurals (`paths`, `files`, `dirs`,
  `directories`, `file_paths`, …);
- `root`, `target`, `source`, `destination`, `src`, `dest` (and plurals) only when the value
  looks like a path: it starts with `/`, `.` or `~`, holds a `/` and no white space, is a
  `file:` URI, or names a file or folder that exists (so `target: "production"` and
  `source: "print(a / b)"` are no paths);
- `uri`, `url` and names ending in `_uri` or `_url` only for a `file:` URI.

The value is a string, or a list of strings; objects and lists of objects are searched the
same way (`files: [{"path": …}]`). Empty text, text with a NUL, text longer than a path can be
and URLs of other schemes (`https://…`) are not paths. Pure: the caller says what exists.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from pith.json_input import MAX_ARGUMENT_DEPTH

__all__ = ["MAX_PATH_ARGUMENTS", "PathArgument", "path_arguments"]

MAX_PATH_ARGUMENTS = 256
"""More paths than this in one call are not judged one by one: the call asks."""
_MAX_DEPTH = MAX_ARGUMENT_DEPTH
_MAX_PATH_LENGTH = 4096

_PLAIN = frozenset(
    {"path", "file", "filename", "file_name", "filepath", "directory", "dir", "cwd", "folder"}
)
_SUFFIXES = ("_path", "_file", "_filename", "_file_name", "_dir", "_directory", "_folder")
_LOOSE = frozenset({"root", "target", "source", "destination", "src", "dest"})
_URI = frozenset({"uri", "url"})
_URI_SUFFIXES = ("_uri", "_url")

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class PathArgument:
    name: str
    """Where in the arguments: `path`, `files.0.path`."""
    value: str
    """As the call gives it."""
    path: str
    """The path to judge (a `file:` URI's path; otherwise `value`)."""


def _snake(name: str) -> str:
    return _CAMEL.sub("_", name).replace("-", "_").lower()


def _singular(name: str) -> str:
    if name.endswith("ies"):
        return name[:-3] + "y"
    return name[:-1] if name.endswith("s") else name


def _kind(name: str) -> str | None:
    """`path`, `loose`, `uri` or None for an argument's name."""
    snake = _snake(name)
    for candidate in (snake, _singular(snake)):
        if candidate in _PLAIN or candidate.endswith(_SUFFIXES):
            return "path"
        if candidate in _LOOSE:
            return "loose"
        if candidate in _URI or candidate.endswith(_URI_SUFFIXES):
            return "uri"
    return None


def _file_uri(value: str) -> bool:
    return value[:5].lower() == "file:"


def _is_path(kind: str, value: str, exists: Callable[[str], bool]) -> bool:
    if not value.strip() or "\0" in value or len(value) > _MAX_PATH_LENGTH:
        return False
    if _file_uri(value):
        return True
    if kind == "uri" or (_SCHEME.match(value) and "://" in value[:40]):
        return False
    if kind == "path":
        return True
    if "\n" in value:
        return False
    if value.startswith(("/", ".", "~")):
        return True
    return ("/" in value and not any(char.isspace() for char in value)) or exists(value)


def _file_path(value: str) -> str:
    """The file a `file:` URI names (`file:///etc/hosts`, `file:/etc/hosts`); other text as
    it is."""
    if not _file_uri(value):
        return value
    return unquote(urlsplit(value).path) or "/"


def _walk(
    value: object, name: str, kind: str | None, depth: int
) -> Iterator[tuple[str, str, str] | None]:
    """`(name, kind, text)` for every string under a path-like name; None where the
    arguments are nested too deep to search."""
    if depth > _MAX_DEPTH:
        yield None
        return
    if isinstance(value, str):
        if kind is not None:
            yield name, kind, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            key_text = str(key)
            yield from _walk(item, f"{name}.{key_text}", _kind(key_text), depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, f"{name}.{index}", kind, depth + 1)


def path_arguments(
    arguments: Mapping[str, object],
    *,
    declared: frozenset[str] | None,
    exists: Callable[[str], bool],
) -> tuple[list[PathArgument], bool]:
    """The paths in `arguments`, and whether there were too many (or too deeply nested) to
    judge each. `declared`: the top-level names the tool's schema gives (only those are
    read); None reads every argument."""
    found: list[PathArgument] = []
    for key, value in arguments.items():
        if declared is not None and key not in declared:
            continue
        for item in _walk(value, key, _kind(key), 0):
            if item is None or len(found) >= MAX_PATH_ARGUMENTS:
                return found, True
            name, kind, text = item
            if _is_path(kind, text, exists):
                found.append(PathArgument(name, text, _file_path(text)))
    return found, False
