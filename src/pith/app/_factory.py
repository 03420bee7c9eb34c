"""Building an `AgentSession` from what the user chose: one place, so `pith context` shows
exactly what a run with the same choices would send."""

from __future__ import annotations

import os
from dataclasses import dataclass

from pith.ai import Model, ModelRegistry, ThinkingLevel
from pith.app._session import AgentSession
from pith.app._tool_selection import select_tool_names
from pith.errors import InputError
from pith.extensions import ExtensionRunner, ExtensionUI, Mode
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
    extensions: ExtensionRunner | None = None,
    mode: Mode = "print",
    ui: ExtensionUI | None = None,
    settings: dict[str, object] | None = None,
) -> AgentSession:
    """The session for these choices. `--tools` picks among the built-ins and the tools
    extensions registered; by default the model gets the default built-ins plus every
    extension tool that does not ask to start inactive."""
    holder: list[AgentSession] = []
    runner = extensions or ExtensionRunner(cwd)
    builtins = builtin_tools(cwd, bash_env=lambda: holder[0].shell_environment())
    available = list(builtins) + [name for name in runner.tools if name not in builtins]
    defaults = list(DEFAULT_TOOL_NAMES) + [
        name
        for name, (_, tool) in runner.tools.items()
        if getattr(tool, "default_active", True) and name not in builtins
    ]
    names = select_tool_names(options.tools, defaults, available, no_tools=options.no_tools)
    system_prompt = read_text_or_file(options.system_prompt) if options.system_prompt else None
    session = AgentSession(
        cwd=cwd,
        model=model,
        registry=registry,
        tools=builtins,
        active=names,
        store=store,
        thinking=thinking,
        api_key=options.api_key,
        system_prompt=system_prompt,
        extensions=runner,
        mode=mode,
        ui=ui,
        settings=settings,
    )
    holder.append(session)
    return session
