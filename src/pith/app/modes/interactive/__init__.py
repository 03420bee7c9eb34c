"""The interactive mode: `pith` in a terminal (docs/interactive.md)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pith.app.modes.interactive._plain import PlainUI, run_plain
from pith.app.modes.interactive._ui import TerminalUI

if TYPE_CHECKING:
    from pith.app.session import AgentSession
    from pith.resources import TrustChoice, TrustQuestion

__all__ = [
    "PlainUI",
    "TerminalUI",
    "ask_trust",
    "choose_one",
    "is_plain_terminal",
    "run_interactive",
    "run_plain",
]


def is_plain_terminal() -> bool:
    """A terminal that cannot move its cursor or show colours (`TERM=dumb` or unset)."""
    return os.environ.get("TERM", "dumb") in ("dumb", "")


async def run_interactive(
    session: AgentSession,
    *,
    agent_dir: Path,
    first: str | None = None,
    rest: Sequence[str] = (),
    typed: Callable[[], tuple[str, bytes]] | None = None,
) -> int:
    """Run until the user quits; the exit code. `typed` ends what stood in for the editor
    while the session was built (called once the terminal UI is ready to draw): what was
    typed into it, its text and then the raw keys after it, which the editor takes first."""
    if isinstance(session.ui, PlainUI) or is_plain_terminal():
        return await run_plain(session, first, rest)
    from pith.app.modes.interactive._app import InteractiveApp

    app = InteractiveApp(session, agent_dir=agent_dir, color="NO_COLOR" not in os.environ)
    early = typed() if typed is not None else None
    if isinstance(session.ui, TerminalUI):
        session.ui.bind(app)
    return await app.run(first, rest, typed=early)


async def choose_one(title: str, options: Sequence[str]) -> int | None:
    """A question asked before the session starts (trust, `pith -r`): the index chosen, None
    when cancelled."""
    if is_plain_terminal():
        picked = await PlainUI().select(title, options)
        return list(options).index(picked) if picked is not None else None
    from pith.app.modes.interactive._choose import choose

    return await choose(title, options)


async def ask_trust(question: TrustQuestion) -> TrustChoice | None:
    """The project-trust question at start, in the terminal."""
    index = await choose_one(question.prompt, [option.label for option in question.options])
    return question.options[index].choice if index is not None else None
