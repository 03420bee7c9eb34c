"""Building an `AgentSession` from what the user chose: one place, so `pith context` shows
exactly what a run with the same choices would send."""

from __future__ import annotations

import os
from dataclasses import dataclass

from pith.ai import Model, ModelRegistry, ThinkingLevel
from pith.app._session import AgentSession
from pith.app._tool_selection import select_tool_names
from pith.errors import InputError
from pith.session import SessionStore
from pith.tools import DEFAULT_TOOL_NAMES, builtin_tools

__all__ = ["SessionOptions", "build_agent_session", "read_text_or_file"]


@dataclass
class SessionOptions:
    tools: str | None = None
    """`--tools a,b,+x,-y`."""
    no_tools: bool = False
    system_prompt: str | None = None
    """`--system-prompt`: text, or a file to read."""
    api_key: str | None = None


def read_text_or_file(value: str) -> str:
    """A value that names an existing file means its contents; anything else is the text."""
    if os.path.isfile(value):
        try:
            with open(value, encoding="utf-8") as handle:
                return handle.read()
        except (OSError, UnicodeDecodeError) as error:
            raise InputError(f"cannot read {value}: {error}") from None
    return value


def build_agent_session(
    *,
    cwd: str,
    store: SessionStore,
    registry: ModelRegistry,
    model: Model,
    thinking: ThinkingLevel,
    options: SessionOptions,
) -> AgentSession:
    holder: list[AgentSession] = []
    everything = builtin_tools(cwd, bash_env=lambda: holder[0].shell_environment())
    names = select_tool_names(
        options.tools, DEFAULT_TOOL_NAMES, list(everything), no_tools=options.no_tools
    )
    system_prompt = read_text_or_file(options.system_prompt) if options.system_prompt else None
    session = AgentSession(
        cwd=cwd,
        model=model,
        registry=registry,
        tools={name: everything[name] for name in names},
        store=store,
        thinking=thinking,
        api_key=options.api_key,
        system_prompt=system_prompt,
    )
    holder.append(session)
    return session
