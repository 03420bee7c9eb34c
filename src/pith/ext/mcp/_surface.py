"""What the user reaches of MCP directly: prompt commands, `/mcp`, and `@server:uri` words.

- Prompt commands (`_prompts`): registered at start from what each server offered last time
  (`_prompt_cache`), and whenever a server connects or says its prompts changed.
- `/mcp` (`_status`): the servers, one server's tools, reconnecting, enabling and disabling
  (saved to the file that defines the server, or with `--project` to a trusted project's
  `mcp.json` as an override), applied at once.
- `input`: `@server:uri` words get the resource's contents appended (`_attach`).

What a command shows is a notice: in the terminal UI it appears in the transcript, in a print
run on standard error.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pith.ai import ImageContent, TextContent
from pith.ext.mcp._attach import find_resource_words, resource_block
from pith.ext.mcp._limits import DIRECT_WAIT
from pith.ext.mcp._prompt_cache import read_prompt_cache, write_prompt_cache
from pith.ext.mcp._prompts import (
    argument_completions,
    parse_prompt_arguments,
    prompt_command_name,
    prompt_text,
)
from pith.ext.mcp._status import MCP_USAGE, NO_SERVERS, server_report, tools_report
from pith.extensions import ExtensionAPI, ExtensionContext, InputResult
from pith.extensions.events import Input

if TYPE_CHECKING:
    from pith.mcp import McpConfig, McpManager, McpPrompt


class ToolsHost(Protocol):
    """What the surface needs of the extension's tool side (`McpTools`)."""

    listeners: list[Callable[[str], None]]

    @property
    def config(self) -> McpConfig | None: ...

    @property
    def manager(self) -> McpManager | None: ...

    @property
    def loaded(self) -> list[str]: ...

    async def ready_manager(self) -> McpManager | None: ...

    def replace_config(self, config: McpConfig) -> None: ...

    async def enable_server(self, name: str) -> None: ...

    async def disable_server(self, name: str) -> None: ...


__all__ = ["McpSurface", "ToolsHost"]

_ACTIONS = ("tools", "reconnect", "enable", "disable")
_ATTACHED_FROM = ("interactive", "print", "rpc")


