"""`pith mcp add|remove|list|login|logout`: manage MCP servers without starting a session.

`add` and `remove` change the user's `<agent dir>/mcp.json`, or with `-l` the project's
`.pith/mcp.json` (read by sessions only once the project is trusted). `list` shows every
configured server and every problem of the files, and exits with 1 when there is one. The
files keep the shape other MCP clients (Pi among them) read and write.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from pith.errors import InputError
from pith.mcp import McpConfig, McpTool, ServerState

__all__ = ["ServerRow", "run", "server_rows"]

_EXPOSURES = ("direct", "deferred", "hidden")
_VALUE_OPTIONS = frozenset(
    {
        "--url",
        "--env",
        "--cwd",
        "--header",
        "--bearer-token-env-var",
        "--description",
        "--exposure",
        "--timeout",
        "--oauth-client-id",
        "--oauth-client-secret",
        "--oauth-callback-port",
        "--oauth-client-name",
        "--oauth-client-registration",
    }
)
_HTTP_ONLY = (
    "header",
    "bearer_token_env_var",
    "oauth_client_id",
    "oauth_client_secret",
    "oauth_callback_port",
    "oauth_client_name",
    "oauth_client_registration",
)
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pith mcp",
        description=(
            "Add, remove and list MCP servers in mcp.json without starting a session "
            "(docs/mcp.md). The user's file is <agent dir>/mcp.json; -l uses the project's "
            ".pith/mcp.json, which sessions read only in a trusted project."
        ),
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add = commands.add_parser(
        "add",
        help="add or replace a server",
        description=(
            "Add or replace a server. A stdio server: pith mcp add NAME [options] -- COMMAND "
            "[ARGS...]. An HTTP server: pith mcp add NAME --url URL [options]. It does not "
            "connect; run `pith mcp list` to check the file."
        ),
    )
    add.add_argument("name", help="the server's name: letters, digits, '_' and '-'")
    add.add_argument("-l", "--local", action="store_true", help="write the project's file")
    add.add_argument("--url", help="the streamable HTTP endpoint (instead of a command)")
    add.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="environment variable of a stdio server (repeatable)",
    )
    add.add_argument("--cwd", help="working folder of a stdio server (relative: the session's)")
    add.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="HTTP header (repeatable)",
    )
    add.add_argument(
        "--bearer-token-env-var", metavar="NAME", help='send "Authorization: Bearer ${NAME}"'
    )
    add.add_argument("--oauth-client-id", metavar="ID", help="a registered OAuth client's id")
    add.add_argument(
        "--oauth-client-secret", metavar="SECRET", help="its secret (may be ${NAME} or !command)"
    )
    add.add_argument(
        "--oauth-callback-port",
        type=int,
        metavar="PORT",
        help="a fixed port for the sign-in callback",
    )
    add.add_argument(
        "--oauth-client-name", metavar="NAME", help="the name sent when registering a client"
    )
    add.add_argument(
        "--oauth-client-registration",
        choices=("auto", "dcr", "cimd"),
        help="how to register with the authorization server",
    )
    add.add_argument(
        "--exposure", choices=_EXPOSURES, help="how its tools reach the model (default: deferred)"
    )
    add.add_argument("--description", metavar="TEXT", help="what the server offers, in a line")
    add.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="seconds one request may take (default: 60)",
    )
    remove = commands.add_parser("remove", help="remove a server", description="Remove a server.")
    remove.add_argument("name", help="the server's name")
    remove.add_argument("-l", "--local", action="store_true", help="the project's file")
    listing = commands.add_parser(
        "list",
        help="every configured server and every problem (exit 1 on a problem)",
        description=(
            "Show each configured server (its transport, whether it is enabled, its exposure "
            "and the file it comes from) and every problem of the files; exit 1 on a problem."
        ),
    )
    listing.add_argument("--json", action="store_true", help="one JSON object")
    listing.add_argument("-a", "--approve", action="store_true", help="trust the project")
    _login_parsers(commands)
    return parser


def _login_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    login = commands.add_parser(
        "login",
        help="sign in to an OAuth-protected HTTP server",
        description=(
            "Sign in to an HTTP server that asks for OAuth: open (or print) the authorization "
            "page and wait for the browser, or for the redirected address pasted here. The "
            "tokens go to <agent dir>/mcp-auth.json and are refreshed as they expire."
        ),
    )
    login.add_argument("name", help="the server's name")
    login.add_argument("-a", "--approve", action="store_true", help="trust the project")
    logout = commands.add_parser(
        "logout", help="delete a server's stored sign-in", description="Delete stored tokens."
    )
    logout.add_argument("name", help="the server's name")
    logout.add_argument("-a", "--approve", action="store_true", help="trust the project")


def _split_command(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """`add`'s own arguments and the server's command: everything after `--`, or from the
    second word that is not an option on (so `pith mcp add fs npx -y pkg` works too)."""
    head: list[str] = []
    words = 0
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--":
            return head, list(argv[index + 1 :])
        if arg.startswith("-") and arg != "-":
            head.append(arg)
            if arg in _VALUE_OPTIONS and index + 1 < len(argv):
                head.append(argv[index + 1])
                index += 1
        else:
            if words == 1:
                return head, list(argv[index:])
            head.append(arg)
            words += 1
        index += 1
    return head, []


def run(argv: list[str]) -> int:
    parser = _parser()
    if argv and argv[0] == "add":
        head, command = _split_command(argv[1:])
        options = parser.parse_args(["add", *head])
        options.server_command = command
    else:
        options = parser.parse_args(argv)
    from pith.resources import agent_dir

    home, cwd = agent_dir(), Path(os.getcwd())
    if options.command == "add":
        return _add(options, home, cwd)
    if options.command == "remove":
        return _remove(options, home, cwd)
    if options.command in ("login", "logout"):
        from pith.cli._mcp_login import login, logout

        trusted = _trusted(home, cwd, options.approve)
        return (login if options.command == "login" else logout)(options, home, cwd, trusted)
    return _list(options, home, cwd)


def _trusted(home: Path, cwd: Path, approve: bool = False) -> bool:
    from pith.resources import load_settings, resolve_project_trust

    settings = load_settings(home)
    resolution = asyncio.run(
        resolve_project_trust(
            cwd,
            home,
            override=True if approve else None,
            default_trust=settings.default_project_trust,
        )
    )
    return resolution.trusted


def _pairs(option: str, values: Sequence[str]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep or not key:
            raise InputError(f"--{option} wants KEY=VALUE, not {value!r}")
        pairs[key] = rest
    return pairs


def _entry(options: argparse.Namespace) -> dict[str, object]:
    """The `mcpServers` entry the options describe, its keys in the order Pi writes them."""
    command: list[str] = options.server_command
    if (options.url is None) == (not command):
        raise InputError(
            "pith mcp add needs either --url URL or -- COMMAND [ARGS...] (not both); "
            "see pith mcp add --help"
        )
    entry: dict[str, object] = {}
    if options.url is not None:
        if options.env or options.cwd is not None:
            raise InputError("--env and --cwd are for stdio servers, not --url")
        entry["url"] = options.url
        headers = _pairs("header", options.header)
        if options.bearer_token_env_var is not None:
            if not _ENV_NAME.fullmatch(options.bearer_token_env_var):
                raise InputError(
                    f"--bearer-token-env-var wants a variable name, not "
                    f"{options.bearer_token_env_var!r}"
                )
            headers["Authorization"] = f"Bearer ${{{options.bearer_token_env_var}}}"
        if headers:
            entry["headers"] = headers
        oauth = {
            key: value
            for key, value in (
                ("clientId", options.oauth_client_id),
                ("clientSecret", options.oauth_client_secret),
                ("callbackPort", options.oauth_callback_port),
                ("clientName", options.oauth_client_name),
                ("clientRegistration", options.oauth_client_registration),
            )
            if value is not None
        }
        if oauth:
            entry["oauth"] = oauth
    else:
        misplaced = next((name for name in _HTTP_ONLY if getattr(options, name)), None)
        if misplaced is not None:
            flag = "--" + misplaced.replace("_", "-")
            raise InputError(f"{flag} is for HTTP servers (--url), not a command")
        entry["command"] = command[0]
        if command[1:]:
            entry["args"] = command[1:]
        env = _pairs("env", options.env)
        if env:
            entry["env"] = env
        if options.cwd is not None:
            entry["cwd"] = options.cwd
    if options.exposure is not None:
        entry["exposure"] = options.exposure
    if options.description is not None:
        entry["description"] = options.description
    if options.timeout is not None:
        timeout = options.timeout
        entry["timeout"] = int(timeout) if timeout.is_integer() else timeout
    return entry


def _add(options: argparse.Namespace, home: Path, cwd: Path) -> int:
    from pith.mcp import add_server, entry_problem, project_mcp_path, user_mcp_path

    entry = _entry(options)
    problem = entry_problem(options.name, entry)
    if problem is not None:
        raise InputError(problem)
    path = project_mcp_path(cwd) if options.local else user_mcp_path(home)
    scope = "project" if options.local else "user"
    replaced = add_server(path, options.name, entry)
    print(f"{'Replaced' if replaced else 'Added'} {scope} MCP server {options.name!r} in {path}.")
    if options.local and not _trusted(home, cwd):
        print(f"The project is not trusted: {path} is read only once it is (pith trust).")
    print("Check it with: pith mcp list")
    return 0


def _remove(options: argparse.Namespace, home: Path, cwd: Path) -> int:
    from pith.mcp import project_mcp_path, remove_server, user_mcp_path

    files = {"user": user_mcp_path(home), "project": project_mcp_path(cwd)}
    scope = "project" if options.local else "user"
    path = files[scope]
    if remove_server(path, options.name):
        print(f"Removed {scope} MCP server {options.name!r} from {path}.")
        return 0
    other = "user" if options.local else "project"
    hint = ""
    if _defines(files[other], options.name):
        hint = f" It is in {files[other]}; {'omit' if options.local else 'add'} --local."
    raise InputError(f"no {scope} MCP server {options.name!r} in {path}.{hint}")


def _defines(path: Path, name: str) -> bool:
    from pith.mcp import read_mcp_file

    servers = read_mcp_file(path)
    return isinstance(servers, dict) and name in servers


@dataclass(frozen=True)
class ServerRow:
    """One server of `pith mcp list`: what the files say of it and, once `list` connected,
    what the server said."""

    name: str
    scope: str
    """`user` or `project`: the file that defines it."""
    source: str
    transport: str
    target: str
    """The command line of a stdio server, the URL of an HTTP one."""
    enabled: bool
    exposure: str
    override: str | None = None
    state: str = ""
    """`disabled`, else the connection's outcome: `connected`, `failed`, `needs-auth` or
    `connecting` (it did not finish within its time)."""
    tool_count: int = 0
    error: str | None = None
    stderr_tail: str = ""
    """The last lines the server wrote on stderr (stdio servers)."""
    tool_exposure: tuple[tuple[str, str], ...] = ()
    """(tool, exposure) of each tool whose exposure differs from the server's."""

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        if self.override is None:
            del data["override"]
        data["tool_exposure"] = [
            {"tool": tool, "exposure": exposure} for tool, exposure in self.tool_exposure
        ]
        return data


