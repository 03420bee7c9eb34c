"""Building an `AgentSession` from what the user chose: one place, so `pith context` shows
exactly what a run with the same choices would send."""

from __future__ import annotations

from dataclasses import dataclass

from pith.ai import Model, ModelRegistry, RetryPolicy, ThinkingLevel
from pith.app.session._session import AgentSession
from pith.app.session._shell_env import ShellEnvironment
from pith.app.session._tool_selection import mcp_tool_gate, select_tool_names
from pith.extensions import ExtensionRunner, ExtensionUI, Mode
from pith.resources import Resources, Settings
from pith.session import SessionStore
from pith.tools import DEFAULT_TOOL_NAMES, builtin_tools

__all__ = ["SessionOptions", "build_agent_session"]


@dataclass
class SessionOptions:
    tools: str | None = None
    """`--tools a,b,+x,-y`."""
    no_tools: bool = False
    api_key: str | None = None


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
    settings: Settings | None = None,
    resources: Resources | None = None,
) -> AgentSession:
    """The session for these choices. `--tools` (else the `defaultTools` setting) picks among
    the built-ins and the tools extensions registered; by default the model gets the default
    built-ins plus every extension tool that does not ask to start inactive. MCP tools, which
    arrive as servers connect, are filtered by `--tools`' `mcp__` entries as they do."""
    runner = extensions or ExtensionRunner(cwd)
    config = settings or Settings()
    values = config.values
    env = ShellEnvironment(store, model, thinking)
    builtins = builtin_tools(
        cwd,
        bash_env=env.variables,
        shell_path=values.shell_path,
        shell_command_prefix=values.shell_command_prefix,
        full_output_max_bytes=values.bash_full_output_max_bytes,
    )
    available = list(builtins) + [name for name in runner.tools if name not in builtins]
    defaults = list(DEFAULT_TOOL_NAMES) + [
        name
        for name, (_, tool) in runner.tools.items()
        if getattr(tool, "default_active", True) and name not in builtins
    ]
    spec = options.tools
    if spec is None and values.default_tools is not None:
        spec = ",".join(values.default_tools)
    names = select_tool_names(spec, defaults, available, no_tools=options.no_tools)
    runner.set_tool_gate("--tools", mcp_tool_gate(spec, no_tools=options.no_tools))
    return AgentSession(
        cwd=cwd,
        model=model,
        registry=registry,
        tools=builtins,
        active=names,
        store=store,
        thinking=thinking,
        api_key=options.api_key,
        extensions=runner,
        mode=mode,
        ui=ui,
        settings=config.data,
        retry=RetryPolicy(
            enabled=values.retry.enabled,
            max_retries=values.retry.max_retries,
            base_delay_ms=values.retry.base_delay_ms,
            max_delay_ms=values.retry.max_agent_delay_ms,
        ),
        steering_mode=values.steering_mode,
        follow_up_mode=values.follow_up_mode,
        resources=resources,
        config=config,
        shell_env=env,
    )
