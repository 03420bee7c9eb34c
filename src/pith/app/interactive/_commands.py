"""Commands of the interactive mode: `/tree`, `/resume`, `/new`, `/name`, `/model`,
`/thinking`, `/context`, `/settings`, `/help`, `/quit` (pith's own `/compact`, `/fork`,
`/clone`, `/export` and the extensions' commands go through the session as in every mode)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, get_args

from rich.text import Text

from pith.ai import ThinkingLevel
from pith.app._commands import BUILTIN_COMMANDS
from pith.app._navigation import new_session, switch_session
from pith.app.interactive._tree import tree_rows
from pith.errors import InputError

if TYPE_CHECKING:
    from pith.app.interactive._app import InteractiveApp

__all__ = ["InteractiveCommand", "interactive_commands"]

Handler = Callable[["InteractiveApp", str], Awaitable[None]]
_LEVELS: tuple[str, ...] = get_args(ThinkingLevel)


@dataclass(frozen=True)
class InteractiveCommand:
    name: str
    description: str
    handler: Handler
    arguments: Sequence[str] | Callable[[InteractiveApp], Sequence[str]] = ()
    """What Tab offers after the name: fixed words, or words computed for the session."""
    concurrent: bool = False
    """Runs beside a run in progress (it only reads, or only shows)."""

    async def run(self, app: InteractiveApp, arguments: str) -> None:
        await self.handler(app, arguments)

    def complete(self, app: InteractiveApp, prefix: str) -> Sequence[str]:
        words = self.arguments(app) if callable(self.arguments) else self.arguments
        return [word for word in words if word.startswith(prefix)]


def _model_keys(app: InteractiveApp) -> list[str]:
    return sorted(model.key for model in app.session.registry.available())


async def _tree(app: InteractiveApp, arguments: str) -> None:
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
    session.editor_text = moved.editor_text
    app.transcript.notice(
        "Moved in the tree"
        + (" (the branch left behind is summarized)." if choice else ".")
        + " The conversation now ends with:"
    )
    app.replay(session.messages, count=4)


async def _label(app: InteractiveApp, entry_id: str) -> None:
    store = app.session.store
    current = store.label(entry_id)
    typed = await app.ask("Label (empty removes it):", None, placeholder=current)
    if not isinstance(typed, str):
        return
    store.append_label(entry_id, typed.strip() or None)
    app.transcript.notice(f"Labelled {typed.strip()!r}." if typed.strip() else "Label removed.")


async def _resume(app: InteractiveApp, arguments: str) -> None:
    from pith.session import list_sessions

    store = app.session.store
    if store.path is None:
        raise InputError("this session is not saved (--no-session): nothing to resume from here")
    sessions = [s for s in list_sessions(store.path.parent) if s.path != store.path]
    if not sessions:
        app.transcript.notice("No other session in this folder.")
        return
    from pith.app._stores import format_session_list

    rows = format_session_list(sessions).split("\n")
    picked = await app.ask("Resume which session?", [row.strip() for row in rows])
    if not isinstance(picked, int):
        return
    if await switch_session(app.session, sessions[picked].path):
        app.transcript.notice(f"Resumed {sessions[picked].path}")
        app.replay(app.session.messages)
    else:
        app.transcript.notice("An extension kept you in this session.", "warning")


async def _new(app: InteractiveApp, arguments: str) -> None:
    if await new_session(app.session):
        app.transcript.notice("A new session: the conversation starts over.")
    else:
        app.transcript.notice("An extension kept you in this session.", "warning")


async def _name(app: InteractiveApp, arguments: str) -> None:
    store = app.session.store
    if not arguments:
        app.transcript.notice(
            f"This session is called {store.name!r}."
            if store.name
            else "This session has no name: /name <name> gives it one."
        )
        return
    store.append_session_info(arguments)
    app.transcript.notice(f"Session named {arguments!r}.")


async def _model(app: InteractiveApp, arguments: str) -> None:
    session = app.session
    registry = session.registry
    if arguments:
        choice = registry.find(arguments)
        model, level = choice.model, choice.thinking
    else:
        models = sorted(registry.available(), key=lambda m: m.key)
        if not models:
            raise InputError("no model has credentials: see docs/providers.md")
        keys = [m.key for m in models]
        current = keys.index(session.model.key) if session.model.key in keys else 0
        picked = await app.ask("Which model?", keys, initial=current)
        if not isinstance(picked, int):
            return
        model, level = models[picked], None
    if not await session.set_model(model):
        raise InputError(f"no API key for {model.key}: set it in models.json or the environment")
    if level is not None:
        session.set_thinking_level(level)
    app.transcript.notice(f"Model: {model.key}")


async def _thinking(app: InteractiveApp, arguments: str) -> None:
    session = app.session
    level = arguments.strip()
    if not level:
        current = _LEVELS.index(session.thinking) if session.thinking in _LEVELS else 0
        picked = await app.ask("Thinking level?", list(_LEVELS), initial=current)
        if not isinstance(picked, int):
            return
        level = _LEVELS[picked]
    if level not in _LEVELS:
        raise InputError(f"/thinking: {level!r} is not one of {', '.join(_LEVELS)}")
    session.set_thinking_level(level)  # type: ignore[arg-type]
    app.transcript.notice(f"Thinking: {level}")


async def _context(app: InteractiveApp, arguments: str) -> None:
    from pith.app._compaction import compaction_rules
    from pith.app._context_report import build_report, render_report

    session = app.session
    history = list(session.agent.messages)
    context = await session.agent.next_context()
    report = build_report(
        session.model,
        session.store,
        context,
        str(session.store.path or "(not saved)"),
        session.prompt_sections(),
        [f"/{template.name}" for template in session.resources.prompt_templates],
        compaction_rules(session),
        history,
    )
    app.print(render_report(report) + "\n")


async def _settings(app: InteractiveApp, arguments: str) -> None:
    from pith.app.interactive._settings import settings_dialog

    await settings_dialog(app)


async def _help(app: InteractiveApp, arguments: str) -> None:
    lines = Text()
    entries = [(f"/{name}", text) for name, text in BUILTIN_COMMANDS.items()]
    entries += [(f"/{c.name}", c.description) for c in app.commands.values()]
    entries += [
        (f"/{name}", command.description or f"({command.extension})")
        for name, command in app.session.extensions.commands.items()
    ]
    entries += [(f"/{t.name}", "prompt template") for t in app.session.resources.prompt_templates]
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


async def _copy(app: InteractiveApp, arguments: str) -> None:
    from pith.app.interactive._clipboard import copy_text

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


async def _session(app: InteractiveApp, arguments: str) -> None:
    from pith.ai import AssistantMessage, UserMessage
    from pith.app.interactive._footer import format_tokens, session_cost
    from pith.session import MessageEntry

    store = app.session.store
    entries = list(store.entries)
    messages = [e.message for e in entries if isinstance(e, MessageEntry)]
    replies = [m for m in messages if isinstance(m, AssistantMessage)]
    tokens_in = sum(m.usage.input + m.usage.cache_read + m.usage.cache_write for m in replies)
    tokens_out = sum(m.usage.output for m in replies)
    lines = [
        f"file      {store.path or '(not saved: --no-session)'}",
        f"id        {store.id}",
        f"name      {store.name or '(none; /name gives one)'}",
        f"entries   {len(entries)} ({len(app.session.messages)} messages on this branch)",
        f"messages  {sum(isinstance(m, UserMessage) for m in messages)} yours, "
        f"{len(replies)} replies, "
        f"{sum(getattr(m, 'role', '') == 'toolResult' for m in messages)} tool results",
        f"tokens    {format_tokens(tokens_in)} in / {format_tokens(tokens_out)} out",
        f"cost      ${session_cost(entries):.4f}",
    ]
    app.print("\n".join(lines) + "\n")


async def _quit(app: InteractiveApp, arguments: str) -> None:
    app.quit()


def interactive_commands() -> dict[str, InteractiveCommand]:
    commands = [
        InteractiveCommand("tree", "move to another point of this session's tree", _tree),
        InteractiveCommand("resume", "continue another session of this folder", _resume),
        InteractiveCommand("new", "start a new session", _new),
        InteractiveCommand("name", "name this session (/name <name>)", _name),
        InteractiveCommand(
            "model", "choose the model (/model [provider/id])", _model, arguments=_model_keys
        ),
        InteractiveCommand("thinking", "choose the thinking level", _thinking, arguments=_LEVELS),
        InteractiveCommand(
            "context", "what the next request would send, with sizes", _context, concurrent=True
        ),
        InteractiveCommand("settings", "change pith's settings", _settings),
        InteractiveCommand("copy", "copy the last answer to the clipboard", _copy, concurrent=True),
        InteractiveCommand(
            "session", "this session's file, size, tokens and cost", _session, concurrent=True
        ),
        InteractiveCommand("help", "commands and keys", _help, concurrent=True),
        InteractiveCommand("quit", "leave pith (the session is saved)", _quit, concurrent=True),
        InteractiveCommand("exit", "leave pith (the session is saved)", _quit, concurrent=True),
    ]
    return {command.name: command for command in commands}