def server_rows(
    config: McpConfig,
    user_file: Path,
    states: Sequence[ServerState] = (),
    tools: Sequence[McpTool] = (),
) -> list[ServerRow]:
    """The rows of `pith mcp list`, one per configured server, in the files' order; `states`
    and `tools` are what connecting found (a server without a state is shown as enabled)."""
    by_name = {state.name: state for state in states}
    rows = []
    for server in config.servers.values():
        if server.transport == "stdio":
            target = " ".join([server.command or "", *server.args])
        else:
            target = server.url or ""
        state = by_name.get(server.name)
        own = tuple(
            (tool.name, tool.exposure)
            for tool in tools
            if tool.server == server.name and tool.exposure != server.exposure
        )
        rows.append(
            ServerRow(
                name=server.name,
                scope="user" if server.source == user_file else "project",
                source=str(server.source),
                transport=server.transport,
                target=target,
                enabled=server.enabled,
                exposure=server.exposure,
                override=str(server.override) if server.override is not None else None,
                state=_state_word(server.enabled, state),
                tool_count=state.tool_count if state is not None else 0,
                error=state.error if state is not None else None,
                stderr_tail=state.stderr_tail.strip() if state is not None else "",
                tool_exposure=own,
            )
        )
    return rows


def _state_word(enabled: bool, state: ServerState | None) -> str:
    if not enabled:
        return "disabled"
    return state.status if state is not None else "enabled"


