"""The terminal forms of pith's commands: pickers and dialogs for `/tree`, `/resume`,
`/model`, `/thinking`, `/settings`, the clipboard for `/copy`, `/help` with its keys, `/quit`.
The other built-ins (`/name`, `/session`, `/context`, `/compact`, ...) and the extensions'
commands go through the session, as in every mode; `pith.app.session._commands` lists them all."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import get_args

from rich.text import Text

from pith.ai import ThinkingLevel
from pith.app.modes.interactive._host import CommandHost
from pith.app.session import BUILTINS, command_list, run_builtin, tree_rows
from pith.errors import InputError

__all__ = ["InteractiveCommand", "interactive_commands"]

Handler = Callable[[CommandHost, str], Awaitable[None]]
_LEVELS: tuple[str, ...] = get_args(ThinkingLevel)


@dataclass(frozen=True)
class InteractiveCommand:
    name: str
    handler: Handler
    arguments: Sequence[str] | Callable[[CommandHost], Sequence[str]] = ()
    """What Tab offers after the name: fixed words, or words computed for the session."""
    concurrent: bool = False
    """Runs beside a run in progress (it only reads, or only shows)."""

    @property
    def description(self) -> str:
        return BUILTINS[self.name].description

    async def run(self, app: CommandHost, arguments: str) -> None:
        await self.handler(app, arguments)

    def complete(self, app: CommandHost, prefix: str) -> Sequence[str]:
        words = self.arguments(app) if callable(self.arguments) else self.arguments
        return [word for word in words if word.startswith(prefix)]


def _model_keys(app: CommandHost) -> list[str]:
    return sorted(model.key for model in app.session.registry.available())


async def _tree(app: CommandHost, arguments: str) -> None:
    session = app.session
    rows = tree_rows(session.store)
    if not rows:
        app.transcript.notice("The session is empty: nothing to navigate yet.")
        return
    current = next((i for i, row in enumerate(rows) if row.is_leaf), len(rows) - 1)
    picked = await app.ask(
        "Go to which point of the conversation? (◉ is where you are; labels in [ ])",
        [row.text for row in rows],
        initial=current,
    )
    if not isinstance(picked, int):
        return
    row = rows[picked]
    actions = [
        "Go there",
        "Go there and summarize the branch you leave",
        "Go there and summarize it, with your instructions…",
        "Label this point…",
    ]
    if row.is_leaf:
        actions = actions[3:]
    action = await app.ask(f"{row.text.strip()}", actions)
    if not isinstance(action, int):
        return
    if actions[action].startswith("Label"):
        await _label(app, row.entry_id)
        return
    target = row.entry_id
    choice = action
    instructions: str | None = None
    if choice == 2:
        typed = await app.ask("What should the summary focus on?", None)
        if not isinstance(typed, str):
            return
        instructions = typed.strip() or None
    app.transcript.status = "Summarizing the branch you are leaving…" if choice else ""
    app.refresh()
    try:
        moved = await session.navigate_tree(
            target, summarize=bool(choice), instructions=instructions
        )
    finally:
        app.transcript.status = ""
    if moved.cancelled or moved.aborted:
        app.transcript.notice("Stayed where you were.", "warning")
        return
    app.editor_offer = moved.editor_text
    app.transcript.notice(
        "Moved in the tree"
        + (" (the branch left behind is summarized)." if choice else ".")
        + " The conversation now ends with:"
    )
    app.replay(session.messages, count=4)


async def _label(app: CommandHost, entry_id: str) -> None:
    store = app.session.store
    current = store.label(entry_id)
    typed = await app.ask("Label (empty removes it):", None, placeholder=current)
    if not isinstance(typed, str):
        return
    store.append_label(entry_id, typed.strip() or None)
    app.transcript.notice(f"Labelled {typed.strip()!r}." if typed.strip() else "Label removed.")


async def _resume(app: CommandHost, arguments: str) -> None:
    from pith.session import list_sessions

    store = app.session.store
    if store.path is None:
        raise InputError("this session is not saved (--no-session): nothing to resume from here")
    sessions = [s for s in list_sessions(store.path.parent) if s.path != store.path]
    if not sessions:
        app.transcript.notice("No other session in this folder.")
        return
    from pith.app.session import format_session_list

    rows = format_session_list(sessions).split("\n")
    picked = await app.ask("Resume which session?", [row.strip() for row in rows])
    if not isinstance(picked, int):
        return
    if await app.session.switch_session(sessions[picked].path):
        app.transcript.notice(f"Resumed {sessions[picked].path}")
        app.replay(app.session.messages)
    else:
        app.transcript.notice("An extension kept you in this session.", "warning")


async def _model(app: CommandHost, arguments: str) -> None:
    session = app.session
    if arguments:
        await run_builtin(session, "model", arguments)
        return
    models = sorted(session.registry.available(), key=lambda m: m.key)
    if not models:
        raise InputError("no model has credentials: see docs/providers.md")
    keys = [m.key for m in models]
    current = keys.index(session.model.key) if session.model.key in keys else 0
    picked = await app.ask("Which model?", keys, initial=current)
    if isinstance(picked, int):
        await run_builtin(session, "model", keys[picked])


async def _thinking(app: CommandHost, arguments: str) -> None:
    session = app.session
    level = arguments.strip()
    if not level:
        current = _LEVELS.index(session.thinking) if session.thinking in _LEVELS else 0
        picked = await app.ask("Thinking level?", list(_LEVELS), initial=current)
        if not isinstance(picked, int):
            return
        level = _LEVELS[picked]
    await run_builtin(session, "thinking", level)


async def _settings(app: CommandHost, arguments: str) -> None:
    from pith.app.modes.interactive._settings import settings_dialog

    await settings_dialog(app)


async def _help(app: CommandHost, arguments: str) -> None:
    lines = Text()
    entries = command_list(app.session)
    width = max(len(name) for name, _ in entries) + 2
    for name, text in sorted(entries):
        lines.append(name.ljust(width), style="bold")
        lines.append(text + "\n")
    lines.append(
        "\n!cmd runs a shell command (!!cmd keeps it from the model) · @path attaches a file\n"
        "Enter sends (steers while the agent works) · Alt+Enter queues a follow-up · "
        "Ctrl+J new line\nEsc stops the run · Ctrl+O shows the last tool output · "
        "Ctrl+T thinking on/off · Ctrl+C clears · Ctrl+D quits",
        style="dim",
    )
    app.print(app.painter.render(lines))


async def _copy(app: CommandHost, arguments: str) -> None:
    from pith.app.modes.interactive._clipboard import copy_text

    reply = app.session.last_reply()
    text = reply.text() if reply is not None else ""
    if not text.strip():
        app.transcript.notice("No answer to copy yet.")
        return
    program = copy_text(text, app.write_raw)
    via = f" (and {program})" if program else ""
    app.transcript.notice(
        f"Copied the last answer: {len(text):,} characters, via the terminal{via}."
    )


async def _quit(app: CommandHost, arguments: str) -> None:
    app.quit()


def interactive_commands() -> dict[str, InteractiveCommand]:
    commands = [
        InteractiveCommand("tree", _tree),
        InteractiveCommand("resume", _resume),
        InteractiveCommand("model", _model, arguments=_model_keys),
        InteractiveCommand("thinking", _thinking, arguments=_LEVELS),
        InteractiveCommand("settings", _settings),
        InteractiveCommand("copy", _copy, concurrent=True),
        InteractiveCommand("help", _help, concurrent=True),
        InteractiveCommand("quit", _quit, concurrent=True),
        InteractiveCommand("exit", _quit, concurrent=True),
    ]
    return {command.name: command for command in commands}
