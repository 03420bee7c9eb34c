"""What pith provides to extensions: the contract between the extension API and the app.

The app implements `ExtensionHost` (for a conversation, or for a lone `pith tool` call); the
API and the per-event context only ever reach pith through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from pith.agent import AbortSignal, Tool
    from pith.ai import CustomMessage, Model, ModelRegistry, ThinkingLevel
    from pith.extensions._ui import ExtensionUI
    from pith.session import CompactionEntry, SessionStore

__all__ = ["ContextUsage", "DeliverAs", "ExtensionHost", "Mode", "NotAvailableError"]

Mode = Literal["interactive", "print", "json", "rpc", "tool"]
DeliverAs = Literal["steer", "follow_up", "next_turn"]


class NotAvailableError(RuntimeError):
    """The operation needs something this run does not have (a model, a conversation)."""


@dataclass(frozen=True)
class ContextUsage:
    """How full the context window is: `tokens` and `percent` are None when unknown (right
    after a compaction, before the next reply reports usage)."""

    tokens: int | None
    context_window: int
    percent: float | None


class ExtensionHost(Protocol):
    """Everything the extension API may ask of pith. Methods that need a conversation raise
    `NotAvailableError` in a host without one (`pith tool`)."""

    @property
    def cwd(self) -> str: ...

    @property
    def mode(self) -> Mode: ...

    @property
    def ui(self) -> ExtensionUI: ...

    @property
    def settings(self) -> dict[str, object]: ...

    def settings_layers(self) -> list[tuple[str, dict[str, object]]]: ...

    def api_key(self, model: Model) -> str | None: ...

    # tools
    def all_tools(self) -> dict[str, Tool]: ...

    def active_tool_names(self) -> list[str]: ...

    def set_active_tools(self, names: Sequence[str]) -> None: ...

    def tools_changed(self) -> None:
        """An extension registered a tool after start-up."""
        ...

    # the conversation
    @property
    def session(self) -> SessionStore | None: ...

    @property
    def model(self) -> Model | None: ...

    @property
    def registry(self) -> ModelRegistry | None: ...

    @property
    def thinking_level(self) -> ThinkingLevel: ...

    @property
    def signal(self) -> AbortSignal | None: ...

    async def set_model(self, model: Model) -> bool: ...

    def set_thinking_level(self, level: ThinkingLevel) -> None: ...

    async def send_message(
        self, message: CustomMessage, deliver_as: DeliverAs, trigger_turn: bool
    ) -> None: ...

    async def send_user_message(self, text: str, deliver_as: DeliverAs | None) -> None: ...

    def append_entry(self, custom_type: str, data: object) -> str: ...

    def is_idle(self) -> bool: ...

    def abort(self) -> None: ...

    def has_pending_messages(self) -> bool: ...

    def context_usage(self) -> ContextUsage | None: ...

    def system_prompt(self) -> str: ...

    def is_project_trusted(self) -> bool: ...

    # moving between sessions and branches (only while idle)
    async def new_session(self) -> bool: ...

    async def switch_session(self, path: str) -> bool: ...

    async def fork(self, entry_id: str, before: bool) -> bool: ...

    async def navigate_tree(
        self,
        target_id: str | None,
        summarize: bool,
        instructions: str | None,
        replace_instructions: bool,
        label: str | None,
    ) -> bool: ...

    async def compact(self, custom_instructions: str | None) -> CompactionEntry | None: ...

    async def wait_for_idle(self) -> None: ...
