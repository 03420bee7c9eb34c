"""pith: a terminal coding agent whose edge is context engineering.

This package is also pith's Python API (docs/sdk.md)::

    import pith

    async with await pith.create_session(model="anthropic/claude-sonnet-4-5") as session:
        reply = await session.prompt("count the lines of README.md")
        print(session.last_text)

`import pith` stays cheap: the names below load what they need on first use.
"""

# No `from __future__ import annotations` here or in pith.cli._main: the `--version` path
# would import `__future__` for nothing (these modules' annotations are valid at run time).
from pith._version import __version__

# Not `from typing import TYPE_CHECKING`: `pith --version` and every `import pith` would pay for
# importing `typing` (checkers treat any `TYPE_CHECKING` name as true).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pith.agent import (
        AgentEnd,
        AgentStart,
        MessageEnd,
        MessageStart,
        MessageUpdate,
        ToolExecutionEnd,
        ToolExecutionStart,
        ToolExecutionUpdate,
        TurnEnd,
        TurnStart,
    )
    from pith.ai import (
        AssistantMessage,
        ImageContent,
        Model,
        TextContent,
        TextDelta,
        ThinkingLevel,
        ToolResultMessage,
        UserMessage,
    )
    from pith.app.export import ExportError, export_html
    from pith.app.session import (
        AgentSettled,
        AutoRetryEnd,
        AutoRetryStart,
        CompactionEnd,
        CompactionStart,
        ForkOutcome,
        SessionEvent,
    )
    from pith.errors import ConfigError, InputError, PithError
    from pith.sdk import (
        ContextReport,
        EventStream,
        Session,
        SessionSource,
        create_session,
        list_models,
        open_session,
    )
    from pith.session import SessionFileError

_HOMES = {
    "pith.sdk": (
        "ContextReport",
        "EventStream",
        "Session",
        "SessionSource",
        "create_session",
        "list_models",
        "open_session",
    ),
    "pith.agent": (
        "AgentEnd",
        "AgentStart",
        "MessageEnd",
        "MessageStart",
        "MessageUpdate",
        "ToolExecutionEnd",
        "ToolExecutionStart",
        "ToolExecutionUpdate",
        "TurnEnd",
        "TurnStart",
    ),
    "pith.app.session": (
        "AgentSettled",
        "AutoRetryEnd",
        "AutoRetryStart",
        "CompactionEnd",
        "CompactionStart",
        "ForkOutcome",
        "SessionEvent",
    ),
    "pith.ai": (
        "AssistantMessage",
        "ImageContent",
        "Model",
        "TextContent",
        "TextDelta",
        "ThinkingLevel",
        "ToolResultMessage",
        "UserMessage",
    ),
    "pith.app.export": ("ExportError", "export_html"),
    "pith.errors": ("ConfigError", "InputError", "PithError"),
    "pith.session": ("SessionFileError",),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "AgentEnd",
    "AgentSettled",
    "AgentStart",
    "AssistantMessage",
    "AutoRetryEnd",
    "AutoRetryStart",
    "CompactionEnd",
    "CompactionStart",
    "ConfigError",
    "ContextReport",
    "EventStream",
    "ExportError",
    "ForkOutcome",
    "ImageContent",
    "InputError",
    "MessageEnd",
    "MessageStart",
    "MessageUpdate",
    "Model",
    "PithError",
    "Session",
    "SessionEvent",
    "SessionFileError",
    "SessionSource",
    "TextContent",
    "TextDelta",
    "ThinkingLevel",
    "ToolExecutionEnd",
    "ToolExecutionStart",
    "ToolExecutionUpdate",
    "ToolResultMessage",
    "TurnEnd",
    "TurnStart",
    "UserMessage",
    "__version__",
    "create_session",
    "export_html",
    "list_models",
    "open_session",
]


def __getattr__(name: str) -> object:
    """A public name, imported on first use (then kept here)."""
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'pith' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
