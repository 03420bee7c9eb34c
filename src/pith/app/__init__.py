"""Wiring: sessions, tools, extensions and resources put together, and the run modes.

Each name loads its module on first use, so `pith -p` does not import the RPC mode, the
HTML export or the terminal UI it never runs.
"""

from __future__ import annotations

from pith._lazy import lazy_names as _lazy_names

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pith.app.modes import failure_line, run_print_mode
    from pith.app.modes.rpc import RpcConnection
    from pith.app.session import (
        AgentSession,
        AgentSettled,
        AutoRetryEnd,
        AutoRetryStart,
        ForkOutcome,
        PromptOutcome,
        Prompts,
        SessionEvent,
        SessionListener,
        SessionOptions,
        ToolRunError,
        TreeNavigation,
        add_extension_flags,
        apply_extension_flags,
        build_agent_session,
        build_prompts,
        event_to_json,
        load_extension_runner,
        load_project_extensions,
        read_piped_stdin,
        run_tool,
    )

_HOMES = {
    "pith.app.modes": (
        "failure_line",
        "run_print_mode",
    ),
    "pith.app.modes.rpc": ("RpcConnection",),
    "pith.app.session": (
        "AgentSession",
        "AgentSettled",
        "AutoRetryEnd",
        "AutoRetryStart",
        "ForkOutcome",
        "PromptOutcome",
        "Prompts",
        "SessionEvent",
        "SessionListener",
        "SessionOptions",
        "ToolRunError",
        "TreeNavigation",
        "add_extension_flags",
        "apply_extension_flags",
        "build_agent_session",
        "build_prompts",
        "event_to_json",
        "load_extension_runner",
        "load_project_extensions",
        "read_piped_stdin",
        "run_tool",
    ),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "AgentSession",
    "AgentSettled",
    "AutoRetryEnd",
    "AutoRetryStart",
    "ForkOutcome",
    "PromptOutcome",
    "Prompts",
    "RpcConnection",
    "SessionEvent",
    "SessionListener",
    "SessionOptions",
    "ToolRunError",
    "TreeNavigation",
    "add_extension_flags",
    "apply_extension_flags",
    "build_agent_session",
    "build_prompts",
    "event_to_json",
    "failure_line",
    "load_extension_runner",
    "load_project_extensions",
    "read_piped_stdin",
    "run_print_mode",
    "run_tool",
]


__getattr__, __dir__ = _lazy_names(__name__, globals(), _HOME_OF, __all__)
