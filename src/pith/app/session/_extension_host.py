"""pith as extensions see it: `ExtensionHost` for a conversation, and for a lone tool call."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from pith.agent import AbortSignal, Agent, Tool
from pith.ai import AgentMessage, CustomMessage, Model, ModelRegistry, ThinkingLevel
from pith.app.session._compaction import CompactionOutcome
from pith.app.session._navigation import ForkOutcome, TreeNavigation
from pith.extensions import ContextUsage, DeliverAs, ExtensionUI, Mode, NotAvailableError
from pith.resources import Settings
from pith.session import CompactionEntry, SessionStore

__all__ = ["HostedSession", "SessionHost", "ToolHost"]


class HostedSession(Protocol):
    """The conversation extensions act on (an `AgentSession`)."""

    cwd: str
    mode: Mode
    ui: ExtensionUI
    settings: dict[str, object]
    registry: ModelRegistry
    agent: Agent
    project_trusted: bool

    @property
    def next_turn(self) -> list[AgentMessage]: ...

    @property
    def config(self) -> Settings: ...

    @property
    def store(self) -> SessionStore: ...

    @property
    def model(self) -> Model: ...

    @property
    def thinking(self) -> ThinkingLevel: ...

    def api_key_for(self, model: Model) -> str | None: ...

    def all_tools(self) -> dict[str, Tool]: ...

    def active_tool_names(self) -> list[str]: ...

    def set_active_tools(self, names: Sequence[str]) -> None: ...

    def tools_changed(self) -> None: ...

    async def set_model(self, model: Model) -> bool: ...

    def set_thinking_level(self, level: ThinkingLevel) -> None: ...

    async def send_custom_message(
        self, message: CustomMessage, deliver_as: DeliverAs, trigger_turn: bool
    ) -> None: ...

    async def send_user_message(self, text: str, deliver_as: DeliverAs | None) -> None: ...

    def abort(self) -> None: ...

    def context_usage(self) -> ContextUsage: ...

    async def new_session(self) -> bool: ...

    async def switch_session(self, path: Path) -> bool: ...

    async def fork(self, entry_id: str, *, before: bool = True) -> ForkOutcome: ...

    async def navigate_tree(
        self,
        target_id: str | None,
        *,
        summarize: bool = False,
        instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> TreeNavigation: ...

    def request_compaction(self, custom_instructions: str | None = None) -> None: ...

    async def compact(self, custom_instructions: str | None = None) -> CompactionOutcome: ...

    async def wait_for_idle(self) -> None: ...


class SessionHost:
    """The host of a conversation: everything goes to the session."""

    def __init__(self, session: HostedSession) -> None:
        self._session = session

    @property
    def cwd(self) -> str:
        return self._session.cwd

    @property
    def mode(self) -> Mode:
        return self._session.mode

    @property
    def ui(self) -> ExtensionUI:
        return self._session.ui

    @property
    def settings(self) -> dict[str, object]:
        return self._session.settings

    def settings_layers(self) -> list[tuple[str, dict[str, object]]]:
        return [(str(path), data) for path, data in self._session.config.layers]

    def api_key(self, model: Model) -> str | None:
        return self._session.api_key_for(model)

    def all_tools(self) -> dict[str, Tool]:
        return self._session.all_tools()

    def active_tool_names(self) -> list[str]:
        return self._session.active_tool_names()

    def set_active_tools(self, names: Sequence[str]) -> None:
        self._session.set_active_tools(names)

    def tools_changed(self) -> None:
        self._session.tools_changed()

    @property
    def session(self) -> SessionStore | None:
        return self._session.store

    @property
    def model(self) -> Model | None:
        return self._session.model

    @property
    def registry(self) -> ModelRegistry | None:
        return self._session.registry

    @property
    def thinking_level(self) -> ThinkingLevel:
        return self._session.thinking

    @property
    def signal(self) -> AbortSignal | None:
        return self._session.agent.signal

    async def set_model(self, model: Model) -> bool:
        return await self._session.set_model(model)

    def set_thinking_level(self, level: ThinkingLevel) -> None:
        self._session.set_thinking_level(level)

    async def send_message(
        self, message: CustomMessage, deliver_as: DeliverAs, trigger_turn: bool
    ) -> None:
        await self._session.send_custom_message(message, deliver_as, trigger_turn)

    async def send_user_message(self, text: str, deliver_as: DeliverAs | None) -> None:
        await self._session.send_user_message(text, deliver_as)

    def append_entry(self, custom_type: str, data: object) -> str:
        return self._session.store.append_custom(custom_type, data).id

    def is_idle(self) -> bool:
        return not self._session.agent.is_running

    def abort(self) -> None:
        self._session.abort()

    def has_pending_messages(self) -> bool:
        steering, follow_up = self._session.agent.queued()
        return bool(steering or follow_up or self._session.next_turn)

    def context_usage(self) -> ContextUsage | None:
        return self._session.context_usage()

    def system_prompt(self) -> str:
        return self._session.agent.system_prompt

    def is_project_trusted(self) -> bool:
        return self._session.project_trusted

    async def new_session(self) -> bool:
        return await self._session.new_session()

    async def switch_session(self, path: str) -> bool:
        return await self._session.switch_session(Path(path))

    async def fork(self, entry_id: str, before: bool) -> bool:
        outcome = await self._session.fork(entry_id, before=before)
        return not outcome.cancelled

    async def navigate_tree(
        self,
        target_id: str | None,
        summarize: bool,
        instructions: str | None,
        replace_instructions: bool,
        label: str | None,
    ) -> bool:
        outcome = await self._session.navigate_tree(
            target_id,
            summarize=summarize,
            instructions=instructions,
            replace_instructions=replace_instructions,
            label=label,
        )
        return not outcome.cancelled

    async def compact(self, custom_instructions: str | None) -> CompactionEntry | None:
        session = self._session
        if session.agent.is_running:
            session.request_compaction(custom_instructions)
            return None
        return (await session.compact(custom_instructions)).entry

    async def wait_for_idle(self) -> None:
        await self._session.wait_for_idle()


class ToolHost:
    """The host of `pith tool`: tools, files and settings, but no model or conversation."""

    def __init__(
        self,
        cwd: str,
        tools: dict[str, Tool],
        ui: ExtensionUI,
        settings: dict[str, object],
        layers: Sequence[tuple[Path, dict[str, object]]] = (),
    ) -> None:
        self._cwd = cwd
        self._tools = tools
        self._ui = ui
        self._settings = settings
        self._layers = [(str(path), data) for path, data in layers]

    @property
    def cwd(self) -> str:
        return self._cwd

    @property
    def mode(self) -> Mode:
        return "tool"

    @property
    def ui(self) -> ExtensionUI:
        return self._ui

    @property
    def settings(self) -> dict[str, object]:
        return self._settings

    def settings_layers(self) -> list[tuple[str, dict[str, object]]]:
        return list(self._layers)

    def api_key(self, model: Model) -> str | None:
        return None  # `pith tool` calls no model

    def all_tools(self) -> dict[str, Tool]:
        return dict(self._tools)

    def active_tool_names(self) -> list[str]:
        return list(self._tools)

    def set_active_tools(self, names: Sequence[str]) -> None:
        pass  # one call, already chosen

    def tools_changed(self) -> None:
        pass

    @property
    def session(self) -> SessionStore | None:
        return None

    @property
    def model(self) -> Model | None:
        return None

    @property
    def registry(self) -> ModelRegistry | None:
        return None

    @property
    def thinking_level(self) -> ThinkingLevel:
        return "off"

    @property
    def signal(self) -> AbortSignal | None:
        return None

    async def set_model(self, model: Model) -> bool:
        raise _no_conversation("set_model")

    def set_thinking_level(self, level: ThinkingLevel) -> None:
        raise _no_conversation("set_thinking_level")

    async def send_message(
        self, message: CustomMessage, deliver_as: DeliverAs, trigger_turn: bool
    ) -> None:
        raise _no_conversation("send_message")

    async def send_user_message(self, text: str, deliver_as: DeliverAs | None) -> None:
        raise _no_conversation("send_user_message")

    def append_entry(self, custom_type: str, data: object) -> str:
        raise _no_conversation("append_entry")

    def is_idle(self) -> bool:
        return True

    def abort(self) -> None:
        pass

    def has_pending_messages(self) -> bool:
        return False

    def context_usage(self) -> ContextUsage | None:
        return None

    def system_prompt(self) -> str:
        return ""

    def is_project_trusted(self) -> bool:
        return False

    async def new_session(self) -> bool:
        raise _no_conversation("new_session")

    async def switch_session(self, path: str) -> bool:
        raise _no_conversation("switch_session")

    async def fork(self, entry_id: str, before: bool) -> bool:
        raise _no_conversation("fork")

    async def navigate_tree(
        self,
        target_id: str | None,
        summarize: bool,
        instructions: str | None,
        replace_instructions: bool,
        label: str | None,
    ) -> bool:
        raise _no_conversation("navigate_tree")

    async def compact(self, custom_instructions: str | None) -> CompactionEntry | None:
        raise _no_conversation("compact")

    async def wait_for_idle(self) -> None:
        return None


def _no_conversation(what: str) -> NotAvailableError:
    return NotAvailableError(f"{what} needs a conversation; `pith tool` runs a single tool call")
