"""Changing one server of an `mcp.json` and keeping everything else: other servers, other
top-level keys, fields pith does not know, the order of keys and the file's indentation.

The file is read again just before the change, and the result is written to a temporary file
beside it that is renamed over it, so a crash never leaves half a file. A missing file (and
its folder) is created. A file that is not valid JSON, not an object, names a key twice
(writing it back would lose one) or has an `mcpServers` that is not an object is refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path

from pith.errors import ConfigError
from pith.json_input import JsonInputError, parse_json
from pith.mcp._config_entry import is_override
from pith.mcp._types import Exposure
from pith.regular_file import read_regular_file
from pith.tools import write_atomically

__all__ = ["McpFileError", "add_server", "remove_server", "set_server_fields"]

_INDENT = re.compile(r"^([ \t]+)\S", re.MULTILINE)


class McpFileError(ConfigError):
    """An `mcp.json` pith will not change; the message names the file and what to do."""


def add_server(path: Path, name: str, entry: Mapping[str, object]) -> bool:
    """Put `entry` under `name` (replacing one there, in its place); True when it replaced."""
    replaced = False

    def edit(servers: dict[str, object]) -> bool:
        nonlocal replaced
        replaced = name in servers
        servers[name] = dict(entry)
        return True

    _edit(path, edit)
    return replaced


def remove_server(path: Path, name: str) -> bool:
    """Remove the entry `name`; False (and the file untouched) when there is none."""
    if not path.exists():
        return False
    removed = False

    def edit(servers: dict[str, object]) -> bool:
        nonlocal removed
        removed = name in servers
        servers.pop(name, None)
        return removed

    _edit(path, edit)
    return removed


def set_server_fields(
    path: Path,
    name: str,
    *,
    enabled: bool | None = None,
    exposure: Exposure | None = None,
    override: bool = False,
) -> None:
    """Set `enabled` and/or `exposure` of the entry `name`. With `override`, a missing entry is
    added as a project override (`{}` plus the fields). `enabled: true` is the default and is
    dropped from a full entry, but kept in an override, where it undoes the user's `false`;
    `exposure` is always written, since pith's default and Pi's differ."""

    def edit(servers: dict[str, object]) -> bool:
        entry = servers.get(name)
        if entry is None and override:
            entry = servers[name] = {}
        if not isinstance(entry, dict):
            raise McpFileError(f"{path} has no MCP server {name!r}; add it first")
        if enabled is not None:
            if enabled and not is_override(entry):
                entry.pop("enabled", None)
            else:
                entry["enabled"] = enabled
        if exposure is not None:
            entry["exposure"] = exposure
        return True

    _edit(path, edit)


def _edit(path: Path, edit: Callable[[dict[str, object]], bool]) -> None:
    text = _read(path)
    document: dict[str, object] = {}
    if text.strip():
        try:
            value = parse_json(text, str(path), fix="", unique_keys=True)
        except JsonInputError as error:
            raise McpFileError(
                f"{path} cannot be changed: line {error.line}, column {error.column}: "
                f"{error.reason}; fix it first, it was not changed"
            ) from None
        if not isinstance(value, dict):
            raise McpFileError(f"{path} must hold a JSON object; fix it first, it was not changed")
        document = value
    servers = document.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise McpFileError(
            f"{path}: mcpServers must be an object; fix it first, it was not changed"
        )
    if not edit(servers):
        return
    found = _INDENT.search(text)
    indent = found.group(1) if found else "  "
    data = json.dumps(document, indent=indent, ensure_ascii=False) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(str(path), data.encode("utf-8"))
    except OSError as error:
        raise McpFileError(f"cannot write {path}: {error.strerror or error}") from None


def _read(path: Path) -> str:
    try:
        raw = read_regular_file(path)
    except FileNotFoundError:
        return ""
    except OSError as error:
        raise McpFileError(f"cannot read {path}: {error.strerror or error}") from None
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise McpFileError(f"{path} is not UTF-8 text; fix it first, it was not changed") from None
