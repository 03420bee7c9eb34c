"""Which command a line of text invokes, and whether the mode pith runs in can carry it out.

Pure policy, shared by every mode (print, JSON, RPC, the terminal UI): text in, a decision out.
A text invokes a command when its first word is `/name` for a name pith knows — a built-in, an
extension's command, a prompt template, a skill (`/skill:name`). A first word that only looks
like a command (`/[a-z][\\w:-]*`, and no existing file or folder of that name) is an unknown
command: it is refused, never sent to the model by accident. A text that starts with a space,
or with a path (`/etc/hosts explain this`), is plain text.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "COMMAND_WORD",
    "CommandNames",
    "Invocation",
    "Needs",
    "classify",
    "refusal",
    "split_command",
    "unknown_command",
]

COMMAND_WORD = re.compile(r"/[a-z][\w:-]*", re.ASCII)
"""What a command name looks like when typed."""

Kind = Literal["builtin", "extension", "template", "skill", "unknown"]
Needs = Literal["nothing", "ui", "terminal", "terminal-to-choose"]
"""What a command needs: nothing; someone to answer its questions (the terminal UI or an RPC
client); pith's terminal UI; the terminal only when no argument says what to choose."""

Mode = Literal["interactive", "print", "json", "rpc", "tool"]


@dataclass(frozen=True)
class CommandNames:
    """The names a session knows, by kind (skills as `skill:name`)."""

    builtin: Collection[str] = ()
    extension: Collection[str] = ()
    template: Collection[str] = ()
    skill: Collection[str] = ()


@dataclass(frozen=True)
class Invocation:
    kind: Kind
    name: str
    arguments: str


def split_command(text: str) -> tuple[str, str] | None:
    """`(name, arguments)` when `text` starts with `/` and a name; the arguments stripped."""
    if not text.startswith("/"):
        return None
    word, *rest = text.split(maxsplit=1)
    name = word[1:]
    if not name:
        return None
    return name, rest[0].strip() if rest else ""


def classify(
    text: str, names: CommandNames, *, exists: Callable[[str], bool] = os.path.exists
) -> Invocation | None:
    """The command `text` invokes (an `unknown` one included), or None for plain text."""
    parts = split_command(text)
    if parts is None:
        return None
    name, arguments = parts
    kinds: tuple[tuple[Kind, Collection[str]], ...] = (
        ("builtin", names.builtin),
        ("extension", names.extension),
        ("template", names.template),
        ("skill", names.skill),
    )
    for kind, known in kinds:
        if name in known:
            return Invocation(kind, name, arguments)
    word = "/" + name
    if COMMAND_WORD.fullmatch(word) and not exists(word):
        return Invocation("unknown", name, arguments)
    return None


def refusal(name: str, needs: Needs, arguments: str, mode: Mode, instead: str = "") -> str | None:
    """Why `/name arguments` cannot run in `mode`, in one line; None when it can."""
    if mode == "interactive" or needs == "nothing":
        return None
    if needs == "ui" and mode == "rpc":
        return None
    if needs == "terminal-to-choose" and arguments:
        return None
    what = "needs the terminal"
    if needs == "ui":
        what += " (it asks questions no one can answer here)"
    elif needs == "terminal-to-choose":
        what += " to choose from a list"
    hint = f"; {instead}" if instead else "; run it in pith's terminal UI"
    return f"/{name} {what}{hint}"


def unknown_command(name: str) -> str:
    """The one line that refuses `/name`, saying how to send the text anyway."""
    return (
        f"unknown command /{name}; to send it as text, start with a space "
        f'(" /{name} …"); /help lists the commands'
    )
