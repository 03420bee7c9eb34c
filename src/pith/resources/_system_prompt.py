"""The system prompt: Pi 1.6's sections, in its order and wrappers (docs/resources.md).

`preamble`, `<tools>`, `<rules>`, `<docs>`, `<addendum>`, `<project_context>`, `<skills>`,
`<cwd>`, then custom sections (extensions'), joined by blank lines. A custom prompt (SYSTEM.md,
`--system-prompt`) replaces the preamble and drops tools, rules and docs; a forced prompt (an
extension's `before_agent_start`) replaces everything. The wording of the preamble and of the
docs section is pith's own; the rest equals Pi's for the same inputs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from pith.resources._types import ContextFile, Skill

__all__ = [
    "PREAMBLE",
    "PromptTool",
    "SystemPromptOptions",
    "build_system_prompt",
    "build_system_prompt_sections",
    "docs_section",
]

PREAMBLE = (
    "You are pith, a coding agent working in the user's terminal. You read and change code, "
    "run commands and check your work until the user's task is done."
)

_SECTION_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
_ALWAYS_RULES = ("Be concise in your responses", "Show file paths clearly when working with files")


class PromptTool(Protocol):
    """What the prompt needs of a tool: its name (and, optionally, `prompt_snippet` and
    `prompt_guidelines` attributes)."""

    @property
    def name(self) -> str: ...


@dataclass
class SystemPromptOptions:
    """Everything the system prompt is built from. Extensions may change it in place in
    `before_agent_start` (tools, guidelines, sections, ...)."""

    cwd: str
    tools: list[PromptTool] = field(default_factory=list)
    """The active tools, in order."""
    hidden_tools: list[str] = field(default_factory=list)
    """Active but not announced in the prompt."""
    custom_prompt: str | None = None
    """Replaces the preamble and drops the tools, rules and docs sections (SYSTEM.md)."""
    append: str = ""
    """The `<addendum>` text (APPEND_SYSTEM.md, `--append-system-prompt`)."""
    extra_guidelines: list[str] = field(default_factory=list)
    context_files: list[ContextFile] = field(default_factory=list)
    skills: list[Skill] = field(default_factory=list)
    sections: dict[str, str] = field(default_factory=dict)
    """Custom sections, by name (`[a-z][a-z0-9_-]*`, not `preamble`)."""
    docs: str | None = None
    """The `<docs>` text; None leaves the section out."""


def build_system_prompt(options: SystemPromptOptions) -> str:
    """The system prompt text for `options`."""
    return "\n\n".join(build_system_prompt_sections(options).values())


def build_system_prompt_sections(options: SystemPromptOptions) -> dict[str, str]:
    """The prompt's sections by name, rendered (`preamble` raw, the others wrapped in
    `<name>...</name>`), in order. Raises ValueError for an invalid custom section name."""
    for name in options.sections:
        if not _SECTION_NAME.match(name) or name == "preamble":
            raise ValueError(f"Invalid system prompt section name: {name}")
    hidden = set(options.hidden_tools)
    declared = [tool for tool in options.tools if tool.name not in hidden]
    selected_names = [tool.name for tool in options.tools]
    raw: dict[str, str] = {}
    if options.custom_prompt:
        raw["preamble"] = options.custom_prompt
    else:
        raw["preamble"] = PREAMBLE
        raw["tools"] = _tools_text(declared)
        raw["rules"] = _rules_text(declared, options.extra_guidelines)
        if options.docs:
            raw["docs"] = options.docs
    if options.append:
        raw["addendum"] = options.append
    if options.context_files:
        raw["project_context"] = _project_context(options.context_files)
    reader = _skill_reader([tool.name for tool in declared], selected_names)
    if reader is not None and options.skills:
        from pith.resources._skills import format_skills_for_prompt

        text = format_skills_for_prompt(list(options.skills), reader).strip()
        if text:
            raw["skills"] = text
    raw["cwd"] = options.cwd.replace("\\", "/")
    for name, content in options.sections.items():
        if content:
            raw[name] = content
    return {
        name: content if name == "preamble" else f"<{name}>\n{content}\n</{name}>"
        for name, content in raw.items()
    }


def _tools_text(tools: Sequence[PromptTool]) -> str:
    lines = []
    for tool in tools:
        snippet = getattr(tool, "prompt_snippet", None)
        if isinstance(snippet, str) and snippet:
            lines.append(f"- {tool.name}: {snippet}")
    listed = "\n".join(lines) if lines else "(none)"
    return f"{listed}\n\nAdditional tools may be available."


def _rules_text(tools: Sequence[PromptTool], extra: Sequence[str]) -> str:
    names = {tool.name for tool in tools}
    rules: list[str] = []
    shells = [shell for shell in ("bash", "powershell") if shell in names]
    if shells and not names & {"grep", "find", "ls"}:
        if len(shells) == 2:
            rules.append(
                "Use bash or PowerShell for file operations like listing, searching, and "
                "finding files"
            )
        elif shells == ["powershell"]:
            rules.append(
                "Use PowerShell for file operations like listing, searching, and finding files"
            )
        else:
            rules.append("Use bash for file operations like ls, rg, find")
    for tool in tools:
        rules.extend(str(rule) for rule in getattr(tool, "prompt_guidelines", ()) or ())
    rules.extend(extra)
    rules.extend(_ALWAYS_RULES)
    unique = list(dict.fromkeys(rule.strip() for rule in rules if rule.strip()))
    return "\n".join(f"- {rule}" for rule in unique)


def _project_context(files: Sequence[ContextFile]) -> str:
    blocks = [
        f'<project_instructions path="{file.path}">\n{file.content}\n</project_instructions>'
        for file in files
    ]
    return "\n\n".join(["Project-specific instructions and guidelines:", *blocks])


def _skill_reader(declared: Sequence[str], selected: Sequence[str]) -> str | None:
    """Which tool the skills intro names: `read`, `bash`, `indirect` (a reader exists but is
    hidden), or None (no reader: no skills section)."""
    for reader in ("read", "bash"):
        if reader in declared:
            return reader
    return "indirect" if any(reader in selected for reader in ("read", "bash")) else None


def docs_section(package_dir: Path | None = None) -> str | None:
    """Where pith's own documentation is, for questions about pith itself; None when the docs
    are not installed alongside the package."""
    base = package_dir or Path(__file__).resolve().parent.parent
    for root in (base / "_bundled", base.parent.parent):
        readme, docs, examples = root / "README.md", root / "docs", root / "examples"
        if (docs / "extensions.md").is_file():
            return "\n".join(
                [
                    "pith documentation (read it only when the user asks about pith itself: "
                    "its settings, sessions, extensions, skills or tools):",
                    f"- Main documentation: {readme}",
                    f"- Additional docs: {docs}",
                    f"- Examples: {examples} (extensions)",
                    "- Resolve docs/... and examples/... against the paths above, not the "
                    "current working directory",
                    "- When asked about: extensions (docs/extensions.md, examples/extensions/), "
                    "sessions and branches (docs/sessions.md), models and providers "
                    "(docs/providers.md), tools and their limits (docs/tools.md), context "
                    "files, skills, prompt templates, settings and trust (docs/resources.md)",
                ]
            )
    return None
