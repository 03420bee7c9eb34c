"""MCP servers' tools in front of the model, as a built-in extension.

- `session_start`: read `mcp.json` (the user's; a trusted project's too), report each problem
  once, start every enabled server in the background (`pith.mcp.McpManager`) and register
  `tool_search` when some server's tools are deferred. `--no-mcp` turns all of it off.
- Whenever a server connects or changes its tool list, its tools are registered: `direct`
  ones active, `deferred` ones switched off until `tool_search` declares them, `hidden` ones
  not at all.
- `before_agent_start`: wait (at most `DIRECT_WAIT` seconds) for the servers whose tools are
  declared directly, since the request must carry them; a server that is still not there is
  reported once and the prompt goes on without it.
- `session_start` / `session_tree`: the tools `tool_search` loaded on this branch
  (`_loaded`) are declared again.
- `session_shutdown`: every server is stopped; no server process outlives pith.
- `context:report` on the event bus (before `pith context` builds its report): wait for every
  server (bounded), so each tool's cost, deferred ones too, can be shown.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pith.agent import AbortSignal, ToolResult, error_result
from pith.ext.mcp._limits import DIRECT_WAIT
from pith.ext.mcp._loaded import LOADED_TYPE, loaded_entry_data, loaded_on_branch
from pith.ext.mcp._resources_tool import (
    resource_exposure,
    resources_candidate,
    resources_tool_definition,
)
from pith.ext.mcp._surface import McpSurface
from pith.ext.mcp._tool_defs import mcp_tool_definition
from pith.ext.mcp._tool_search import search_tool_definition
from pith.extensions import ExtensionAPI, ExtensionContext

if TYPE_CHECKING:
    from pith.mcp import McpConfig, McpManager, McpTool

__all__ = ["DIRECT_WAIT", "ROOTS_CHANNEL", "McpTools", "register"]

REPORT_CHANNEL = "context:report"
"""The bus message `pith context` (and `/context`) sends before building its report: every
server gets its chance to connect, so the report shows each tool's cost."""

ROOTS_CHANNEL = "mcp:roots"
"""Sent on the bus the first time a server asks for its roots, with
`{"server": name, "roots": [absolute folder, ...]}`: a handler (the permission system)
removes from `roots` what may not be offered; what is left is the server's answer."""


