"""Every configured server of a session: connected in the background, called by full tool name.

`start()` connects each enabled server concurrently in tasks of the running loop; nothing waits
for them unless asked (`wait_for`). A server that fails is one state with one line; the others
are not affected. A server that was connected and went away (it crashed, or hung and was
stopped) reconnects on the next call to one of its tools. `close()` stops every server; the
stdio transport's `atexit` net kills what a crash of pith itself would leave behind.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.client.session import ClientSession

from pith.agent import AbortSignal
from pith.mcp._connection import CallFailed, Connection, ProgressCallback
from pith.mcp._exposure import tool_exposure
from pith.mcp._listings import (
    McpPrompt,
    McpPromptMessage,
    McpPromptResult,
    McpResource,
    McpResourceTemplate,
    PromptArgument,
    ResourcePage,
)
from pith.mcp._naming import tool_names
from pith.mcp._results import (
    McpCallResult,
    convert_blocks,
    convert_contents,
    convert_result,
    error_result,
)
from pith.mcp._roots import RootsJudge, offered_roots, root_list, wanted_roots
from pith.mcp._types import McpTool, ServerConfig, ServerState

__all__ = ["McpManager"]

MAX_RESOURCES = 1000
"""Resources listed at most when every server is asked at once."""


class McpManager:
    """The connections of one session, by server name (see the module docstring)."""

    def __init__(
        self,
        servers: Mapping[str, ServerConfig],
        *,
        agent_dir: Path,
        cwd: Path,
        on_change: Callable[[str], None] | None = None,
        judge_roots: RootsJudge | None = None,
        home: str | None = None,
    ) -> None:
        self._on_change = on_change
        self._cwd = cwd
        self._home = home if home is not None else os.path.expanduser("~")
        self._judge_roots = judge_roots
        self._roots: dict[str, asyncio.Task[list[Path]]] = {}
        self._connections = {
            name: Connection(
                config,
                agent_dir=agent_dir,
                cwd=cwd,
                on_change=self._changed_callback(name),
                roots=self._roots_callback(name, config),
            )
            for name, config in servers.items()
        }

    def _roots_callback(
        self, name: str, config: ServerConfig
    ) -> Callable[[], Awaitable[types.ListRootsResult]]:
        async def roots() -> types.ListRootsResult:
            return root_list(await self.roots_of(name, config))

        return roots

    async def roots_of(self, name: str, config: ServerConfig) -> list[Path]:
        """The folders offered to server `name`: judged the first time it asks, the same
        answer for the rest of the session (reconnections included)."""
        task = self._roots.get(name)
        if task is None:
            wanted = wanted_roots(config.roots, self._cwd, self._home)
            task = asyncio.get_running_loop().create_task(
                offered_roots(name, wanted, self._judge_roots, self._cwd)
            )
            self._roots[name] = task
        return await asyncio.shield(task)

    def _changed_callback(self, name: str) -> Callable[[], None]:
        def changed() -> None:
            if self._on_change is not None:
                self._on_change(name)

        return changed

    # -- life cycle ----------------------------------------------------------------------

    def start(self) -> None:
        """Connect every enabled server in the background (needs a running event loop)."""
        for connection in self._connections.values():
            if connection.config.enabled and not connection.running:
                connection.start()

    async def wait_for(self, names: Iterable[str] | None, timeout: float) -> None:
        """Wait until the named servers (None: all) are connected or failed, at most `timeout`
        seconds; never raises on timeout — `states()` tells who is still connecting."""
        wanted = self._connections.keys() if names is None else names
        waiters = [
            asyncio.ensure_future(self._connections[name].wait_ready())
            for name in wanted
            if name in self._connections and self._connections[name].running
        ]
        if not waiters:
            return
        _, pending = await asyncio.wait(waiters, timeout=timeout)
        for waiter in pending:
            waiter.cancel()

    async def reconnect(self, name: str) -> None:
        """Stop the server if it runs, then connect it again and wait for the outcome."""
        connection = self._connections[name]
        await connection.stop()
        connection.start()
        await asyncio.wait(
            [asyncio.ensure_future(connection.wait_ready())], timeout=connection.connect_seconds
        )

    async def disable(self, name: str, config: ServerConfig) -> None:
        """Stop `name` for good (its config now says `enabled: false`): no call reconnects it."""
        connection = self._connections[name]
        connection.config = config
        await connection.stop(status="disabled")

    async def enable(self, name: str, config: ServerConfig) -> None:
        """Connect `name` with its new (enabled) `config` and wait for the outcome."""
        self._connections[name].config = config
        await self.reconnect(name)

    async def close(self) -> None:
        """Stop every server: stdin closed, then SIGTERM and SIGKILL to each process group."""
        await asyncio.gather(*(connection.stop() for connection in self._connections.values()))

    # -- what the session sees -----------------------------------------------------------

    def states(self) -> list[ServerState]:
        return [connection.state() for connection in self._connections.values()]

    def offers(self, server: str, what: str) -> bool:
        """Whether `server` is connected and said it has `what` (`resources`, `prompts`)."""
        connection = self._connections.get(server)
        return (
            connection is not None and connection.status == "connected" and connection.offers(what)
        )

    def instructions(self) -> dict[str, str]:
        """Each connected server's `instructions`, by server name."""
        return {
            name: connection.instructions
            for name, connection in self._connections.items()
            if connection.status == "connected" and connection.instructions
        }

    def tools(self) -> list[McpTool]:
        """The tools of connected servers, named for the model, each with its exposure."""
        found: list[McpTool] = []
        for name, connection in self._connections.items():
            if connection.status != "connected":
                continue
            names = tool_names(name, [tool.name for tool in connection.tools])
            for tool in connection.tools:
                annotations = (
                    tool.annotations.model_dump(by_alias=True, exclude_none=True)
                    if tool.annotations
                    else {}
                )
                found.append(
                    McpTool(
                        server=name,
                        name=tool.name,
                        full_name=names[tool.name],
                        description=tool.description or "",
                        input_schema=tool.input_schema,
                        exposure=tool_exposure(connection.config, tool.name),
                        annotations=annotations,
                    )
                )
        return found

    def _find_tool(self, full_name: str) -> tuple[Connection, str] | None:
        for name, connection in self._connections.items():
            names = tool_names(name, [tool.name for tool in connection.tools])
            for tool, full in names.items():
                if full == full_name:
                    return connection, tool
        return None

    async def _connected(self, connection: Connection) -> str | None:
        """Make sure `connection` is up (reconnecting a server that went away); the reason
        when it cannot be."""
        if connection.status == "connected" and connection.running:
            return None
        if not connection.config.enabled:
            return f"MCP server {connection.config.name!r} is disabled"
        if not connection.running:
            connection.start()
        await asyncio.wait(
            [asyncio.ensure_future(connection.wait_ready())], timeout=connection.connect_seconds
        )
        if connection.status == "connected":
            return None
        return connection.error or f"MCP server {connection.config.name!r} is still connecting"

    # -- calls ---------------------------------------------------------------------------

    async def call_tool(
        self,
        full_name: str,
        arguments: dict[str, Any],
        *,
        signal: AbortSignal | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> McpCallResult:
        """Call a tool by its `mcp__server__tool` name; every failure is an error result."""
        found = self._find_tool(full_name)
        if found is None:
            return error_result(f"No MCP tool is named {full_name!r}", tool=full_name)
        connection, tool = found
        server = connection.config.name
        if signal is not None and signal.aborted:
            return error_result(
                f"The call to {full_name} was cancelled", server=server, tool=tool, reason="aborted"
            )
        problem = await self._connected(connection)
        if problem is not None:
            return error_result(problem, server=server, tool=tool, reason="unavailable")

        async def run(session: ClientSession, progress: Any) -> types.CallToolResult:
            return await session.call_tool(tool, arguments, progress_callback=progress)

        try:
            result = await connection.request(run, signal=signal, on_progress=on_progress)
        except CallFailed as failed:
            return error_result(str(failed), server=server, tool=tool, reason=failed.kind)
        except Exception as exc:
            return error_result(
                _unreadable(server, "tools/call", exc), server=server, tool=tool, reason="malformed"
            )
        return convert_result(result, server=server, tool=tool)

    async def list_resources(
        self, server: str | None = None, cursor: str | None = None
    ) -> ResourcePage:
        """One page of `server`'s resources from `cursor` (templates on the first page), or,
        with `server` None, every connected server's resources (up to `MAX_RESOURCES`)."""
        if server is None:
            return await self._all_resources()
        connection = self._connections.get(server)
        if connection is None:
            return ResourcePage(problems=(f"No MCP server is named {server!r}",))
        problem = await self._connected(connection)
        if problem is not None:
            return ResourcePage(problems=(problem,))
        try:
            return await self._resource_page(connection, cursor)
        except (CallFailed, Exception) as exc:
            return ResourcePage(problems=(_failure(server, "resources/list", exc),))

    async def _all_resources(self) -> ResourcePage:
        resources: list[McpResource] = []
        templates: list[McpResourceTemplate] = []
        problems: list[str] = []
        for name, connection in self._connections.items():
            if connection.status != "connected" or not _offers(connection, "resources"):
                continue
            cursor: str | None = None
            first = True
            while (first or cursor) and len(resources) < MAX_RESOURCES:
                first = False
                try:
                    page = await self._resource_page(connection, cursor)
                except (CallFailed, Exception) as exc:
                    problems.append(_failure(name, "resources/list", exc))
                    break
                resources.extend(page.resources)
                templates.extend(page.templates)
                cursor = page.next_cursor
        return ResourcePage(
            tuple(resources[:MAX_RESOURCES]), tuple(templates), None, tuple(problems)
        )

    async def _resource_page(self, connection: Connection, cursor: str | None) -> ResourcePage:
        name = connection.config.name
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None

        async def listing(session: ClientSession, _: Any) -> types.ListResourcesResult:
            return await session.list_resources(params=params)

        async def template_listing(
            session: ClientSession, _: Any
        ) -> types.ListResourceTemplatesResult:
            return await session.list_resource_templates()

        page = await connection.request(listing)
        templates: tuple[McpResourceTemplate, ...] = ()
        if cursor is None:
            try:
                found = await connection.request(template_listing)
            except CallFailed:
                found = None
            if found is not None:
                templates = tuple(
                    McpResourceTemplate(name, t.uri_template, t.name, t.description, t.mime_type)
                    for t in found.resource_templates
                )
        resources = tuple(
            McpResource(name, str(r.uri), r.name, r.description, r.mime_type, r.size)
            for r in page.resources
        )
        return ResourcePage(resources, templates, page.next_cursor)

    async def read_resource(self, server: str, uri: str) -> McpCallResult:
        """A resource's contents as model content (text capped, binary saved to a file)."""
        connection = self._connections.get(server)
        if connection is None:
            return error_result(f"No MCP server is named {server!r}", server=server, uri=uri)
        problem = await self._connected(connection)
        if problem is not None:
            return error_result(problem, server=server, uri=uri, reason="unavailable")

        async def run(session: ClientSession, _: Any) -> types.ReadResourceResult:
            return await session.read_resource(uri)

        try:
            result = await connection.request(run)
        except (CallFailed, Exception) as exc:
            return error_result(_failure(server, "resources/read", exc), server=server, uri=uri)
        return convert_contents(result.contents, server=server, uri=uri)

    async def list_prompts(self, server: str | None = None) -> list[McpPrompt]:
        """Every connected server's prompts, or only `server`'s (a server that cannot list
        them is skipped)."""
        prompts: list[McpPrompt] = []
        for name, connection in self._connections.items():
            if connection.status != "connected" or not _offers(connection, "prompts"):
                continue
            if server is not None and name != server:
                continue

            async def run(session: ClientSession, _: Any) -> types.ListPromptsResult:
                return await session.list_prompts()

            try:
                listing = await connection.request(run)
            except (CallFailed, Exception):
                continue
            for prompt in listing.prompts:
                arguments = tuple(
                    PromptArgument(a.name, a.description, bool(a.required))
                    for a in prompt.arguments or ()
                )
                prompts.append(McpPrompt(name, prompt.name, prompt.description, arguments))
        return prompts

    async def get_prompt(
        self, server: str, name: str, arguments: Mapping[str, str] | None = None
    ) -> McpPromptResult:
        """A prompt's messages; raises `ValueError` with one line when it cannot be had."""
        connection = self._connections.get(server)
        if connection is None:
            raise ValueError(f"No MCP server is named {server!r}")
        problem = await self._connected(connection)
        if problem is not None:
            raise ValueError(problem)

        async def run(session: ClientSession, _: Any) -> types.GetPromptResult:
            return await session.get_prompt(name, dict(arguments or {}))

        try:
            result = await connection.request(run)
        except (CallFailed, Exception) as exc:
            raise ValueError(_failure(server, "prompts/get", exc)) from None
        messages = tuple(
            McpPromptMessage(message.role, convert_blocks([message.content], server=server))
            for message in result.messages
        )
        return McpPromptResult(server, name, result.description, messages)


def _offers(connection: Connection, what: str) -> bool:
    return connection.offers(what)


def _failure(server: str, method: str, exc: BaseException) -> str:
    if isinstance(exc, CallFailed):
        return str(exc)
    return _unreadable(server, method, exc)


def _unreadable(server: str, method: str, exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"MCP server {server!r} answered {method} with something pith cannot use: {text[:300]}"
