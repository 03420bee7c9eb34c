"""The shapes every part of pith's MCP support shares: a configured server, one of its tools,
how a tool reaches the model, and a server's connection state.

These are plain frozen dataclasses with no behaviour, so the configuration reader, the
connection manager, the built-in extension and the `pith mcp` commands can be written and
tested apart from one another.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "DEFAULT_EXPOSURE",
    "DEFAULT_TIMEOUT",
    "EXPOSURES",
    "ConfigProblem",
    "Exposure",
    "McpConfig",
    "McpTool",
    "OAuthConfig",
    "ServerConfig",
    "ServerState",
    "ServerStatus",
    "Transport",
]

Exposure = Literal["direct", "deferred", "hidden"]
"""How a server's tool reaches the model.

- `direct`: declared in every request, like a built-in tool;
- `deferred`: not declared; the `tool_search` tool finds it and declares it from the next
  request on (and, on that branch of the session, for good);
- `hidden`: never reachable.
"""

EXPOSURES: tuple[Exposure, ...] = ("direct", "deferred", "hidden")

DEFAULT_EXPOSURE: Exposure = "deferred"
"""A server without `exposure` costs the first request nothing: many servers, small context."""

DEFAULT_TIMEOUT = 60.0
"""Seconds one request to a server may take; a progress notification starts the count again."""

Transport = Literal["stdio", "http"]

ServerStatus = Literal["disabled", "connecting", "connected", "failed", "needs-auth", "closed"]


@dataclass(frozen=True)
class OAuthConfig:
    """The `oauth` object of an HTTP server: a registered client, or hints for sign-in."""

    client_id: str | None = None
    client_secret: str | None = None
    client_name: str | None = None
    callback_port: int | None = None
    callback_url: str | None = None
    scope: str | None = None
    auth_server_metadata_url: str | None = None
    client_registration: Literal["auto", "dcr", "cimd"] = "auto"


@dataclass(frozen=True)
class ServerConfig:
    """One entry of `mcpServers`, checked, with `${NAME}` and `!command` values expanded.

    `tool_exposure` keeps the order the file gives: exact names win over patterns, and among
    patterns (`*` matches any run of characters) the first match wins.
    """

    name: str
    transport: Transport
    source: Path | None
    """The `mcp.json` that defined the entry (None: registered by code)."""
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    oauth: OAuthConfig | None = None
    timeout: float = DEFAULT_TIMEOUT
    enabled: bool = True
    description: str | None = None
    exposure: Exposure = DEFAULT_EXPOSURE
    tool_exposure: tuple[tuple[str, Exposure], ...] = ()
    roots: tuple[str, ...] | None = None
    """Folders offered to the server as its roots, as written (`~` and paths relative to the
    session's folder allowed); None: the session's folder alone."""
    override: Path | None = None
    """The project `mcp.json` whose entry changed only `enabled`, `exposure` or `toolExposure`
    of this user-level server (None: no such entry)."""


@dataclass(frozen=True)
class ConfigProblem:
    """An entry pith could not use: reported once, skipped; the other servers still connect."""

    file: Path | None
    server: str | None
    field: str | None
    message: str
    """What is wrong and what to do, in one sentence."""

    def line(self) -> str:
        where = str(self.file) if self.file is not None else "mcp"
        if self.server is not None:
            where += f": server {self.server!r}"
        if self.field is not None:
            where += f": {self.field}"
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class McpConfig:
    """Every configured server by name (user file, then a trusted project's), and the problems."""

    servers: Mapping[str, ServerConfig]
    problems: tuple[ConfigProblem, ...] = ()


@dataclass(frozen=True)
class McpTool:
    """One tool a connected server offers, named the way the model sees it."""

    server: str
    name: str
    """The server's own name for the tool."""
    full_name: str
    """`mcp__<server>__<tool>` (see `pith.mcp.tool_names`)."""
    description: str
    input_schema: Mapping[str, Any]
    exposure: Exposure
    annotations: Mapping[str, Any] = field(default_factory=dict)
    """The server's hints: `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`."""


@dataclass(frozen=True)
class ServerState:
    """What `pith mcp list` and `/mcp` show for one server."""

    name: str
    status: ServerStatus
    tool_count: int = 0
    error: str | None = None
    stderr_tail: str = ""
    instructions: str | None = None