class McpTools:
    """The extension's state: the manager, the tools registered so far, what is loaded."""

    def __init__(self, api: ExtensionAPI) -> None:
        self._api = api
        self._config: McpConfig | None = None
        self._manager: McpManager | None = None
        self._registered: dict[str, McpTool] = {}
        self._loaded: list[str] = []
        self._reported: set[str] = set()
        self._resources: str | None = None
        """How `mcp_resources` was registered (`direct`, `deferred`), None: not yet."""
        self._has_resources: dict[str, bool] = {}
        """Servers asked whether they list any resource (the SDK's servers all claim the
        capability), by name."""
        self._probes: set[asyncio.Task[None]] = set()
        self.listeners: list[Callable[[str], None]] = []
        """Called with a server's name whenever it connects or changes what it offers."""

    @property
    def manager(self) -> McpManager | None:
        return self._manager

    @property
    def config(self) -> McpConfig | None:
        return self._config

    @property
    def loaded(self) -> list[str]:
        return list(self._loaded)

    def replace_config(self, config: McpConfig) -> None:
        """Use `config` from now on (a server was enabled or disabled by `/mcp`)."""
        self._config = config

    def ensure_manager(self) -> McpManager | None:
        """The manager, made now when no server was enabled at start (None without config)."""
        from pith.mcp import McpManager

        if self._manager is None and self._config is not None and self._api.agent_dir:
            self._manager = McpManager(
                self._config.servers,
                agent_dir=self._api.agent_dir,
                cwd=Path(self._api.cwd),
                on_change=self._changed,
                judge_roots=self._judge_roots,
            )
        return self._manager

    async def _judge_roots(self, server: str, wanted: Sequence[Path]) -> list[Path]:
        """The folders server `server` may have as roots: what the bus's handlers leave."""
        request: dict[str, object] = {"server": server, "roots": [str(path) for path in wanted]}
        await self._api.events.emit(ROOTS_CHANNEL, request)
        left = request.get("roots")
        kept = {item for item in left if isinstance(item, str)} if isinstance(left, list) else set()
        return [path for path in wanted if str(path) in kept]

    async def ready_manager(self) -> McpManager | None:
        """The manager once every server had its chance to connect (at most `DIRECT_WAIT`)."""
        manager = self._manager
        if manager is not None:
            await manager.wait_for(None, DIRECT_WAIT)
            await self._probe_resources()
            self._sync()
        return manager

    # --- lifecycle ----------------------------------------------------------------------------

    def start(self, ctx: ExtensionContext) -> None:
        agent_dir, cwd = self._api.agent_dir, Path(ctx.cwd)
        if agent_dir is None:
            return
        trusted = ctx.is_project_trusted()
        if not _any_config(agent_dir, cwd, trusted=trusted):
            return  # nothing to read: pith.mcp is not even imported (start-up time)
        from pith.mcp import load_mcp_config

        config = load_mcp_config(agent_dir, cwd, trusted=trusted)
        self._config = config
        for problem in config.problems:
            self._report(problem.line(), ctx)
        servers = {name: server for name, server in config.servers.items() if server.enabled}
        if not servers:
            return
        from pith.mcp import McpManager  # the SDK loads here, only when a server is enabled

        self._manager = McpManager(
            config.servers,
            agent_dir=agent_dir,
            cwd=cwd,
            on_change=self._changed,
            judge_roots=self._judge_roots,
        )
        self._manager.start()
        searched = {
            name: server.description or ""
            for name, server in servers.items()
            if server.exposure == "deferred"
            or any(exposure == "deferred" for _, exposure in server.tool_exposure)
        }
        if searched:
            self._api.register_tool(search_tool_definition(self, searched))
        self.restore(ctx)

    async def stop(self) -> None:
        for probe in list(self._probes):
            probe.cancel()
        manager, self._manager = self._manager, None
        if manager is not None:
            await manager.close()

    def restore(self, ctx: ExtensionContext) -> None:
        """Declare again what `tool_search` loaded on the current branch (and only that)."""
        branch = ctx.session.get_branch() if ctx.session is not None else []
        before = set(self._loaded)
        self._loaded = loaded_on_branch(branch)
        self._sync()
        active = [name for name in self._api.get_active_tools() if name not in before]
        wanted = [name for name in self._loaded if name in self._registered]
        self._api.set_active_tools(active + [name for name in wanted if name not in active])

    async def before_run(self, ctx: ExtensionContext) -> None:
        manager = self._manager
        if manager is None:
            return
        direct = self._direct_servers() + self._servers_of(self._loaded)
        if direct:
            await manager.wait_for(direct, DIRECT_WAIT)
        await self._probe_resources()
        self._sync()
        for state in manager.states():
            if state.status in ("failed", "needs-auth", "connecting") and state.name in direct:
                detail = state.error or "still connecting"
                self._report(f"MCP server {state.name!r} is not available: {detail}", ctx)

    # --- tools --------------------------------------------------------------------------------

    def _direct_servers(self) -> list[str]:
        if self._config is None:
            return []
        return [
            name
            for name, server in self._config.servers.items()
            if server.enabled
            and (
                server.exposure == "direct"
                or any(exposure == "direct" for _, exposure in server.tool_exposure)
            )
        ]

    def _servers_of(self, names: list[str]) -> list[str]:
        """The configured servers whose tools some of `names` are (by the name's prefix)."""
        from pith.mcp import tool_name

        if self._config is None:
            return []
        found = []
        for server in self._config.servers:
            prefix = tool_name(server, "")
            if any(name.startswith(prefix) for name in names):
                found.append(server)
        return found

    def _changed(self, server: str) -> None:
        self._sync()
        if self._resources is None and server not in self._has_resources:
            probe = asyncio.get_running_loop().create_task(self._probe_resources())
            self._probes.add(probe)
            probe.add_done_callback(self._probes.discard)
        for listener in list(self.listeners):
            listener(server)

    def _sync(self) -> None:
        """Register the tools of connected servers that are not registered yet."""
        manager = self._manager
        if manager is None:
            return
        added: list[str] = []
        for tool in manager.tools():
            if tool.exposure == "hidden" or tool.full_name in self._registered:
                continue
            active = tool.exposure == "direct" or tool.full_name in self._loaded
            self._api.register_tool(mcp_tool_definition(tool, self, active=active))
            self._registered[tool.full_name] = tool
            if active:
                added.append(tool.full_name)
        if self._resources is None:
            added.extend(self._register_resources(manager))
        if added:
            active_now = self._api.get_active_tools()
            missing = [name for name in added if name not in active_now]
            if missing:
                self._api.set_active_tools(active_now + missing)

    async def _probe_resources(self) -> None:
        """Ask each connected server not asked yet whether it lists any resource or template."""
        manager = self._manager
        if manager is None or self._resources is not None:
            return
        for state in manager.states():
            name = state.name
            if name in self._has_resources or not manager.offers(name, "resources"):
                continue
            page = await manager.list_resources(name)
            self._has_resources[name] = bool(page.resources or page.templates)
        self._sync()

    def _register_resources(self, manager: McpManager) -> list[str]:
        """Register `mcp_resources` once a connected server offers resources; its name when
        it is declared directly (or `tool_search` declared it on this branch)."""
        from pith.mcp import RESOURCE_TOOL

        config = self._config
        if config is None:
            return []
        offering = [
            server
            for name, server in config.servers.items()
            if server.enabled
            and self._has_resources.get(name)
            and manager.offers(name, "resources")
        ]
        exposure = resource_exposure(offering)
        if exposure is None:
            return []
        self._resources = exposure
        active = exposure == "direct" or RESOURCE_TOOL in self._loaded
        self._api.register_tool(resources_tool_definition(self, active=active))
        first = next(s.name for s in offering if s.exposure == exposure)
        self._registered[RESOURCE_TOOL] = resources_candidate(first)
        return [RESOURCE_TOOL] if active else []

    async def before_report(self) -> None:
        """Wait (at most `DIRECT_WAIT` seconds) for every server, and register its tools."""
        manager = self._manager
        if manager is None:
            return
        await manager.wait_for(None, DIRECT_WAIT)
        await self._probe_resources()
        self._sync()

    async def searchable(self) -> list[McpTool]:
        """The deferred tools not declared yet, once every server had its chance to connect."""
        manager = self._manager
        if manager is None:
            return []
        await manager.wait_for(None, DIRECT_WAIT)
        await self._probe_resources()
        self._sync()
        loaded = set(self._loaded)
        found = [
            t
            for t in manager.tools()
            if t.exposure == "deferred"
            and t.full_name not in loaded
            and self._api.is_tool_allowed(t.full_name)
        ]
        resources = self._registered.get(_resource_tool())
        deferred = self._resources == "deferred" and resources is not None
        if deferred and resources is not None and resources.full_name not in loaded:
            found.append(resources)
        return found

    # --- /mcp enable, disable ------------------------------------------------------------------

    async def disable_server(self, name: str) -> None:
        """Stop `name` and take its tools out of the active set."""
        manager, config = self._manager, self._config
        if manager is None or config is None or name not in config.servers:
            return
        await manager.disable(name, config.servers[name])
        mine = {full for full, tool in self._registered.items() if tool.server == name}
        mine.discard(_resource_tool())
        active = self._api.get_active_tools()
        self._api.set_active_tools([tool for tool in active if tool not in mine])

    async def enable_server(self, name: str) -> None:
        """Connect `name` and declare again its tools that are direct or were loaded."""
        manager, config = self.ensure_manager(), self._config
        if manager is None or config is None or name not in config.servers:
            return
        await manager.enable(name, config.servers[name])
        self._sync()
        wanted = [
            full
            for full, tool in self._registered.items()
            if tool.server == name
            and full != _resource_tool()
            and (tool.exposure == "direct" or full in self._loaded)
        ]
        active = self._api.get_active_tools()
        self._api.set_active_tools(active + [tool for tool in wanted if tool not in active])

    def summaries(self) -> dict[str, str]:
        from pith.mcp import server_summary

        manager, config = self._manager, self._config
        if manager is None or config is None:
            return {}
        instructions = manager.instructions()
        return {
            name: server_summary(server.description, instructions.get(name))
            for name, server in config.servers.items()
        }

    def load(self, names: list[str]) -> list[str]:
        """Declare `names` from the next request on and record them on this branch."""
        self._sync()
        new = [
            n
            for n in names
            if n in self._registered and n not in self._loaded and self._api.is_tool_allowed(n)
        ]
        if not new:
            return []
        self._loaded.extend(new)
        self._api.append_entry(LOADED_TYPE, loaded_entry_data(new))
        active = self._api.get_active_tools()
        self._api.set_active_tools(active + [name for name in new if name not in active])
        return new

    async def call(
        self,
        tool: McpTool,
        arguments: dict[str, Any],
        signal: AbortSignal,
        on_progress: Callable[[str], None] | None,
    ) -> ToolResult:
        manager = self._manager
        if manager is None:
            return error_result("MCP is off for this session (pith was started with --no-mcp).")
        await manager.wait_for([tool.server], self._timeout(tool.server))

        def progress(done: float, total: float | None, message: str | None) -> None:
            if on_progress is not None:
                share = f"{done:g}/{total:g}" if total else f"{done:g}"
                on_progress(f"{tool.server}: {message or 'working'} ({share})")

        result = await manager.call_tool(
            tool.full_name, arguments, signal=signal, on_progress=progress
        )
        return ToolResult(
            content=list(result.content), details=dict(result.details), is_error=result.is_error
        )

    def _timeout(self, server: str) -> float:
        config = self._config.servers.get(server) if self._config is not None else None
        return config.timeout if config is not None else 60.0

    def _report(self, line: str, ctx: ExtensionContext) -> None:
        if line in self._reported:
            return
        self._reported.add(line)
        ctx.ui.notify(line, "warning")


