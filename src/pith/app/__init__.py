"""Wiring: sessions, tools, extensions and resources put together, and the run modes."""

from pith.app._events import (
    AgentSettled,
    AutoRetryEnd,
    AutoRetryStart,
    SessionEvent,
    event_to_json,
)
from pith.app._extension_setup import (
    add_extension_flags,
    apply_extension_flags,
    load_extension_runner,
    load_project_extensions,
)
from pith.app._factory import SessionOptions, build_agent_session
from pith.app._input import Prompts, build_prompts, read_piped_stdin
from pith.app._navigation import ForkOutcome, TreeNavigation
from pith.app._print_mode import failure_line, run_print_mode
from pith.app._rpc import RpcConnection
from pith.app._session import AgentSession, SessionListener
from pith.app._tool_runner import ToolRunError, run_tool

__all__ = [
    "AgentSession",
    "AgentSettled",
    "AutoRetryEnd",
    "AutoRetryStart",
    "ForkOutcome",
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
