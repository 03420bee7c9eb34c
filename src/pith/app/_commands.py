"""pith's own slash commands: `/compact`, `/fork`, `/clone`, `/export`.

They work in every mode (`pith -c -p /clone` continues the latest session in a copy). A
built-in name is taken before an extension's command of the same name. What a command did
is said with a notice; what it leaves for the user to edit (`/fork`'s message) is kept in
`BuiltinOutcome.editor_text`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pith.app._navigation import clone_session, fork_points, fork_session
from pith.errors import InputError, PithError

if TYPE_CHECKING:
    from pith.app._session import AgentSession

__all__ = ["BUILTIN_COMMANDS", "BuiltinOutcome", "parse_builtin", "run_builtin"]

BUILTIN_COMMANDS: dict[str, str] = {
    "compact": "summarize the older part of the conversation now (/compact [focus])",
    "fork": "continue in a new session from before one of your messages (/fork <entry-id>)",
    "clone": "continue in a new session holding this branch as it is",
    "export": "write this session as a self-contained HTML page (/export [file])",
}
"""Name → one-line description, as listed to users and RPC clients."""


@dataclass
class BuiltinOutcome:
    editor_text: str | None = None


def parse_builtin(text: str) -> tuple[str, str] | None:
    """`(name, arguments)` when `text` invokes a built-in command, else None."""
    if not text.startswith("/"):
        return None
    name, _, arguments = text[1:].partition(" ")
    if name not in BUILTIN_COMMANDS:
        return None
    return name, arguments.strip()


async def run_builtin(session: AgentSession, name: str, arguments: str) -> BuiltinOutcome:
    """Carry out a built-in command; a refusal is said as an error notice, never raised."""
    try:
        return await _run(session, name, arguments)
    except InputError as error:
        session.ui.notify(str(error), "error")
        return BuiltinOutcome()


async def _run(session: AgentSession, name: str, arguments: str) -> BuiltinOutcome:
    if name == "compact":
        outcome = await session.compact(arguments or None)
        if outcome.entry is not None:
            session.ui.notify(f"Compacted: {outcome.entry.tokens_before} tokens summarized")
        return BuiltinOutcome()
    if name == "fork":
        if not arguments:
            _list_fork_points(session)
            return BuiltinOutcome()
        forked = await fork_session(session, arguments, before=True)
        if forked.cancelled:
            session.ui.notify("An extension cancelled the fork.", "warning")
            return BuiltinOutcome()
        session.ui.notify(f"Forked into {session.store.path or 'a new session'}")
        return BuiltinOutcome(forked.selected_text)
    if name == "export":
        return _export(session, arguments)
    if arguments:
        raise InputError("/clone takes no arguments")
    cloned = await clone_session(session)
    if cloned.cancelled:
        session.ui.notify("An extension cancelled the clone.", "warning")
    else:
        session.ui.notify(f"Cloned into {session.store.path or 'a new session'}")
    return BuiltinOutcome()


def _export(session: AgentSession, arguments: str) -> BuiltinOutcome:
    from pith.app._export import export_store

    try:
        path = export_store(session.store, arguments or None, cwd=session.cwd)
    except PithError as error:
        session.ui.notify(str(error), "error")
    else:
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