def _resource_tool() -> str:
    from pith.mcp import RESOURCE_TOOL

    return RESOURCE_TOOL


def _any_config(agent_dir: Path, cwd: Path, *, trusted: bool) -> bool:
    """Whether an `mcp.json` pith would read exists (the same two places `pith.mcp` reads)."""
    if (agent_dir / "mcp.json").exists():
        return True
    return trusted and (cwd / ".pith" / "mcp.json").exists()


def register(api: ExtensionAPI) -> None:
    """Load MCP support (the `pith.extensions` entry point `mcp`)."""
    tools = McpTools(api)
    surface = McpSurface(api, tools)
    api.register_flag("no-mcp", description="do not connect MCP servers for this run")
    surface.register_command()

    async def on_start(event: object, ctx: ExtensionContext) -> None:
        if api.get_flag("no-mcp") is True:
            return
        if tools.config is None:
            tools.start(ctx)
            await surface.start(ctx)
        else:
            tools.restore(ctx)

    async def on_tree(event: object, ctx: ExtensionContext) -> None:
        tools.restore(ctx)

    async def on_before(event: object, ctx: ExtensionContext) -> None:
        await tools.before_run(ctx)

    async def on_shutdown(event: object, ctx: ExtensionContext) -> None:
        reason = getattr(event, "reason", "quit")
        if reason in ("quit", "reload"):
            await surface.stop()
            await tools.stop()

    async def on_report(data: object) -> None:
        await tools.before_report()

    api.events.on(REPORT_CHANNEL, on_report)
    api.on("session_start", on_start)
    api.on("session_tree", on_tree)
    api.on("before_agent_start", on_before)
    api.on("session_shutdown", on_shutdown)
    api.on("input", surface.on_input)
