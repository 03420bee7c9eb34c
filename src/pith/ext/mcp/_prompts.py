"""MCP prompts as slash commands: `/mcp__<server>__<prompt> key=value ...`.

A server's prompt is a message template the user asks for by name. Each one becomes a
command named like a tool (`mcp__<server>__<prompt>`, every character other than a letter, a
digit or `_` made `_`). Its arguments are `key=value` words (shell quoting works:
`focus="error handling"`); a prompt with exactly one argument also takes the whole text as
that argument. The command gets the prompt from the server and sends its text as the user's
message, so the model answers it like anything typed. Pure, apart from `PromptCommands`.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from pith.ai import ImageContent, TextContent

__all__ = [
    "PromptArguments",
    "argument_completions",
    "parse_prompt_arguments",
    "prompt_command_name",
    "prompt_text",
]


@dataclass(frozen=True)
class PromptArguments:
    """The arguments a command line gave a prompt, or the one line saying what is wrong."""

    values: dict[str, str]
    problem: str | None = None


def prompt_command_name(server: str, prompt: str) -> str:
    """The command's name: the name a tool `prompt` of `server` would get."""
    from pith.mcp import tool_name

    return tool_name(server, prompt)


def parse_prompt_arguments(
    text: str, names: Sequence[str], required: Sequence[str], command: str
) -> PromptArguments:
    """`key=value` words (or, for a prompt of one argument, the whole text) checked against
    the prompt's argument `names`; a missing required one or an unknown key is a problem."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        return PromptArguments({}, f"/{command}: cannot read the arguments ({error})")
    values: dict[str, str] = {}
    if len(names) == 1 and words and not all("=" in word for word in words):
        key, _, value = text.strip().partition("=")
        values[names[0]] = value if key == names[0] else " ".join(words)
    else:
        for word in words:
            key, sep, value = word.partition("=")
            if not sep:
                usage = " ".join(f"{name}=…" for name in names) or "no arguments"
                return PromptArguments({}, f"/{command}: give arguments as key=value ({usage})")
            if key not in names:
                known = ", ".join(names) or "none"
                return PromptArguments(
                    {}, f"/{command}: no argument {key!r} (its arguments: {known})"
                )
            values[key] = value
    missing = [name for name in required if name not in values]
    if missing:
        listed = " ".join(f"{name}=…" for name in missing)
        return PromptArguments(values, f"/{command} needs {listed}")
    return PromptArguments(values)


def argument_completions(typed: str, names: Sequence[str]) -> list[str]:
    """What the editor offers after `/command `: the text so far with one more `name=`."""
    head, _, last = typed.rpartition(" ")
    given = {word.partition("=")[0] for word in typed.split() if "=" in word}
    prefix = f"{head} " if head else ""
    return [
        f"{prefix}{name}="
        for name in names
        if name not in given and name.startswith(last) and "=" not in last
    ]


def prompt_text(
    messages: Sequence[tuple[str, Sequence[TextContent | ImageContent]]],
) -> tuple[str, int]:
    """The text the user's message gets from a prompt's messages, and how many images were
    left out. Messages the prompt gives the assistant are kept, marked as such, so the model
    reads the whole exchange the prompt sets up."""
    parts: list[str] = []
    images = 0
    several_roles = len({role for role, _ in messages}) > 1
    for role, content in messages:
        text = "\n".join(block.text for block in content if isinstance(block, TextContent))
        images += sum(1 for block in content if isinstance(block, ImageContent))
        if not text:
            continue
        parts.append(f"[{role}]\n{text}" if several_roles else text)
    return "\n\n".join(parts), images
