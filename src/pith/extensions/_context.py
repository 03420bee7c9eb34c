"""`ctx`: what a handler, a command or a tool can see and do while pith runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pith.extensions._host import ContextUsage, ExtensionHost, Mode, NotAvailableError
from pith.extensions._ui import ExtensionUI, HeadlessUI, NamedUI

if TYPE_CHECKING:
    from pith.agent import AbortSignal
    from pith.ai import Model, ModelRegistry, ThinkingLevel
    from pith.session import CompactionEntry, SessionStore

__all__ = ["ExtensionContext"]


class ExtensionContext:
    """Handed to every handler as `ctx`, bound to one extension (its notices carry its name).

    Before pith has started a run (while extensions load) only `cwd`, `mode` and `ui` work;
    the rest raises `NotAvailableError`.
    """

    def __init__(self, name: str, host: ExtensionHost | None, cwd: str) -> None:
        self.extension = name
        """The name of the extension this context belongs to."""
        self._host = host
        self._cwd = cwd
        self._ui: ExtensionUI = NamedUI(host.ui if host is not None else HeadlessUI(), name)

    def _bound(self) -> ExtensionHost:
        if self._host is None:
            raise NotAvailableError(
                "pith has not started yet; use this from an event handler (session_start, say)"
            )
        return self._host

    @property
    def ui(self) -> ExtensionUI:
        """`notify`, and the questions `confirm`, `select`, `input` (answered with their
        default at once when there is no UI)."""
        return self._ui

    @property
    def mode(self) -> Mode:
        return self._host.mode if self._host is not None else "print"

    @property
    def has_ui(self) -> bool:
        """True when a person can answer questions (interactive and RPC modes)."""
        return self.mode in ("interactive", "rpc")

    @property
    def cwd(self) -> str:
        return self._host.cwd if self._host is not None else self._cwd

    @property
    def session(self) -> SessionStore | None:
        """The session tree, to read (entries, branch, labels); change it through the API."""
        return self._bound().session

    @property
    def model(self) -> Model | None:
        return self._bound().model

    @property
    def model_registry(self) -> ModelRegistry | None:
        return self._bound().registry

    def get_api_key(self, model: Model) -> str | None:
        """The key pith sends for `model` (`--api-key`, then models.json, then the
        environment, then auth.json), for an extension that calls a model itself; None
        without one."""
        return self._bound().api_key(model)

    @property
    def thinking_level(self) -> ThinkingLevel:
        return self._bound().thinking_level

    @property
    def signal(self) -> AbortSignal | None:
        """The current run's abort signal (None while idle)."""
        return self._bound().signal

    @property
    def settings(self) -> dict[str, object]:
        """The merged settings (the user's, then a trusted project's)."""
        return self._bound().settings

    @property
    def settings_layers(self) -> list[tuple[str, dict[str, object]]]:
        """Each settings file and its own contents, in merge order (the user's, then a
        trusted project's): for a setting whose layers combine by its own rules, or to say
        which file a value came from."""
        return self._bound().settings_layers()

    def is_idle(self) -> bool:
        return self._bound().is_idle()

    def abort(self) -> None:
        """Stop the current run, as Ctrl-C would."""
        self._bound().abort()

    def has_pending_messages(self) -> bool:
        return self._bound().has_pending_messages()

    def get_context_usage(self) -> ContextUsage | None:
        """How full the context window is; None without a model."""
        return self._bound().context_usage()

    def get_system_prompt(self) -> str:
        return self._bound().system_prompt()

    def is_project_trusted(self) -> bool:
        return self._bound().is_project_trusted()

    # --- moving between sessions and branches (while idle: from commands, say) -------------

    async def wait_for_idle(self) -> None:
        """Return once the agent has finished its current run."""
        await self._bound().wait_for_idle()

    async def compact(self, custom_instructions: str | None = None) -> CompactionEntry | None:
        """Summarize the older part of the conversation now, as `/compact` does
        (`custom_instructions`: what the summary should focus on). While idle: returns the
        compaction entry, or None when nothing was written (the user is told why). During a
        run (from an event handler or a tool): stops the run, compacts once it has stopped,
        and returns None at once."""
        return await self._bound().compact(custom_instructions)

    async def new_session(self) -> bool:
        """Start a fresh session; False when an extension cancelled the switch."""
        return await self._bound().new_session()

    async def switch_session(self, path: str) -> bool:
        """Resume the session stored at `path`; False when cancelled."""
        return await self._bound().switch_session(path)

    async def fork(self, entry_id: str, *, before: bool = False) -> bool:
        """Continue in a new session holding the path to `entry_id` (or up to just before
        it); False when cancelled."""
        return await self._bound().fork(entry_id, before)

    async def navigate_tree(
        self,
        target_id: str | None,
        *,
        summarize: bool = False,
        instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> bool:
        """Move to another point of this session's tree (None: before the first entry); with
        `summarize`, the branch left behind is summarized where the move lands (`instructions`
        add a focus, or replace pith's with `replace_instructions`). False when cancelled."""
        return await self._bound().navigate_tree(
            target_id, summarize, instructions, replace_instructions, label
        )

    def _rebind(self, host: ExtensionHost) -> None:
        self._host = host
        self._ui = NamedUI(host.ui, self.extension)
