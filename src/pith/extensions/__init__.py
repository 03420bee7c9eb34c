"""The extension API: one door for pith's built-ins and everyone's packages.

An extension is a module with `register(api)`. It registers handlers for events
(`api.on("tool_call", handler)`), tools, slash commands, CLI flags and shortcuts, and acts on
the conversation through `api` and the per-event `ctx`. The events, their payloads and what a
handler may return are listed in `pith.extensions.events`; docs/extensions.md explains them
with examples.
"""

from pith.agent import ToolError, ToolResult, error_result, text_result
from pith.extensions._api import ExtensionAPI
from pith.extensions._context import ExtensionContext
from pith.extensions._exec import ExecResult
from pith.extensions._host import (
    ContextUsage,
    DeliverAs,
    ExtensionHost,
    Mode,
    NotAvailableError,
)
from pith.extensions._loader import (
    ENTRY_POINT_GROUP,
    ExtensionSpec,
    LoadOptions,
    discover_extensions,
    discover_project_extensions,
    has_project_extensions,
    load_extensions,
    project_extensions_dir,
)
from pith.extensions._registry import Command, EventBus, Extension, Flag, Handler, Shortcut
from pith.extensions._runner import ExtensionRunner
from pith.extensions._tools import ToolDefinition, ToolInfo
from pith.extensions._ui import ExtensionUI, HeadlessUI, NoticeLevel
from pith.extensions.events import (
    EVENT_NAMES,
    AgentStartResult,
    BranchSummarySpec,
    Cancel,
    CompactionSpec,
    CompactResult,
    ContextResult,
    CustomMessageSpec,
    InputResult,
    MessageEndResult,
    ResourcePaths,
    ToolCallDecision,
    ToolResultPatch,
    TreePreparation,
    TreeResult,
    TrustDecision,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "EVENT_NAMES",
    "AgentStartResult",
    "BranchSummarySpec",
    "Cancel",
    "Command",
    "CompactResult",
    "CompactionSpec",
    "ContextResult",
    "ContextUsage",
    "CustomMessageSpec",
    "DeliverAs",
    "EventBus",
    "ExecResult",
    "Extension",
    "ExtensionAPI",
    "ExtensionContext",
    "ExtensionHost",
    "ExtensionRunner",
    "ExtensionSpec",
    "ExtensionUI",
    "Flag",
    "Handler",
    "HeadlessUI",
    "InputResult",
    "LoadOptions",
    "MessageEndResult",
    "Mode",
    "NotAvailableError",
    "NoticeLevel",
    "ResourcePaths",
    "Shortcut",
    "ToolCallDecision",
    "ToolDefinition",
    "ToolError",
    "ToolInfo",
    "ToolResult",
    "ToolResultPatch",
    "TreePreparation",
    "TreeResult",
    "TrustDecision",
    "discover_extensions",
    "discover_project_extensions",
    "error_result",
    "has_project_extensions",
    "load_extensions",
    "project_extensions_dir",
    "text_result",
]
