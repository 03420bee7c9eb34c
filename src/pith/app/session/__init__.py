"""The session runtime: one conversation with its store, agent, extensions and commands, shared
by every mode."""

from pith.app.session._builtins import BUILTINS
from pith.app.session._command_reports import command_list
from pith.app.session._commands import run_builtin
from pith.app.session._compaction import compaction_rules
from pith.app.session._context_report import (
    ContextReport,
    build_report,
    render_report,
    report_to_json,
)
from pith.app.session._context_tools import REPORT_CHANNEL, prepare_report
from pith.app.session._dispatch import split_command
from pith.app.session._events import (
    AgentSettled,
    AutoRetryEnd,
    AutoRetryStart,
    CompactionEnd,
    CompactionStart,
    SessionEvent,
    event_to_json,
    retry_notice,
)
from pith.app.session._extension_setup import (
    add_extension_flags,
    apply_extension_flags,
    load_extension_runner,
    load_project_extensions,
)
from pith.app.session._factory import SessionOptions, build_agent_session
from pith.app.session._figures import format_tokens, session_cost
from pith.app.session._input import Prompts, build_prompts, read_piped_stdin
from pith.app.session._navigation import ForkOutcome, TreeNavigation
from pith.app.session._outcome import PromptOutcome
from pith.app.session._session import AgentSession, SessionListener
from pith.app.session._shell_env import ShellEnvironment
from pith.app.session._stores import SessionChoice, format_session_list, open_store, session_dir_for
from pith.app.session._tool_runner import ToolRunError, run_tool
from pith.app.session._tree_rows import TreeRow, tree_rows

__all__ = [
    "BUILTINS",
    "REPORT_CHANNEL",
    "AgentSession",
    "AgentSettled",
    "AutoRetryEnd",
    "AutoRetryStart",
    "CompactionEnd",
    "CompactionStart",
    "ContextReport",
    "ForkOutcome",
    "PromptOutcome",
    "Prompts",
    "SessionChoice",
    "SessionEvent",
    "SessionListener",
    "SessionOptions",
    "ShellEnvironment",
    "ToolRunError",
    "TreeNavigation",
    "TreeRow",
    "add_extension_flags",
    "apply_extension_flags",
    "build_agent_session",
    "build_prompts",
    "build_report",
    "command_list",
    "compaction_rules",
    "event_to_json",
    "format_session_list",
    "format_tokens",
    "load_extension_runner",
    "load_project_extensions",
    "open_store",
    "prepare_report",
    "read_piped_stdin",
    "render_report",
    "report_to_json",
    "retry_notice",
    "run_builtin",
    "run_tool",
    "session_cost",
    "session_dir_for",
    "split_command",
    "tree_rows",
]
