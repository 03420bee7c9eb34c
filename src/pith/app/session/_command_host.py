"""What pith's own slash commands need from the session they run in."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from pith.agent import Agent
from pith.ai import AgentMessage, Model, ModelRegistry, ThinkingLevel
from pith.app.session._compaction import CompactionOutcome
from pith.app.session._navigation import ForkOutcome
from pith.app.session._system_prompt import PromptSection
from pith.extensions import ExtensionRunner, ExtensionUI, Mode
from pith.resources import Resources, Settings
from pith.session import SessionStore

__all__ = ["CommandSession"]


class CommandSession(Protocol):
    """The session a built-in command acts on (an `AgentSession`)."""

    cwd: str
    mode: Mode
    ui: ExtensionUI
    registry: ModelRegistry
    extensions: ExtensionRunner
    resources: Resources
    agent: Agent
    command_output: Callable[[str, str], None]

    @property
    def store(self) -> SessionStore: ...

    @property
    def config(self) -> Settings: ...

    @property
    def model(self) -> Model: ...

    @property
    def thinking(self) -> ThinkingLevel: ...

    @property
    def messages(self) -> list[AgentMessage]: ...

    def prompt_sections(self) -> list[PromptSection]: ...

    async def compact(self, custom_instructions: str | None = None) -> CompactionOutcome: ...

    async def fork(self, entry_id: str) -> ForkOutcome: ...

    async def clone(self) -> ForkOutcome: ...

    async def new_session(self) -> bool: ...

    async def set_model(self, model: Model) -> bool: ...

    def set_thinking_level(self, level: ThinkingLevel) -> None: ...