class McpSurface:
    """Prompt commands, `/mcp` and resource attachments over one `McpTools`."""

    def __init__(self, api: ExtensionAPI, tools: ToolsHost) -> None:
        self._api = api
        self._tools = tools
        self._prompts: dict[str, McpPrompt] = {}
        """Each prompt command's current prompt, by command name."""
        self._tasks: set[asyncio.Task[None]] = set()
        tools.listeners.append(self._changed)

    # --- prompts --------------------------------------------------------------------------------

    async def start(self, ctx: ExtensionContext) -> None:
        """Register the cached prompt commands; a print run waits for servers never seen."""
        config, agent_dir = self._tools.config, self._api.agent_dir
        if config is None or agent_dir is None:
            return
        cache = read_prompt_cache(agent_dir)
        enabled = [name for name, server in config.servers.items() if server.enabled]
        for name in enabled:
            self._offer(cache.get(name, []))
        manager = self._tools.manager
        unseen = [name for name in enabled if name not in cache]
        if manager is not None and unseen and ctx.mode in ("print", "json"):
            await manager.wait_for(unseen, DIRECT_WAIT)
            for name in unseen:
                await self.refresh(name)

    def _changed(self, server: str) -> None:
        try:
            task = asyncio.get_running_loop().create_task(self.refresh(server))
        except RuntimeError:  # no loop: nothing to refresh from
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def refresh(self, server: str) -> None:
        """List `server`'s prompts, remember them, register the commands new among them."""
        manager, config, agent_dir = self._tools.manager, self._tools.config, self._api.agent_dir
        if manager is None or config is None or agent_dir is None:
            return
        if not manager.offers(server, "prompts"):
            prompts: list[McpPrompt] = []
        else:
            prompts = await manager.list_prompts(server)
        write_prompt_cache(agent_dir, server, prompts, config.servers)
        self._offer(prompts)

    def _offer(self, prompts: Sequence[McpPrompt]) -> None:
        for prompt in prompts:
            name = prompt_command_name(prompt.server, prompt.name)
            known = name in self._prompts
            self._prompts[name] = prompt
            if not known:
                self._register_prompt(name, prompt)

    def _register_prompt(self, name: str, prompt: McpPrompt) -> None:
        async def run(args: str, ctx: ExtensionContext) -> None:
            await self._run_prompt(name, args, ctx)

        def complete(typed: str) -> list[str]:
            current = self._prompts.get(name, prompt)
            return argument_completions(typed, [a.name for a in current.arguments])

        what = prompt.description or f"the {prompt.name!r} prompt"
        self._api.register_command(
            name,
            run,
            description=f"{what} (MCP prompt of {prompt.server})",
            get_argument_completions=complete,
        )

    async def _run_prompt(self, name: str, args: str, ctx: ExtensionContext) -> None:
        prompt = self._prompts[name]
        parsed = parse_prompt_arguments(
            args,
            [a.name for a in prompt.arguments],
            [a.name for a in prompt.arguments if a.required],
            name,
        )
        if parsed.problem is not None:
            ctx.ui.notify(parsed.problem, "error")
            return
        manager = self._tools.manager
        if manager is None:
            ctx.ui.notify("MCP is off for this session; no prompt can be had", "error")
            return
        try:
            result = await manager.get_prompt(prompt.server, prompt.name, parsed.values)
        except ValueError as error:
            ctx.ui.notify(str(error), "error")
            return
        text, images = prompt_text([(m.role, m.content) for m in result.messages])
        if images:
            ctx.ui.notify(f"/{name}: {images} image(s) of the prompt were left out", "warning")
        if not text.strip():
            ctx.ui.notify(f"/{name}: the prompt has no text to send", "warning")
            return
        await self._api.send_user_message(text)

    # --- /mcp -----------------------------------------------------------------------------------

    def register_command(self) -> None:
        self._api.register_command(
            "mcp",
            self.command,
            description="MCP servers: list, tools NAME, reconnect NAME, enable/disable NAME",
            get_argument_completions=self._complete_command,
        )

    def _complete_command(self, typed: str) -> list[str]:
        words = typed.split(" ")
        if len(words) == 1:
            return [action for action in _ACTIONS if action.startswith(words[0])]
        config = self._tools.config
        names = list(config.servers) if config is not None else []
        head = " ".join(words[:-1])
        return [f"{head} {name}" for name in names if name.startswith(words[-1])]

    async def command(self, args: str, ctx: ExtensionContext) -> None:
        words = args.split()
        config = self._tools.config
        if config is None:
            if self._api.get_flag("no-mcp") is True:
                ctx.ui.notify("MCP is off for this session (--no-mcp)", "warning")
            else:
                ctx.ui.notify(NO_SERVERS)
            return
        if not words:
            manager = await self._tools.ready_manager()
            states = {s.name: s for s in manager.states()} if manager is not None else {}
            ctx.ui.notify(server_report(config, states))
            return
        action, rest = words[0], words[1:]
        project = "--project" in rest
        names = [word for word in rest if word != "--project"]
        if action not in _ACTIONS or len(names) != 1 or (project and action in _ACTIONS[:2]):
            ctx.ui.notify(MCP_USAGE, "error")
            return
        name = names[0]
        if name not in config.servers:
            known = ", ".join(config.servers) or "none"
            ctx.ui.notify(f"No MCP server is named {name!r} (configured: {known})", "error")
            return
        if action == "tools":
            manager = self._tools.manager
            if manager is not None:
                await manager.wait_for([name], DIRECT_WAIT)
            tools = manager.tools() if manager is not None else []
            ctx.ui.notify(tools_report(name, tools, self._tools.loaded))
        elif action == "reconnect":
            await self._reconnect(name, ctx)
        else:
            await self._set_enabled(name, action == "enable", project, ctx)

    async def _reconnect(self, name: str, ctx: ExtensionContext) -> None:
        config = self._tools.config
        manager = self._tools.manager
        if config is None or manager is None or not config.servers[name].enabled:
            ctx.ui.notify(f"MCP server {name!r} is disabled; /mcp enable {name} first", "error")
            return
        await manager.reconnect(name)
        state = next(s for s in manager.states() if s.name == name)
        if state.status == "connected":
            ctx.ui.notify(f"MCP server {name!r} reconnected ({state.tool_count} tools)")
        else:
            ctx.ui.notify(state.error or f"MCP server {name!r} is {state.status}", "error")

    async def _set_enabled(
        self, name: str, enabled: bool, project: bool, ctx: ExtensionContext
    ) -> None:
        from pith.mcp import McpFileError, load_mcp_config, project_mcp_path, set_server_fields

        config, agent_dir = self._tools.config, self._api.agent_dir
        if config is None or agent_dir is None:
            return
        server, cwd = config.servers[name], Path(ctx.cwd)
        trusted = ctx.is_project_trusted()
        path: Path | None
        if project:
            if not trusted:
                ctx.ui.notify("--project writes the project's mcp.json; trust it first", "error")
                return
            path = project_mcp_path(cwd)
            override = server.source != path
        else:
            path = server.override or server.source
            override = server.override is not None
        if path is None:
            ctx.ui.notify(f"MCP server {name!r} was registered by code; no file", "error")
            return
        try:
            set_server_fields(path, name, enabled=enabled, override=override)
        except McpFileError as error:
            ctx.ui.notify(str(error), "error")
            return
        self._tools.replace_config(load_mcp_config(agent_dir, cwd, trusted=trusted))
        now = self._tools.config.servers.get(name) if self._tools.config is not None else None
        word = "enabled" if enabled else "disabled"
        if now is None or now.enabled != enabled:
            decides = (now.override or now.source) if now is not None else None
            ctx.ui.notify(f"saved to {path}, but {decides} keeps {name!r} as it was", "warning")
            return
        if enabled:
            await self._tools.enable_server(name)
        else:
            await self._tools.disable_server(name)
        ctx.ui.notify(f"MCP server {name!r} {word} (saved to {path})")

    # --- @server:uri ----------------------------------------------------------------------------

    async def on_input(self, event: Input, ctx: ExtensionContext) -> InputResult | None:
        config, manager = self._tools.config, self._tools.manager
        if config is None or manager is None or event.source not in _ATTACHED_FROM:
            return None
        enabled = [name for name, server in config.servers.items() if server.enabled]
        words = find_resource_words(event.text, enabled)
        if not words:
            return None
        blocks: list[str] = []
        images: list[ImageContent] = list(event.images)
        for word in words:
            result = await manager.read_resource(word.server, word.uri)
            if result.is_error:
                ctx.ui.notify(f"@{word.server}:{word.uri} not attached: {result.text()}", "warning")
                continue
            text = "\n".join(b.text for b in result.content if isinstance(b, TextContent))
            images.extend(b for b in result.content if isinstance(b, ImageContent))
            blocks.append(resource_block(word.server, word.uri, text))
        if not blocks and len(images) == len(event.images):
            return None
        text = event.text + ("\n\n" + "".join(blocks) if blocks else "")
        return InputResult("transform", text, images)

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
