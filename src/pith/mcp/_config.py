"""Reading `mcp.json`: the user's (`<agent dir>/mcp.json`) and, in a trusted project, the
project's (`<project>/.pith/mcp.json`), merged into one `McpConfig`.

Both files hold `{"mcpServers": {name: entry}}`, the shape other MCP clients use. A project
entry replaces the user entry of the same name; a project entry without `command`, `url` or
`type` changes only `enabled`, `exposure` and `toolExposure` of the user's server. Anything
wrong in one entry is a `ConfigProblem` and that entry is skipped; a file pith cannot read at
all is one problem. Never an exception.

Reading runs `!command` values (`_config_values`): only the user's file and a trusted
project's are ever read, and only enabled servers have their values filled in.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from pith.json_input import JsonInputError, parse_json
from pith.mcp._config_entry import EntryError, apply_override, check_entry, is_override
from pith.mcp._config_values import ValueExpansionError, expand_value
from pith.mcp._naming import server_namespace
from pith.mcp._types import ConfigProblem, McpConfig, ServerConfig
from pith.regular_file import read_regular_file

__all__ = [
    "MCP_FILE",
    "PROJECT_MCP_FILE",
    "entry_problem",
    "load_mcp_config",
    "project_mcp_path",
    "read_mcp_file",
    "user_mcp_path",
]

MCP_FILE = "mcp.json"
PROJECT_MCP_FILE = Path(".pith") / MCP_FILE


def user_mcp_path(agent_dir: Path) -> Path:
    return agent_dir / MCP_FILE


def project_mcp_path(cwd: Path) -> Path:
    return cwd / PROJECT_MCP_FILE


_FIX = 'fix the file (it holds JSON: {"mcpServers": {...}})'


def read_mcp_file(path: Path) -> dict[str, object] | ConfigProblem:
    """The `mcpServers` object of the file at `path` ({} when the file is missing or empty),
    or the one problem that keeps pith from reading it."""
    try:
        raw = read_regular_file(path)
    except FileNotFoundError:
        return {}
    except OSError as error:
        return ConfigProblem(path, None, None, f"cannot be read ({error.strerror or error})")
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    if not raw.strip():
        return {}
    try:
        value = parse_json(raw, str(path), fix="", unique_keys=True)
    except JsonInputError as error:
        message = f"line {error.line}, column {error.column}: {error.reason}; {_FIX}"
        return ConfigProblem(path, None, None, message)
    if not isinstance(value, dict):
        return ConfigProblem(path, None, None, f"must hold a JSON object; {_FIX}")
    servers = value.get("mcpServers", {})
    if not isinstance(servers, dict):
        return ConfigProblem(path, None, "mcpServers", "must be an object mapping names to servers")
    return servers


def entry_problem(name: str, raw: object) -> str | None:
    """Why `raw` cannot be the entry `name` (one line naming the field), or None when it can;
    values are not filled in."""
    try:
        check_entry(name, raw, None)
    except EntryError as error:
        return ConfigProblem(None, name, error.field, error.message).line().removeprefix("mcp: ")
    return None


@dataclass
class _Merge:
    servers: dict[str, ServerConfig] = field(default_factory=dict)
    problems: list[ConfigProblem] = field(default_factory=list)

    def add_file(self, path: Path, *, project: bool) -> None:
        entries = read_mcp_file(path)
        if isinstance(entries, ConfigProblem):
            self.problems.append(entries)
            return
        for name, raw in entries.items():
            try:
                self._add(path, name, raw, project=project)
            except EntryError as error:
                self.problems.append(ConfigProblem(path, name, error.field, error.message))

    def _add(self, path: Path, name: str, raw: object, *, project: bool) -> None:
        if project and isinstance(raw, dict) and is_override(raw):
            base = self.servers.get(name)
            if base is None:
                raise EntryError(
                    None,
                    'needs "command" or "url"; without them it can only change a user-level '
                    "server of the same name, and there is none",
                )
            self.servers[name] = apply_override(base, raw, path)
            return
        server = check_entry(name, raw, path)
        clash = next(
            (
                other
                for other in self.servers
                if other != name and server_namespace(other) == server_namespace(name)
            ),
            None,
        )
        if clash is not None:
            raise EntryError(
                None,
                f"is the same server as {clash!r} ('-' and '_' count as one); rename or "
                "remove one of them",
            )
        self.servers[name] = server


def load_mcp_config(
    agent_dir: Path,
    cwd: Path,
    *,
    trusted: bool,
    environ: Mapping[str, str] = os.environ,
) -> McpConfig:
    """Every configured server, user file first, then the project's when `trusted`; values of
    enabled servers filled in from `environ` (an entry whose values cannot be is a problem)."""
    merge = _Merge()
    merge.add_file(user_mcp_path(agent_dir), project=False)
    if trusted:
        merge.add_file(project_mcp_path(cwd), project=True)
    home = Path(environ.get("HOME") or Path.home())
    servers: dict[str, ServerConfig] = {}
    cache: dict[str, str] = {}
    for name, server in merge.servers.items():
        try:
            servers[name] = _resolved(server, cwd, home, environ, cache)
        except EntryError as error:
            merge.problems.append(ConfigProblem(server.source, name, error.field, error.message))
    return McpConfig(servers=servers, problems=tuple(merge.problems))


def _resolved(
    server: ServerConfig,
    cwd: Path,
    home: Path,
    environ: Mapping[str, str],
    cache: MutableMapping[str, str],
) -> ServerConfig:
    """`server` with home folders and (when enabled) `${NAME}` and `!command` filled in."""

    def fill(value: str, where: str) -> str:
        try:
            return expand_value(value, environ, cwd, cache)
        except ValueExpansionError as error:
            raise EntryError(where, str(error)) from None

    def tilde(value: str) -> str:
        if value == "~":
            return str(home)
        return str(home / value[2:]) if value.startswith("~/") else value

    changes: dict[str, object] = {}
    if server.transport == "stdio":
        changes["command"] = tilde(server.command or "")
        changes["args"] = tuple(tilde(arg) for arg in server.args)
        if server.cwd is not None:
            changes["cwd"] = cwd / tilde(str(server.cwd))
    if server.enabled:
        changes["env"] = {key: fill(value, f"env.{key}") for key, value in server.env.items()}
        changes["headers"] = {
            key: fill(value, f"headers.{key}") for key, value in server.headers.items()
        }
        oauth = server.oauth
        if oauth is not None and oauth.client_secret is not None:
            secret = fill(oauth.client_secret, "oauth.clientSecret")
            changes["oauth"] = replace(oauth, client_secret=secret)
    return replace(server, **changes)  # type: ignore[arg-type]
