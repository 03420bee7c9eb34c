"""What the commands that only show something say: `/session`, `/context`, `/tree`, `/help`,
as text (each ending with a newline) for whichever mode runs them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from pith.ai import AssistantMessage, UserMessage
from pith.app.session._builtins import BUILTINS
from pith.app.session._command_host import CommandSession
from pith.app.session._compaction import compaction_rules
from pith.app.session._context_report import build_report, render_report
from pith.app.session._context_tools import prepare_report
from pith.app.session._dispatch import refusal
from pith.app.session._figures import format_tokens, session_cost
from pith.app.session._tree_rows import tree_rows
from pith.session import MessageEntry

__all__ = ["REPORTS", "command_list", "context_report", "help_text", "session_summary"]


async def session_summary(session: CommandSession) -> str:
    """The session's file, id, name, size, tokens and cost."""
    store = session.store
    entries = list(store.entries)
    messages = [e.message for e in entries if isinstance(e, MessageEntry)]
    replies = [m for m in messages if isinstance(m, AssistantMessage)]
    tokens_in = sum(m.usage.input + m.usage.cache_read + m.usage.cache_write for m in replies)
    tokens_out = sum(m.usage.output for m in replies)
    lines = [
        f"file      {store.path or '(not saved: --no-session)'}",
        f"id        {store.id}",
        f"name      {store.name or '(none; /name gives one)'}",
        f"entries   {len(entries)} ({len(session.messages)} messages on this branch)",
        f"messages  {sum(isinstance(m, UserMessage) for m in messages)} yours, "
        f"{len(replies)} replies, "
        f"{sum(getattr(m, 'role', '') == 'toolResult' for m in messages)} tool results",
        f"tokens    {format_tokens(tokens_in)} in / {format_tokens(tokens_out)} out",
        f"cost      ${session_cost(entries):.4f}",
    ]
    return "\n".join(lines) + "\n"


async def context_report(session: CommandSession) -> str:
    """What `pith context` shows for this session: the next request, with sizes."""
    await prepare_report(session.extensions)
    history = list(session.agent.messages)  # before the context hooks: to show stubs
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
        extensions=session.extensions,
    )
    return render_report(report) + "\n"


async def tree_text(session: CommandSession) -> str:
    """The session tree, one row per point worth going back to (◉ is where you are)."""
    rows = tree_rows(session.store)
    if not rows:
        return "The session is empty: no tree yet.\n"
    return "".join(row.text + "\n" for row in rows)


def command_list(session: CommandSession) -> list[tuple[str, str]]:
    """`(/name, description)` of every command, template and skill this session knows, the
    ones this mode cannot run marked."""

    def marked(name: str, text: str, needs: str) -> str:
        if needs == "terminal" and session.mode != "interactive":
            return f"{text} (needs the terminal)"
        if needs == "ui" and refusal(name, "ui", "", session.mode) is not None:
            return f"{text} (needs the terminal)"
        return text

    entries = [(f"/{c.name}", marked(c.name, c.description, c.needs)) for c in BUILTINS.values()]
    for name, command in session.extensions.commands.items():
        text = command.description or f"({command.extension})"
        entries.append((f"/{name}", marked(name, text, "ui" if command.needs_ui else "")))
    entries += [(f"/{t.name}", "prompt template") for t in session.resources.prompt_templates]
    entries += [(f"/skill:{s.name}", "skill") for s in session.resources.skills]
    return entries


async def help_text(session: CommandSession) -> str:
    """The commands, one a line."""
    entries = command_list(session)
    width = max(len(name) for name, _ in entries) + 2
    lines = [f"{name.ljust(width)}{text}" for name, text in sorted(entries)]
    return "\n".join(lines) + "\n"


REPORTS: dict[str, Callable[[CommandSession], Awaitable[str]]] = {
    "session": session_summary,
    "context": context_report,
    "tree": tree_text,
    "help": help_text,
}
"""The built-ins that only show something, and what they show."""
