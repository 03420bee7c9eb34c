"""`api`: what an extension's `register(api)` receives, and keeps for later."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pith.ai import CustomMessage, UserContent, convert
from pith.extensions._exec import DEFAULT_MAX_BUFFER, ExecResult, run_program
from pith.extensions._host import DeliverAs, ExtensionHost, NotAvailableError
from pith.extensions._owner import ExtensionOwner
from pith.extensions._registry import Command, Completions, Extension, Flag, OwnedBus, Shortcut
from pith.extensions._registry import unique_command_name as _unique
from pith.extensions._subscribe import EventSubscriptions
from pith.extensions._tools import ToolDefinition, ToolInfo, as_tool

if TYPE_CHECKING:
    from pith.agent import AbortSignal, Tool
    from pith.ai import Model, ThinkingLevel
    from pith.extensions._context import ExtensionContext

__all__ = ["ExtensionAPI"]


class ExtensionAPI(EventSubscriptions):
    """One extension's door into pith, the same for pith's own and everyone else's.
    Registrations work at any time; actions that need a running conversation (`send_message`,
    `set_model`, ...) work from handlers and commands. `on` (typed per event) comes from
    `EventSubscriptions`."""

    def __init__(self, runner: ExtensionOwner, extension: Extension) -> None:
        self._runner = runner
        self._extension = extension

    @property
    def name(self) -> str:
        """This extension's name (its entry point, file or folder name)."""
        return self._extension.name

    @property
    def cwd(self) -> str:
        return self._runner.cwd

    @property
    def agent_dir(self) -> Path | None:
        """pith's agent directory (`~/.pith/agent`, or `$PITH_AGENT_DIR`): settings, sessions,
        logs. None only in bare test set-ups."""
        return self._runner.agent_dir

    @property
    def events(self) -> OwnedBus:
        """A bus shared by all extensions: `api.events.on(channel, fn)`, `await emit(...)`."""
        return OwnedBus(self._runner.events, self._extension.name)

    @property
    def context(self) -> ExtensionContext:
        """This extension's `ctx`, for code that runs outside a handler."""
        return self._runner.context_for(self._extension)

    def _host(self) -> ExtensionHost:
        host = self._runner.host
        if host is None:
            raise NotAvailableError(
                f"{self._extension.name}: pith has not started yet; do this from an event "
                "handler (session_start, say) or a command"
            )
        return host

    # --- registrations ----------------------------------------------------------------------

    def register_tool(self, tool: ToolDefinition | Tool) -> None:
        """Add a tool for the model; one with a built-in's name replaces the built-in."""
        adapted = as_tool(tool, self.context)
        self._runner.add_tool(self._extension, adapted)
        if self._runner.host is not None:
            self._runner.host.tools_changed()

    def register_command(
        self,
        name: str,
        handler: Callable[[str, ExtensionContext], Awaitable[None] | None],
        *,
        description: str = "",
        get_argument_completions: Completions | None = None,
        needs_ui: bool = False,
    ) -> str:
        """Add `/name`; `handler(args, ctx)` runs when the user types it. Returns the name it
        got: `name:1`, `name:2`, ... when another extension took `name` first. `needs_ui`: the
        command cannot do without asking (`ctx.ui.select` ...), so print and JSON runs refuse it
        instead of running it with no one to answer."""
        clean = name.removeprefix("/").strip()
        if not clean or " " in clean:
            raise ValueError(f"command names are one word, got {name!r}")
        final = _unique(clean, set(self._runner.commands))
        self._runner.commands[final] = Command(
            final,
            handler,
            description,
            get_argument_completions,
            self._extension.name,
            needs_ui=needs_ui,
        )
        return final

    def register_flag(
        self,
        name: str,
        *,
        description: str = "",
        type: Literal["boolean", "string"] = "boolean",
        default: bool | str | None = None,
    ) -> None:
        """Accept `--name` on pith's command line; read it with `get_flag(name)`."""
        clean = name.removeprefix("--")
        if clean in self._runner.flags:
            owner = self._runner.flags[clean].extension
            raise ValueError(f"flag --{clean} is already registered by {owner}")
        self._runner.flags[clean] = Flag(clean, description, type, default, self._extension.name)
        self._runner.flag_values.setdefault(clean, default)

    def get_flag(self, name: str) -> bool | str | None:
        """The value of a flag this or another extension registered (its default if unset)."""
        clean = name.removeprefix("--")
        if clean not in self._runner.flags:
            raise KeyError(f"no flag --{clean} is registered")
        return self._runner.flag_values.get(clean)

    def register_shortcut(
        self,
        key: str,
        handler: Callable[[ExtensionContext], Awaitable[None] | None],
        *,
        description: str = "",
    ) -> None:
        """Bind `key` (e.g. `ctrl+alt+y`) in the interactive mode."""
        self._runner.shortcuts.append(Shortcut(key, handler, description, self._extension.name))

    # --- the conversation -------------------------------------------------------------------

    def append_entry(self, custom_type: str, data: object = None) -> str:
        """Write extension state into the session (a `custom` entry, never sent to the
        model); returns the entry id. Read it back from `ctx.session` on `session_start`."""
        return self._host().append_entry(custom_type, data)

    async def send_message(
        self,
        custom_type: str,
        content: str | Sequence[UserContent | dict[str, object]],
        *,
        display: bool = True,
        details: object = None,
        deliver_as: DeliverAs = "steer",
        trigger_turn: bool = False,
    ) -> None:
        """Put a message into the conversation; the model sees it as user text.

        While the agent works: `steer` (after the current tools), `follow_up` (when it would
        stop) or `next_turn` (with the user's next prompt). While idle it is recorded at
        once, and `trigger_turn=True` also starts a run.
        """
        blocks = content if isinstance(content, str) else convert(list(content), list[UserContent])
        message = CustomMessage(custom_type=custom_type, content=blocks, display=display)
        if details is not None:
            message.details = details
        await self._host().send_message(message, deliver_as, trigger_turn)

    async def send_user_message(self, text: str, *, deliver_as: DeliverAs | None = None) -> None:
        """Send `text` as if the user typed it (starts a run when idle)."""
        await self._host().send_user_message(text, deliver_as)

    def set_session_name(self, name: str) -> None:
        store = self._host().session
        if store is None:
            raise NotAvailableError("there is no session")
        store.append_session_info(name)

    def get_session_name(self) -> str | None:
        store = self._host().session
        return store.name if store is not None else None

    def set_label(self, entry_id: str, label: str | None) -> None:
        """Label an entry of the session tree (None removes the label)."""
        store = self._host().session
        if store is None:
            raise NotAvailableError("there is no session")
        store.append_label(entry_id, label)

    # --- tools, model, settings -------------------------------------------------------------

    def get_active_tools(self) -> list[str]:
        """The names of the tools the model gets now."""
        return self._host().active_tool_names()

    def set_active_tools(self, names: Sequence[str]) -> None:
        """Give the model exactly these tools (unknown names are ignored)."""
        self._host().set_active_tools(names)

    def set_tool_gate(self, gate: Callable[[str], bool] | None) -> None:
        """Keep every tool for which `gate(name)` is False out of the model's tools, from now on
        and whenever it is activated (by `--tools`, another extension, or registering later).
        One gate per extension; None removes it."""
        self._runner.set_tool_gate(self._extension.name, gate)
        if self._runner.host is not None:
            self._runner.host.tools_changed()

    def is_tool_allowed(self, name: str) -> bool:
        """False when a gate (an extension's, or `--tools`) keeps `name` from the model."""
        return self._runner.tool_allowed(name)

    def get_tool(self, name: str) -> Tool | None:
        """The tool the model gets for `name` now (a built-in, or an extension's), to wrap:
        register the wrapper under the same name and it replaces the tool. None if unknown."""
        return self._host().all_tools().get(name)

    def get_all_tools(self) -> list[ToolInfo]:
        """Every tool, active or not."""
        owners = {name: ext.name for name, (ext, _) in self._runner.tools.items()}
        return [
            ToolInfo(
                name=name,
                description=tool.description,
                parameters=tool.parameters,
                prompt_guidelines=tuple(getattr(tool, "prompt_guidelines", ()) or ()),
                source=owners.get(name, "builtin"),
            )
            for name, tool in self._host().all_tools().items()
        ]

    def get_model(self) -> Model | None:
        return self._host().model

    async def set_model(self, model: Model) -> bool:
        """Switch the model; False when its provider has no credentials."""
        return await self._host().set_model(model)

    def get_thinking_level(self) -> ThinkingLevel:
        return self._host().thinking_level

    def set_thinking_level(self, level: ThinkingLevel) -> None:
        self._host().set_thinking_level(level)

    def get_settings(self) -> dict[str, object]:
        """The merged settings (`settings.json`), read-only by convention."""
        return self._host().settings

    # --- processes --------------------------------------------------------------------------

    async def exec(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        cwd: str | None = None,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
        max_buffer: int = DEFAULT_MAX_BUFFER,
    ) -> ExecResult:
        """Run a program without a shell; see `ExecResult`."""
        return await run_program(
            command,
            list(args),
            cwd=cwd or self._runner.cwd,
            timeout=timeout,
            signal=signal,
            max_buffer=max_buffer,
        )