CONNECT_MARGIN = 5.0
"""Seconds `list` waits beyond the longest time a server may take to connect: each connection
gives up by itself (its `timeout`, at least 30 s for a wrapper like `npx` installing the
server); this only guards against a hang."""


async def _connect(
    config: McpConfig, home: Path, cwd: Path
) -> tuple[list[ServerState], list[McpTool]]:
    """Connect every enabled server at once, wait for each outcome, then stop them all."""
    servers = {name: server for name, server in config.servers.items() if server.enabled}
    if not servers:
        return [], []
    from pith.mcp import McpManager

    manager = McpManager(servers, agent_dir=home, cwd=cwd)
    manager.start()
    try:
        longest = max([30.0, *(server.timeout for server in servers.values())])
        await manager.wait_for(None, longest + CONNECT_MARGIN)
        return manager.states(), manager.tools()
    finally:
        await manager.close()


def _list(options: argparse.Namespace, home: Path, cwd: Path) -> int:
    from pith.mcp import load_mcp_config, project_mcp_path, user_mcp_path

    trusted = _trusted(home, cwd, options.approve)
    config = load_mcp_config(home, cwd, trusted=trusted)
    states, tools = asyncio.run(_connect(config, home, cwd))
    rows = server_rows(config, user_mcp_path(home), states, tools)
    errors = [problem.line() for problem in config.problems]
    project_file = project_mcp_path(cwd)
    note = None
    if not trusted and project_file.exists():
        note = (
            f"{project_file} is not read: the project is not trusted "
            "(pith trust, or -a for this command)"
        )
    failed = any(row.enabled and row.state != "connected" for row in rows)
    status = 1 if errors or failed else 0
    if options.json:
        payload: dict[str, object] = {
            "servers": [row.to_json() for row in rows],
            "errors": errors,
        }
        if note is not None:
            payload["note"] = note
        print(json.dumps(payload, indent=2, ensure_ascii=False))
        return status
    if not rows and not errors:
        print(
            f"No MCP servers configured. Add one with pith mcp add, or edit {user_mcp_path(home)}."
        )
    for row in rows:
        print("\n".join(_row_lines(row)))
    for error in errors:
        print(f"config error: {error}")
    if note is not None:
        print(note)
    return status


def _row_lines(row: ServerRow) -> list[str]:
    state = row.state
    if state == "connected":
        state += f", {row.tool_count} tool{'' if row.tool_count == 1 else 's'}"
    lines = [
        f"{row.name}: {state} ({row.exposure}, {row.scope})",
        f"  {row.transport}: {row.target}",
        f"  from {row.source}",
    ]
    if row.override is not None:
        lines.append(f"  project override: {row.override}")
    for tool, exposure in row.tool_exposure:
        lines.append(f"  tool {tool}: {exposure}")
    if row.error is not None:
        lines.append(f"  error: {row.error}")
    elif row.enabled and row.state == "connecting":
        lines.append("  error: it did not finish connecting in time")
    if row.state != "connected" and row.stderr_tail:
        lines.append("  stderr:")
        lines += [f"    {line}" for line in row.stderr_tail.splitlines()[-5:]]
    return lines
