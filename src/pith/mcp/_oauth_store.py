"""`<agent dir>/mcp-auth.json`: what signing in to an OAuth-protected MCP server leaves behind.

One JSON object maps a credential key to a record. The key is the server's namespace
(`mcp__<name>`, so `a-b` and `a_b` share one) and its URL, so two entries with the same URL
under different names (one per account) sign in separately, and the same name and URL in two
`mcp.json` files share one sign-in. A record holds:

- `client`: the client the authorization server registered (RFC 7591), or the configured one;
- `tokens`: `access_token`, `token_type`, `refresh_token`, `scope` and `expires_at` (seconds
  since the epoch; absent when the server gave no lifetime);
- `token_endpoint` and `resource`: where a refresh goes and the resource it names (RFC 8707).

The file holds secrets: it is created with mode 0600, kept at 0600, and replaced atomically on
every change, so a crash never leaves half a file. This module does not import the MCP SDK.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pith.errors import ConfigError
from pith.json_input import JsonInputError, parse_json
from pith.mcp._naming import server_namespace
from pith.mcp._types import ServerConfig
from pith.regular_file import read_regular_file
from pith.tools import write_atomically

__all__ = [
    "AUTH_FILE",
    "McpAuthFileError",
    "auth_path",
    "credential_key",
    "read_record",
    "remove_record",
    "update_record",
    "uses_oauth",
]

AUTH_FILE = "mcp-auth.json"

Record = dict[str, Any]


class McpAuthFileError(ConfigError):
    """`mcp-auth.json` cannot be read or written; the message names the file and the fix."""


def uses_oauth(config: ServerConfig) -> bool:
    """OAuth applies to an HTTP server whose headers carry no `Authorization` of their own."""
    if config.transport != "http" or config.url is None:
        return False
    return not any(key.lower() == "authorization" for key in config.headers)


def auth_path(agent_dir: Path) -> Path:
    return agent_dir / AUTH_FILE


def credential_key(name: str, url: str) -> str:
    """`mcp__<name>|<url>`, the URL with its scheme and host in lower case and an empty path
    written as `/`, so spellings of one address share a key."""
    parts = urlsplit(url.strip())
    path = parts.path or "/"
    normal = urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))
    return f"{server_namespace(name)}|{normal}"


def _fix(path: Path) -> str:
    return f"delete {path} and sign in again with `pith mcp login NAME`"


def _read_all(path: Path) -> dict[str, Record]:
    try:
        raw = read_regular_file(path)
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise McpAuthFileError(
            f"{path}: cannot be read ({error.strerror or error}); {_fix(path)}"
        ) from None
    if not raw.strip():
        return {}
    try:
        value = parse_json(raw, str(path), fix=_fix(path))
    except JsonInputError as error:
        raise McpAuthFileError(str(error)) from None
    if not isinstance(value, dict):
        raise McpAuthFileError(f"{path}: must hold a JSON object; {_fix(path)}")
    return {key: item for key, item in value.items() if isinstance(item, dict)}


def _write_all(path: Path, records: dict[str, Record]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        # Created at 0600 before anything is written to it: the atomic write keeps the mode.
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        data = (json.dumps(records, indent=2, ensure_ascii=False) + "\n").encode()
        write_atomically(str(path), data)
        os.chmod(path, 0o600)
    except OSError as error:
        raise McpAuthFileError(
            f"{path}: cannot be written ({error.strerror or error}); check the folder's permissions"
        ) from None


def read_record(agent_dir: Path, name: str, url: str) -> Record | None:
    """The stored record of server `name` at `url`, or None (never signed in, or signed out)."""
    return _read_all(auth_path(agent_dir)).get(credential_key(name, url))


def update_record(agent_dir: Path, name: str, url: str, change: Callable[[Record], None]) -> Record:
    """Apply `change` to the record of `name` at `url` (an empty one when there is none), write
    the file, and return the record as written."""
    path = auth_path(agent_dir)
    records = _read_all(path)
    key = credential_key(name, url)
    record = dict(records.get(key, {}))
    change(record)
    record["server"] = name
    record["url"] = url
    records[key] = record
    _write_all(path, records)
    return record


def remove_record(agent_dir: Path, name: str, url: str) -> bool:
    """Delete the record of `name` at `url`; False when there was none."""
    path = auth_path(agent_dir)
    records = _read_all(path)
    if records.pop(credential_key(name, url), None) is None:
        return False
    _write_all(path, records)
    return True
