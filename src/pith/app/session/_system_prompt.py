"""The system prompt a session sends, and where each of its sections comes from."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pith.agent import Agent, Tool
from pith.ai import AgentMessage, ImageContent
from pith.app.session._toolset import ToolSet
from pith.extensions import ExtensionRunner
from pith.extensions.events import BeforeAgentStart
from pith.resources import (
    Resources,
    SystemPromptOptions,
    build_system_prompt,
    build_system_prompt_sections,
)

__all__ = ["PromptSection", "SystemPrompts", "prompt_options", "prompt_sections"]


@dataclass(frozen=True)
class PromptSection:
    name: str
    text: str
    sources: list[str]


def prompt_options(cwd: str, tools: Sequence[Tool], resources: Resources) -> SystemPromptOptions:
    """What the system prompt is built from: the active tools and the loaded resources."""
    return SystemPromptOptions(
        cwd=cwd,
        tools=list(tools),
        custom_prompt=resources.custom_prompt,
        append=resources.append_text,
        context_files=list(resources.context_files),
        skills=list(resources.skills),
        docs=resources.docs,
    )


def prompt_sections(
    options: SystemPromptOptions, resources: Resources, tool_names: list[str]
) -> list[PromptSection]:
    """The sections `options` build, each with where its text comes from (files, flags, the
    active tools `tool_names`), for `pith context`."""
    sections = build_system_prompt_sections(options)
    custom = resources.custom_prompt_source or (
        "--system-prompt" if resources.custom_prompt is not None else "pith"
    )
    origins: dict[str, list[str]] = {
        "preamble": [custom],
        "tools": tool_names,
        "rules": ["pith", "the active tools"],
        "docs": ["pith"],
        "addendum": [source or "--append-system-prompt" for source in resources.append_sources],
        "project_context": [file.path for file in resources.context_files],
        "skills": [
            skill.file_path for skill in resources.skills if not skill.disable_model_invocation
        ],
        "cwd": [options.cwd],
    }
    return [
        PromptSection(name, text, origins.get(name, ["an extension"]))
        for name, text in sections.items()
    ]


class SystemPrompts:
    """The system prompt and tools of one session's runs: built from the active tools
    (`toolset`) and the resources (read each time: they may be replaced), unless a prompt was
    given in full (`custom`). Extensions may change both before each run
    (`before_agent_start`)."""

    def __init__(
        self,
        *,
        cwd: str,
        agent: Agent,
        toolset: ToolSet,
        extensions: ExtensionRunner,
        resources: Callable[[], Resources],
        custom: str | None,
    ) -> None:
        self._cwd = cwd
        self._agent = agent
        self._toolset = toolset
        self._extensions = extensions
        self._resources = resources
        self._custom = custom

    def options(self) -> SystemPromptOptions:
        return prompt_options(self._cwd, list(self._toolset.active().values()), self._resources())

    def sections(self) -> list[PromptSection]:
        """The sections as the next run builds them, with where each comes from."""
        if self._custom is not None:
            return [PromptSection("preamble", self._custom, ["given in full"])]
        return prompt_sections(self.options(), self._resources(), self._toolset.active_names())

    def text(self, options: SystemPromptOptions | None = None) -> str:
        """The system prompt for the active tools (or `options`), unless one was given."""
        if self._custom is not None:
            return self._custom
        return build_system_prompt(options or self.options())

    def apply_tools(self) -> None:
        """Give the agent the active tools (and, between runs, the prompt that lists them)."""
        agent = self._agent
        agent.tools = self._toolset.active()
        if not agent.is_running:
            agent.system_prompt = self.text()

    async def prepare_run(self, text: str, images: list[ImageContent]) -> list[AgentMessage]:
        """`before_agent_start`: the run's system prompt and tools; extra messages."""
        agent, runner = self._agent, self._extensions
        if not runner.has_handlers("before_agent_start"):
            agent.system_prompt = self.text()
            return []
        options = self.options()
        before = [tool.name for tool in options.tools]
        event = BeforeAgentStart(text, images, "", options, render=lambda: self.text(options))
        outcome = await runner.emit(event)
        after = [tool.name for tool in options.tools]
        if after != before:
            self._toolset.set_active(after)
            agent.tools = self._toolset.active()
        agent.system_prompt = outcome.system_prompt or self.text(options)
        return list(outcome.messages)
