"""The tool guard as an extension.

- `session_start`: read the `guard` settings and wrap pith's tools (`GuardedTool`): argument
  normalization for every file tool, pipeline stripping for `bash`. The wrappers keep each
  tool's name, schema and prompt lines, so nothing the model is told changes.
- `message_end`: **tool-name repair** — a tool call whose name is not among the tools the
  model was given is renamed to the one it meant, when that is unambiguous (`_names.py`); the
  user is told. Otherwise the call fails as usual, with the list of the declared tools.
  Then, for an MCP tool (`mcp__…`), the argument aliases its schema allows
  (`normalize_declared_arguments`): MCP tools come and go while the session runs, so they
  are repaired in the message rather than wrapped; `tool_result` reports the renames in
  `details.guard` as the wrapped tools do.

Settings (`guard` in settings.json): `enabled` (true), `stripPipelines` (true),
`repairToolNames` (true), `fastThresholdMs` (10000).
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from pith.ai import AssistantMessage, ToolCall
from pith.ext.guard._arguments import Rename, normalize_declared_arguments
from pith.ext.guard._names import repair_notice, repair_tool_name
from pith.ext.guard._tools import (
    CONTRACT_VERSION,
    GuardedTool,
    GuardSettings,
    details_with,
    rename_records,
)
from pith.extensions import ExtensionAPI, ExtensionContext, MessageEndResult
from pith.extensions.events import MessageEnd, ToolResultEvent, ToolResultPatch

__all__ = ["GUARDED_TOOLS", "read_settings", "register"]

GUARDED_TOOLS = ("read", "write", "edit", "grep", "find", "ls", "bash")
MCP_PREFIX = "mcp__"

_KEYS: dict[str, tuple[str, type]] = {
    "enabled": ("enabled", bool),
    "stripPipelines": ("strip_pipelines", bool),
    "repairToolNames": ("repair_tool_names", bool),
    "fastThresholdMs": ("fast_threshold_ms", int),
}


def read_settings(raw: object) -> tuple[GuardSettings, list[str]]:
    """The `guard` settings, and one line for each value that was ignored (and why)."""
    settings = GuardSettings()
    problems: list[str] = []
    if raw is None:
        return settings, problems
    if not isinstance(raw, Mapping):
        return settings, ['settings "guard" must be an object, e.g. {"enabled": true}']
    for key, value in raw.items():
        known = _KEYS.get(str(key))
        if known is None:
            problems.append(f'settings "guard.{key}" is not a guard setting (ignored)')
            continue
        attribute, kind = known
        if kind is int and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            problems.append(f'settings "guard.{key}" must be a whole number of milliseconds')
            continue
        if kind is bool and not isinstance(value, bool):
            problems.append(f'settings "guard.{key}" must be true or false')
            continue
        setattr(settings, attribute, value)
    return settings, problems


class _Guard:
    def __init__(self, api: ExtensionAPI) -> None:
        self.api = api
        self.settings = GuardSettings()
        self.ctx: ExtensionContext | None = None
        self.renames: dict[str, tuple[Rename, ...]] = {}
        """Argument renames made in a message, by tool call id, until the call's result."""

    def notify(self, message: str) -> None:
        if self.ctx is not None:
            self.ctx.ui.notify(message)

    def on_start(self, event: object, ctx: ExtensionContext) -> None:
        self.ctx = ctx
        self.settings, problems = read_settings(ctx.settings.get("guard"))
        for problem in problems:
            ctx.ui.notify(problem, "warning")
        for name in GUARDED_TOOLS:
            tool = self.api.get_tool(name)
            if tool is None or getattr(tool, "guarded", False):
                continue  # unknown here, or already wrapped (a new session in the same run)
            if not type(tool).__module__.startswith("pith.tools"):
                continue  # another extension's tool of that name: its arguments are its own
            self.api.register_tool(GuardedTool(tool, lambda: self.settings, self.notify))

    def on_message_end(self, event: MessageEnd, ctx: ExtensionContext) -> MessageEndResult | None:
        message = event.message
        if not isinstance(message, AssistantMessage) or not self.settings.enabled:
            return None
        self.renames.clear()  # the calls of the previous message have all had their results
        declared = self.api.get_active_tools()
        changed = False
        content = list(message.content)
        for index, block in enumerate(content):
            if not isinstance(block, ToolCall):
                continue
            repaired = block
            if self.settings.repair_tool_names and block.name not in declared:
                target = repair_tool_name(block.name, declared)
                if target is not None:
                    repaired = msgspec.structs.replace(block, name=target)
                    ctx.ui.notify(repair_notice(block.name, target))
            repaired = self._declared_aliases(repaired)
            if repaired is not block:
                content[index] = repaired
                changed = True
        if not changed:
            return None
        return MessageEndResult(msgspec.structs.replace(message, content=content))

    def _declared_aliases(self, call: ToolCall) -> ToolCall:
        """`call` with the argument aliases its MCP tool's schema allows renamed (the renames
        are reported in the result's `details.guard` when it comes)."""
        if not call.name.startswith(MCP_PREFIX):
            return call
        tool = self.api.get_tool(call.name)
        properties = tool.parameters.get("properties") if tool is not None else None
        if not isinstance(properties, Mapping):
            return call
        arguments, renames = normalize_declared_arguments(call.arguments, properties.keys())
        if not renames or not isinstance(arguments, dict):
            return call
        self.renames[call.id] = renames
        return msgspec.structs.replace(call, arguments=arguments)

    def on_tool_result(
        self, event: ToolResultEvent, ctx: ExtensionContext
    ) -> ToolResultPatch | None:
        renames = self.renames.pop(event.tool_call_id, None)
        if not renames:
            return None
        guard = {"version": CONTRACT_VERSION, "renames": rename_records(renames)}
        details = details_with(event.details, guard)
        # A tool's own structured details (not a mapping) are left alone.
        return None if details is event.details else ToolResultPatch(details=details)


def register(api: ExtensionAPI) -> None:
    """Load the tool guard (the `pith.extensions` entry point `guard`)."""
    guard = _Guard(api)
    api.on("session_start", guard.on_start)
    api.on("message_end", guard.on_message_end)
    api.on("tool_result", guard.on_tool_result)
