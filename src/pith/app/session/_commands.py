"""pith's own slash commands carried out: what each does without a terminal (the table of
them, with what each needs, is `_builtins`).

The terminal UI gives some of them a richer form (a picker for `/tree`); the others run from
here in every mode. A built-in name is taken before an extension's command of the same name.

What a command did is said with a notice; what it shows (a report, a list) goes to the
session's `command_output`: standard output in print mode, a record in JSON mode, the
transcript in the terminal UI, a notice for an RPC client. What it leaves for the user to edit
(`/fork`'s message) is kept in `BuiltinOutcome.editor_text`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pith.app.session._builtins import BUILTINS, LEVELS
from pith.app.session._command_host import CommandSession
from pith.app.session._command_reports import REPORTS
from pith.app.session._dispatch import Invocation, refusal, unknown_command
from pith.app.session._navigation import fork_points
from pith.errors import InputError, PithError
from pith.extensions import Command, Mode

__all__ = ["BuiltinOutcome", "invocation_refusal", "run_builtin"]


@dataclass
class BuiltinOutcome:
    editor_text: str | None = None
    failed: bool = False
    """The command was refused (said as an error notice)."""


def invocation_refusal(
    invocation: Invocation, mode: Mode, extension_commands: Mapping[str, Command]
) -> str | None:
    """Why `invocation` cannot be carried out in `mode` (an unknown command, or one that
    needs the terminal), in one line; None when it can."""
    if invocation.kind == "unknown":
        return unknown_command(invocation.name)
    if invocation.kind == "builtin":
        builtin = BUILTINS[invocation.name]
        return refusal(builtin.name, builtin.needs, invocation.arguments, mode, builtin.instead)
    if invocation.kind == "extension":
        command = extension_commands[invocation.name]
        if command.needs_ui:
            return refusal(command.name, "ui", invocation.arguments, mode)
    return None


async def run_builtin(session: CommandSession, name: str, arguments: str) -> BuiltinOutcome:
    """Carry out a built-in command; a refusal is said as an error notice, never raised."""
    try:
        return await _run(session, name, arguments)
    except InputError as error:
        session.ui.notify(str(error), "error")
        return BuiltinOutcome(failed=True)


async def _run(session: CommandSession, name: str, arguments: str) -> BuiltinOutcome:
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


async def _fork(session: CommandSession, arguments: str) -> BuiltinOutcome:
    if not arguments:
        _list_fork_points(session)
        return BuiltinOutcome()
    forked = await session.fork(arguments)
    if forked.cancelled:
        session.ui.notify("An extension cancelled the fork.", "warning")
        return BuiltinOutcome()
    session.ui.notify(f"Forked into {session.store.path or 'a new session'}")
    return BuiltinOutcome(forked.selected_text)


async def _clone(session: CommandSession, arguments: str) -> BuiltinOutcome:
    if arguments:
        raise InputError("/clone takes no arguments")
    cloned = await session.clone()
    if cloned.cancelled:
        session.ui.notify("An extension cancelled the clone.", "warning")
    else:
        session.ui.notify(f"Cloned into {session.store.path or 'a new session'}")
    return BuiltinOutcome()


async def _new(session: CommandSession, arguments: str) -> BuiltinOutcome:
    if arguments:
        raise InputError("/new takes no arguments")
    if await session.new_session():
        session.ui.notify("A new session: the conversation starts over.")
    else:
        session.ui.notify("An extension kept you in this session.", "warning")
    return BuiltinOutcome()


async def _model(session: CommandSession, arguments: str) -> BuiltinOutcome:
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


def _thinking(session: CommandSession, arguments: str) -> BuiltinOutcome:
    level = arguments.strip()
    if not level:
        session.command_output("thinking", f"Thinking: {session.thinking}\n")
        return BuiltinOutcome()
    if level not in LEVELS:
        raise InputError(f"/thinking: {level!r} is not one of {', '.join(LEVELS)}")
    session.set_thinking_level(level)  # type: ignore[arg-type]
    session.ui.notify(f"Thinking: {level}")
    return BuiltinOutcome()


def _name(session: CommandSession, arguments: str) -> BuiltinOutcome:
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


def _export(session: CommandSession, arguments: str) -> BuiltinOutcome:
    from pith.app.export import export_store

    try:
        path = export_store(session.store, arguments or None, cwd=session.cwd)
    except PithError as error:
        session.ui.notify(str(error), "error")
        return BuiltinOutcome(failed=True)
    session.ui.notify(f"Exported to {path}")
    return BuiltinOutcome()


def _list_fork_points(session: CommandSession) -> None:
    points = fork_points(session.store)
    if not points:
        session.ui.notify("Nothing to fork from yet: no message of yours in this session.")
        return
    lines = [f"{entry_id}  {_first_line(text)}" for entry_id, text in points]
    session.ui.notify("Fork from which message? /fork <id>\n" + "\n".join(lines))


def _first_line(text: str, width: int = 72) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= width else line[: width - 1] + "…"
