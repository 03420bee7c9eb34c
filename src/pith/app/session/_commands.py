"""pith's own slash commands: the table every mode dispatches with, and what each does without
a terminal.

Every built-in is listed here with what it needs: most run in every mode (`pith -c -p /clone`
continues the latest session in a copy, `pith -p -c /session` prints the summary), some need
the terminal UI (`/settings`, `/copy`, `/resume`) or need it only to choose from a list (`/model`
without a model). The terminal UI gives some of them a richer form (a picker for `/tree`); the
others run from here in every mode. A built-in name is taken before an extension's command of
the same name.

What a command did is said with a notice; what it shows (a report, a list) goes to the
session's `command_output`: standard output in print mode, a record in JSON mode, the
transcript in the terminal UI, a notice for an RPC client. What it leaves for the user to edit
(`/fork`'s message) is kept in `BuiltinOutcome.editor_text`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, get_args

from pith.ai import ThinkingLevel
from pith.app.session._command_reports import REPORTS
from pith.app.session._dispatch import Needs
from pith.app.session._navigation import clone_session, fork_points, fork_session, new_session
from pith.errors import InputError, PithError

if TYPE_CHECKING:
    from pith.app.session._session import AgentSession

__all__ = ["BUILTINS", "BuiltinCommand", "BuiltinOutcome", "run_builtin"]

_LEVELS: tuple[str, ...] = get_args(ThinkingLevel)


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
        "name the level: /thinking " + "|".join(_LEVELS),
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


@dataclass
class BuiltinOutcome:
    editor_text: str | None = None
    failed: bool = False
    """The command was refused (said as an error notice)."""


async def run_builtin(session: AgentSession, name: str, arguments: str) -> BuiltinOutcome:
    """Carry out a built-in command; a refusal is said as an error notice, never raised."""
    try:
        return await _run(session, name, arguments)
    except InputError as error:
        session.ui.notify(str(error), "error")
        return BuiltinOutcome(failed=True)


async def _run(session: AgentSession, name: str, arguments: str) -> BuiltinOutcome:
    if name == "compact":
        outcome = await session.compact(arguments or None)
        if outcome.entry is not None:
            session.ui.notify(f"Compacted: {outcome.entry.tokens_before} tokens summarized")
        return BuiltinOutcome()
    if name == "fork":
        return await _fork(session, arguments)
    if name == "export":
        return _export(session, arguments)
    if name == "clone":
        return await _clone(session, arguments)
    if name == "new":
        return await _new(session, arguments)
    if name == "model":
        return await _model(session, arguments)
    if name == "thinking":
        return _thinking(session, arguments)
    if name == "name":
        return _name(session, arguments)
    show = REPORTS.get(name)
    if show is None:
        raise InputError(f"/{name} runs in pith's terminal UI only: type it in the editor")
    session.command_output(name, await show(session))
    return BuiltinOutcome()


async def _fork(session: AgentSession, arguments: str) -> BuiltinOutcome:
    if not arguments:
        _list_fork_points(session)
        return BuiltinOutcome()
    forked = await fork_session(session, arguments, before=True)
    if forked.cancelled:
        session.ui.notify("An extension cancelled the fork.", "warning")
        return BuiltinOutcome()
    session.ui.notify(f"Forked into {session.store.path or 'a new session'}")
    return BuiltinOutcome(forked.selected_text)


async def _clone(session: AgentSession, arguments: str) -> BuiltinOutcome:
    if arguments:
        raise InputError("/clone takes no arguments")
    cloned = await clone_session(session)
    if cloned.cancelled:
        session.ui.notify("An extension cancelled the clone.", "warning")
    else:
        session.ui.notify(f"Cloned into {session.store.path or 'a new session'}")
    return BuiltinOutcome()


async def _new(session: AgentSession, arguments: str) -> BuiltinOutcome:
    if arguments:
        raise InputError("/new takes no arguments")
    if await new_session(session):
        session.ui.notify("A new session: the conversation starts over.")
    else:
        session.ui.notify("An extension kept you in this session.", "warning")
    return BuiltinOutcome()


async def _model(session: AgentSession, arguments: str) -> BuiltinOutcome:
    if not arguments:
        session.command_output("model", f"Model: {session.model.key}\n")
        return BuiltinOutcome()
    choice = session.registry.find(arguments)
    if not await session.set_model(choice.model):
        raise InputError(
            f"no API key for {choice.model.key}: set it in models.json or the environment"
        )
    if choice.thinking is not None:
        session.set_thinking_level(choice.thinking)
    session.ui.notify(f"Model: {choice.model.key}")
    return BuiltinOutcome()


def _thinking(session: AgentSession, arguments: str) -> BuiltinOutcome:
    level = arguments.strip()
    if not level:
        session.command_output("thinking", f"Thinking: {session.thinking}\n")
        return BuiltinOutcome()
    if level not in _LEVELS:
        raise InputError(f"/thinking: {level!r} is not one of {', '.join(_LEVELS)}")
    session.set_thinking_level(level)  # type: ignore[arg-type]
    session.ui.notify(f"Thinking: {level}")
    return BuiltinOutcome()


def _name(session: AgentSession, arguments: str) -> BuiltinOutcome:
    store = session.store
    if not arguments:
        session.command_output(
            "name",
            f"This session is called {store.name!r}.\n"
            if store.name
            else "This session has no name: /name <name> gives it one.\n",
        )
        return BuiltinOutcome()
    store.append_session_info(arguments)
    session.ui.notify(f"Session named {arguments!r}.")
    return BuiltinOutcome()


def _export(session: AgentSession, arguments: str) -> BuiltinOutcome:
    from pith.app.export import export_store

    try:
        path = export_store(session.store, arguments or None, cwd=session.cwd)
    except PithError as error:
        session.ui.notify(str(error), "error")
        return BuiltinOutcome(failed=True)
    session.ui.notify(f"Exported to {path}")
    return BuiltinOutcome()


def _list_fork_points(session: AgentSession) -> None:
    points = fork_points(session.store)
    if not points:
        session.ui.notify("Nothing to fork from yet: no message of yours in this session.")
        return
    lines = [f"{entry_id}  {_first_line(text)}" for entry_id, text in points]
    session.ui.notify("Fork from which message? /fork <id>\n" + "\n".join(lines))


def _first_line(text: str, width: int = 72) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= width else line[: width - 1] + "…"
