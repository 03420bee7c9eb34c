"""Agent Skills: reading and validating skill files, Pi's exported loaders
(`load_skills_from_dir`, `load_skills`), the system prompt's skills block, and `/skill:name`.

A skill is a `SKILL.md` file (its folder is the skill) or, where the scan allows it, a loose
`*.md` file with a `description`. Its name is the frontmatter `name` when that is a non-empty
string, else the folder's name. Problems with the name or a long description are warnings
only; a skill without a (string, non-blank) description is not loaded. What a session loads,
with precedence and collisions, is `discover_skills` in `pith.resources._discovery`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from typing import Literal

from pith.resources._frontmatter import FrontmatterError, parse_frontmatter, strip_frontmatter
from pith.resources._input_paths import resolve_input_path
from pith.resources._jstext import js_trim, utf16_len
from pith.resources._pathnames import PROJECT_DIR, canonical_path, is_within
from pith.resources._scan import skill_files
from pith.resources._text_file import decode_text
from pith.resources._types import Collision, Diagnostic, Skill, SourceInfo

__all__ = [
    "FileReadTool",
    "SkillSource",
    "expand_skill_command",
    "format_skills_for_prompt",
    "load_skill_file",
    "load_skills",
    "load_skills_from_dir",
]

MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024

SkillSource = str
"""How a loader names where it reads from: `user`, `project`, `path` (each `local` in the
source info, scoped user / project / temporary), or any other word (used as the source)."""

FileReadTool = Literal["read", "bash", "indirect"]


def frontmatter_field(data: object, key: str) -> object:
    """`data[key]` when the frontmatter is a map, else None (JavaScript's `undefined`)."""
    return data.get(key) if isinstance(data, dict) else None


def name_problems(name: str) -> list[str]:
    """The Agent Skills name rules a name breaks, worded as Pi words them."""
    problems: list[str] = []
    if utf16_len(name) > MAX_NAME_LENGTH:
        problems.append(f"name exceeds {MAX_NAME_LENGTH} characters ({utf16_len(name)})")
    if not re.fullmatch(r"[a-z0-9-]+", name):
        problems.append(
            "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)"
        )
    if name.startswith("-") or name.endswith("-"):
        problems.append("name must not start or end with a hyphen")
    if "--" in name:
        problems.append("name must not contain consecutive hyphens")
    return problems


def description_problems(description: object) -> list[str]:
    """Why a description is not acceptable (required, or too long), worded as Pi words it."""
    if not isinstance(description, str) or js_trim(description) == "":
        return ["description is required"]
    if utf16_len(description) > MAX_DESCRIPTION_LENGTH:
        length = utf16_len(description)
        return [f"description exceeds {MAX_DESCRIPTION_LENGTH} characters ({length})"]
    return []


def _source_info(file_path: str, base_dir: str, source: SkillSource) -> SourceInfo:
    if source == "user":
        return SourceInfo(file_path, "local", "user", "top-level", base_dir)
    if source == "project":
        return SourceInfo(file_path, "local", "project", "top-level", base_dir)
    if source == "path":
        return SourceInfo(file_path, "local", "temporary", "top-level", base_dir)
    return SourceInfo(file_path, source, "temporary", "top-level", base_dir)


def load_skill_file(file_path: str, source: SkillSource) -> tuple[Skill | None, list[Diagnostic]]:
    """The skill in `file_path` (None when it is not one) and the warnings about it.

    A `SKILL.md` that cannot be parsed or lacks a description is reported; a loose `.md` file
    without a description is silently not a skill."""
    declared = os.path.basename(file_path) == "SKILL.md"
    try:
        with open(file_path, "rb") as handle:
            text, valid_utf8 = decode_text(handle.read())
    except OSError as error:
        reason = error.strerror or str(error)
        return None, [Diagnostic("warning", f"cannot read skill file: {reason}", file_path)]
    diagnostics: list[Diagnostic] = []
    if not valid_utf8:
        diagnostics.append(
            Diagnostic(
                "warning",
                f"{file_path}: not valid UTF-8; undecodable bytes were replaced with U+FFFD",
                file_path,
            )
        )
    try:
        data = parse_frontmatter(text).data
    except FrontmatterError as error:
        if declared:
            diagnostics.append(Diagnostic("warning", str(error), file_path))
        return None, diagnostics
    description = frontmatter_field(data, "description")
    has_description = isinstance(description, str) and js_trim(description) != ""
    if not declared and not has_description:
        return None, []
    skill_dir = os.path.dirname(file_path)
    for problem in description_problems(description):
        diagnostics.append(Diagnostic("warning", problem, file_path))
    declared_name = frontmatter_field(data, "name")
    name = declared_name if isinstance(declared_name, str) and declared_name else None
    name = name or os.path.basename(skill_dir)
    for problem in name_problems(name):
        diagnostics.append(Diagnostic("warning", problem, file_path))
    if not isinstance(description, str) or not has_description:
        return None, diagnostics
    skill = Skill(
        name=name,
        description=description,
        file_path=file_path,
        base_dir=skill_dir,
        source_info=_source_info(file_path, skill_dir, source),
        disable_model_invocation=frontmatter_field(data, "disable-model-invocation") is True,
    )
    return skill, diagnostics


def _load_dir(directory: str, source: SkillSource) -> tuple[list[Skill], list[Diagnostic]]:
    scanned = skill_files(directory, "pi")
    skills: list[Skill] = []
    diagnostics = list(scanned.problems)
    for path in scanned.files:
        skill, found = load_skill_file(path, source)
        if skill is not None:
            skills.append(skill)
        diagnostics.extend(found)
    return skills, diagnostics


def load_skills_from_dir(
    directory: str, source: SkillSource
) -> tuple[list[Skill], list[Diagnostic]]:
    """Pi's `loadSkillsFromDir`: the skills below `directory` (folders with a `SKILL.md`, and
    loose `*.md` files at the top level), in scan order, with their warnings."""
    return _load_dir(directory, source)


class _SkillSet:
    """Skills added in order: a file already loaded (same real path) is skipped silently, a
    second skill of the same name loses with a `collision` diagnostic."""

    def __init__(self) -> None:
        self.by_name: dict[str, Skill] = {}
        self.real_paths: set[str] = set()
        self.diagnostics: list[Diagnostic] = []
        self.collisions: list[Diagnostic] = []

    def add(self, skills: list[Skill], diagnostics: list[Diagnostic]) -> None:
        self.diagnostics.extend(diagnostics)
        for skill in skills:
            real_path = canonical_path(skill.file_path)
            if real_path in self.real_paths:
                continue
            existing = self.by_name.get(skill.name)
            if existing is not None:
                self.collisions.append(
                    Diagnostic(
                        "collision",
                        f'name "{skill.name}" collision',
                        skill.file_path,
                        Collision("skill", skill.name, existing.file_path, skill.file_path),
                    )
                )
                continue
            self.by_name[skill.name] = skill
            self.real_paths.add(real_path)


def load_skills(
    cwd: str,
    agent_dir: str,
    skill_paths: Sequence[str] = (),
    include_defaults: bool = True,
    *,
    home: str | None = None,
) -> tuple[list[Skill], list[Diagnostic]]:
    """Pi's exported `loadSkills`: with `include_defaults`, `<agent dir>/skills` then
    `<cwd>/.pith/skills` (trust and `.agents` play no part here); then each of `skill_paths`
    (`~` expanded with `home`, relative to `cwd`, whitespace trimmed): a folder is scanned, a
    `.md` file loaded, anything else reported. Collision diagnostics come last."""
    home = home if home is not None else os.path.expanduser("~")
    cwd = resolve_input_path(cwd, os.getcwd(), home, trim=False)
    agent_dir = resolve_input_path(agent_dir, os.getcwd(), home, trim=False)
    user_dir = os.path.join(agent_dir, "skills")
    project_dir = os.path.join(cwd, PROJECT_DIR, "skills")
    found = _SkillSet()
    if include_defaults:
        found.add(*_load_dir(user_dir, "user"))
        found.add(*_load_dir(project_dir, "project"))

    def source_of(path: str) -> SkillSource:
        if not include_defaults:
            if is_within(user_dir, path):
                return "user"
            if is_within(project_dir, path):
                return "project"
        return "path"

    for raw in skill_paths:
        path = resolve_input_path(raw, cwd, home)
        if not os.path.exists(path):
            found.diagnostics.append(Diagnostic("warning", "skill path does not exist", path))
            continue
        if os.path.isdir(path):
            found.add(*_load_dir(path, source_of(path)))
        elif os.path.isfile(path) and path.endswith(".md"):
            skill, diagnostics = load_skill_file(path, source_of(path))
            found.add([skill] if skill is not None else [], diagnostics)
        else:
            found.diagnostics.append(
                Diagnostic("warning", "skill path is not a markdown file", path)
            )
    return list(found.by_name.values()), [*found.diagnostics, *found.collisions]


def _escape_xml(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
    )


def format_skills_for_prompt(
    skills: Sequence[Skill], file_read_tool: FileReadTool | str | None = "read"
) -> str:
    """The skills block of the system prompt (it starts with two newlines), or `""` when every
    skill is hidden from the model. `file_read_tool` names the tool that loads a skill's file:
    `read` (also for None, Pi's default), `bash`, or `indirect` (any other value) for a reader
    reachable only through another tool."""
    visible = [skill for skill in skills if not skill.disable_model_invocation]
    if not visible:
        return ""
    if file_read_tool in ("read", None):
        how = "Use the read tool to load a skill's file when the task matches its description."
    elif file_read_tool == "bash":
        how = "Use bash to load a skill's file when the task matches its description."
    else:
        how = "Load a skill's file when the task matches its description."
    lines = [
        "\n\nThe following skills provide specialized instructions for specific tasks.",
        how,
        "Resolve relative paths against the skill's directory (parent of SKILL.md). "
        "Use absolute paths in tool calls.",
        "",
        "<available_skills>",
    ]
    for skill in visible:
        lines += [
            "  <skill>",
            f"    <name>{_escape_xml(skill.name)}</name>",
            f"    <description>{_escape_xml(skill.description)}</description>",
            f"    <location>{_escape_xml(skill.file_path)}</location>",
            "  </skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)


SKILL_COMMAND_PREFIX = "/skill:"


def expand_skill_command(
    text: str,
    skills: Sequence[Skill],
    *,
    on_error: Callable[[Skill, str], None] | None = None,
) -> str:
    """`/skill:name args` -> the skill's body wrapped in `<skill name=… location=…>`, then a
    blank line and `args` (trimmed) when there are any. The name runs up to the first space
    (a tab or newline makes it an unknown name). Unknown names, and skills whose file cannot
    be read now (reported through `on_error`), leave `text` unchanged. Skills hidden from the
    model can still be invoked."""
    if not text.startswith(SKILL_COMMAND_PREFIX):
        return text
    space = text.find(" ")
    start = len(SKILL_COMMAND_PREFIX)
    name = text[start:] if space == -1 else text[start:space]
    args = "" if space == -1 else js_trim(text[space + 1 :])
    skill = next((skill for skill in skills if skill.name == name), None)
    if skill is None:
        return text
    try:
        with open(skill.file_path, "rb") as handle:
            content, _ = decode_text(handle.read())
        body = js_trim(strip_frontmatter(content))
    except (OSError, FrontmatterError) as error:
        if on_error is not None:
            reason = error.strerror if isinstance(error, OSError) else str(error)
            on_error(skill, reason or str(error))
        return text
    block = (
        f'<skill name="{skill.name}" location="{skill.file_path}">\n'
        f"References are relative to {skill.base_dir}.\n\n{body}\n</skill>"
    )
    return f"{block}\n\n{args}" if args else block
