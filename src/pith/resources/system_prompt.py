"""The system prompt: sections in Pi 1.6's order and wrappers (spec: pi-core §5.6).

`preamble`, then `<tools>`, `<rules>`, the appended text, project context, skills and `<cwd>`,
each non-empty section joined by a blank line. Context files, skills and custom prompts arrive
with the resources issue; the section machinery is here already.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

__all__ = ["PREAMBLE", "PromptTool", "SystemPromptOptions", "build_system_prompt"]

PREAMBLE = (
    "You are pith, a coding agent working in the user's terminal. You read and change code, "
    "run commands and check your work until the user's task is done."
)

_ALWAYS_RULES = ("Be concise in your responses", "Show file paths clearly when working with files")


class PromptTool(Protocol):
    @property
    def name(self) -> str: ...


@dataclass
class SystemPromptOptions:
    cwd: str
    tools: Sequence[PromptTool] = ()
    custom_prompt: str | None = None
    """Replaces the preamble and drops the tools and rules sections (SYSTEM.md)."""
    append: Sequence[str] = ()
    extra_guidelines: Sequence[str] = ()
    sections: dict[str, str] = field(default_factory=dict)


def _tools_section(tools: Sequence[PromptTool]) -> str:
    lines = []
    for tool in tools:
        snippet = getattr(tool, "prompt_snippet", None)
        if isinstance(snippet, str) and snippet:
            lines.append(f"- {tool.name}: {snippet}")
    body = "\n".join(lines) if lines else "(none)"
    return f"<tools>\n{body}\n\nAdditional tools may be available.\n</tools>"


def _rules_section(tools: Sequence[PromptTool], extra: Sequence[str]) -> str:
    names = {tool.name for tool in tools}
    rules: list[str] = []
    if "bash" in names and not names & {"grep", "find", "ls"}:
        rules.append("Use bash for file operations like ls, rg, find")
    for tool in tools:
        guidelines = getattr(tool, "prompt_guidelines", ())
        rules.extend(str(rule) for rule in guidelines if str(rule).strip())
    rules.extend(extra)
    rules.extend(_ALWAYS_RULES)
    unique = list(dict.fromkeys(rule.strip() for rule in rules if rule.strip()))
    return "<rules>\n" + "\n".join(f"- {rule}" for rule in unique) + "\n</rules>"


def build_system_prompt(options: SystemPromptOptions) -> str:
    """The system prompt text for `options`."""
    parts: list[str] = []
    if options.custom_prompt is not None:
        parts.append(options.custom_prompt.strip())
    else:
        parts.append(PREAMBLE)
        parts.append(_tools_section(options.tools))
        parts.append(_rules_section(options.tools, options.extra_guidelines))
    appended = "\n\n".join(text.strip() for text in options.append if text.strip())
    if appended:
        parts.append(f"<addendum>\n{appended}\n</addendum>")
    parts.append(f"<cwd>\n{options.cwd.replace(chr(92), '/')}\n</cwd>")
    for name, text in options.sections.items():
        if text.strip():
            parts.append(f"<{name}>\n{text.strip()}\n</{name}>")
    return "\n\n".join(part for part in parts if part)
