"""pith's own slash commands as a table: each one's name, what it does, and what it needs.

Most run in every mode (`pith -c -p /clone` continues the latest session in a copy,
`pith -p -c /session` prints the summary), some need the terminal UI (`/settings`, `/copy`,
`/resume`) or need it only to choose from a list (`/model` without a model).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from pith.ai import ThinkingLevel
from pith.app.session._dispatch import Needs

__all__ = ["BUILTINS", "LEVELS", "BuiltinCommand"]

LEVELS: tuple[str, ...] = get_args(ThinkingLevel)


@dataclass(frozen=True)
class BuiltinCommand:
    name: str
    description: str
    needs: Needs = "nothing"
    instead: str = ""
    """What to do where the command cannot run (said when it is refused)."""


_TABLE = (
    BuiltinCommand(
        "compact", "summarize the older part of the conversation now (/compact [focus])"
    ),
    BuiltinCommand(
        "fork", "continue in a new session from before one of your messages (/fork <entry-id>)"
    ),
    BuiltinCommand("clone", "continue in a new session holding this branch as it is"),
    BuiltinCommand("export", "write this session as a self-contained HTML page (/export [file])"),
    BuiltinCommand("name", "name this session (/name <name>); alone, say its name"),
    BuiltinCommand("session", "this session's file, size, tokens and cost"),
    BuiltinCommand("context", "what the next request would send, with sizes"),
    BuiltinCommand("tree", "this session's tree: move to another point of it (printed as text)"),
    BuiltinCommand("new", "start a new session"),
    BuiltinCommand(
        "model",
        "choose the model (/model [provider/id])",
        "terminal-to-choose",
        "name the model: /model provider/id (pith --list-models lists them)",
    ),
    BuiltinCommand(
        "thinking",
        "choose the thinking level (/thinking [level])",
        "terminal-to-choose",
        "name the level: /thinking " + "|".join(LEVELS),
    ),
    BuiltinCommand(
        "resume",
        "continue another session of this folder",
        "terminal",
        "pass --session <id> (pith sessions lists them), or -c for the latest",
    ),
    BuiltinCommand(
        "settings", "change pith's settings", "terminal", "edit settings.json (docs/resources.md)"
    ),
    BuiltinCommand(
        "copy",
        "copy the last answer to the clipboard",
        "terminal",
        "the answer is on standard output (RPC: get_last_assistant_text)",
    ),
    BuiltinCommand("help", "commands and keys"),
    BuiltinCommand(
        "quit",
        "leave pith (the session is saved)",
        "terminal",
        "a print run ends by itself; an RPC client closes standard input",
    ),
    BuiltinCommand(
        "exit",
        "leave pith (the session is saved)",
        "terminal",
        "a print run ends by itself; an RPC client closes standard input",
    ),
)

BUILTINS: dict[str, BuiltinCommand] = {command.name: command for command in _TABLE}
"""Every built-in command by name, in the order users see them listed."""
