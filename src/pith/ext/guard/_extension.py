"""The tool guard as an extension.

- `session_start`: read the `guard` settings and wrap pith's tools (`GuardedTool`): argument
  normalization for every file tool, pipeline stripping for `bash`. The wrappers keep each
  tool's name, schema and prompt lines, so nothing the model is told changes.
- `message_end`: **tool-name repair** — a tool call whose name is not among the tools the
  model was given is renamed to the one it meant, when that is unambiguous (`_names.py`); the
  user is told. Otherwise the call fails as usual, with the list of the declared tools.

Settings (`guard` in settings.json): `enabled` (true), `stripPipelines` (true),
`repairToolNames` (true), `fastThresholdMs` (10000).
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from pith.ai import AssistantMessage, ToolCall
from pith.ext.guard._names import repair_notice, repair_tool_name
from pith.ext.guard._tools import GuardedTool, GuardSettings
from pith.extensions import ExtensionAPI, ExtensionContext, MessageEndResult
from pith.extensions.events import MessageEnd

__all__ = ["GUARDED_TOOLS", "read_settings", "register"]

GUARDED_TOOLS = ("read", "write", "edit", "grep", "find", "ls", "bash")

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
        if not isinstance(message, AssistantMessage):
            return None
        if not (self.settings.enabled and self.settings.repair_tool_names):
            return None
        declared = self.api.get_active_tools()
        changed = False
        content = list(message.content)
        for index, block in enumerate(content):
            if not isinstance(block, ToolCall) or block.name in declared:
                continue
            target = repair_tool_name(block.name, declared)
            if target is None:
                continue
            content[index] = msgspec.structs.replace(block, name=target)
            ctx.ui.notify(repair_notice(block.name, target))
            changed = True
        if not changed:
            return None
        return MessageEndResult(msgspec.structs.replace(message, content=content))


def register(api: ExtensionAPI) -> None:
    """Load the tool guard (the `pith.extensions` entry point `guard`)."""
    guard = _Guard(api)
    api.on("session_start", guard.on_start)
    api.on("message_end", guard.on_message_end)
