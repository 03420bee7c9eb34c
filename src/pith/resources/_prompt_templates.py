"""Prompt templates: `*.md` files whose content replaces a `/name args` prompt, with the
arguments substituted (`$1`, `$@`, `${2:-default}`, ...), as Pi does it.

A template's name is its file name without `.md` (spaces and upper case kept; lookup is
case-sensitive). Its description is the frontmatter `description` when that is a non-empty
string, else the first non-blank line of the body, untrimmed, cut to 60 characters plus `...`.
The content is the body: trimmed when the file has frontmatter, as is otherwise. What a session
loads, with precedence and collisions, is `discover_prompt_templates` in
`pith.resources._discovery`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from pith.resources._frontmatter import FrontmatterError, parse_frontmatter
from pith.resources._input_paths import resolve_input_path
from pith.resources._jstext import JS_SPACE_CLASS, JS_WHITESPACE, js_trim, utf16_len, utf16_prefix
from pith.resources._pathnames import PROJECT_DIR, is_within
from pith.resources._scan import markdown_files
from pith.resources._text_file import decode_text
from pith.resources._types import Diagnostic, PromptTemplate, SourceInfo

__all__ = [
    "expand_prompt_template",
    "load_prompt_template",
    "load_prompt_templates",
    "parse_command_args",
    "substitute_args",
]

DESCRIPTION_LENGTH = 60


def _description_from_body(body: str) -> str:
    first = next((line for line in body.split("\n") if js_trim(line)), None)
    if first is None:
        return ""
    if utf16_len(first) > DESCRIPTION_LENGTH:
        return utf16_prefix(first, DESCRIPTION_LENGTH) + "..."
    return first


def load_prompt_template(
    file_path: str, source_info: SourceInfo
) -> tuple[PromptTemplate | None, list[Diagnostic]]:
    """The template in `file_path`, or None with a warning when it cannot be read or its
    frontmatter is not valid YAML."""
    try:
        with open(file_path, "rb") as handle:
            text, valid_utf8 = decode_text(handle.read())
    except OSError as error:
        reason = error.strerror or str(error)
        return None, [Diagnostic("warning", f"cannot read prompt template: {reason}", file_path)]
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
        parsed = parse_frontmatter(text)
    except FrontmatterError as error:
        return None, [*diagnostics, Diagnostic("warning", str(error), file_path)]
    data = parsed.data if isinstance(parsed.data, dict) else {}
    described = data.get("description")
    description = described if isinstance(described, str) and described else ""
    hint = data.get("argument-hint")
    template = PromptTemplate(
        name=re.sub(r"\.md$", "", os.path.basename(file_path)),
        description=description or _description_from_body(parsed.body),
        content=parsed.body,
        file_path=file_path,
        source_info=source_info,
        argument_hint=hint if isinstance(hint, str) and hint else None,
    )
    return template, diagnostics


def load_prompt_templates(
    cwd: str,
    agent_dir: str,
    prompt_paths: Sequence[str] = (),
    include_defaults: bool = True,
    *,
    home: str | None = None,
) -> tuple[list[PromptTemplate], list[Diagnostic]]:
    """Pi's `loadPromptTemplates`: with `include_defaults`, the `*.md` files of
    `<agent dir>/prompts` then `<cwd>/.pith/prompts`; then each of `prompt_paths` (a folder's
    `*.md` files, not recursive, or one `.md` file; missing paths are passed over, the caller
    reports them). Every template is returned, duplicates included."""
    home = home if home is not None else os.path.expanduser("~")
    cwd = resolve_input_path(cwd, os.getcwd(), home, trim=False)
    agent_dir = resolve_input_path(agent_dir, os.getcwd(), home, trim=False)
    user_dir = os.path.join(agent_dir, "prompts")
    project_dir = os.path.join(cwd, PROJECT_DIR, "prompts")

    def source_info(path: str) -> SourceInfo:
        if is_within(user_dir, path):
            return SourceInfo(path, "local", "user", "top-level", user_dir)
        if is_within(project_dir, path):
            return SourceInfo(path, "local", "project", "top-level", project_dir)
        base = path if os.path.isdir(path) else os.path.dirname(path)
        return SourceInfo(path, "local", "temporary", "top-level", base)

    templates: list[PromptTemplate] = []
    diagnostics: list[Diagnostic] = []

    def load(path: str) -> None:
        template, found = load_prompt_template(path, source_info(path))
        if template is not None:
            templates.append(template)
        diagnostics.extend(found)

    def load_dir(directory: str) -> None:
        scanned = markdown_files(directory, recursive=False)
        diagnostics.extend(scanned.problems)
        for path in scanned.files:
            load(path)

    if include_defaults:
        load_dir(user_dir)
        load_dir(project_dir)
    for raw in prompt_paths:
        path = resolve_input_path(raw, cwd, home)
        if os.path.isdir(path):
            load_dir(path)
        elif os.path.isfile(path) and path.endswith(".md"):
            load(path)
    return templates, diagnostics


# --- expansion -----------------------------------------------------------------------------

_SPACE = re.compile(JS_SPACE_CLASS)


def parse_command_args(text: str) -> list[str]:
    """Split the arguments of `/name args` the way Pi does: whitespace separates; a quote
    (`"` or `'`) opens only at the start of an argument, and a backslash before that same
    quote inside it keeps the quote; an unclosed quote is an ordinary character."""
    args: list[str] = []
    current = ""
    has_token = False
    quote: str | None = None
    quote_start = 0
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if quote is not None:
            if char == "\\" and text[index + 1 : index + 2] == quote:
                current += quote
                index += 1
            elif char == quote:
                quote = None
            else:
                current += char
        elif char in "\"'" and not has_token:
            quote = char
            quote_start = index
            has_token = True
        elif char in JS_WHITESPACE:
            if has_token:
                args.append(current)
                current = ""
                has_token = False
        else:
            current += char
            has_token = True
        if quote is not None and index == length - 1:
            # Unclosed: the quote is text, and the rest is read again after it.
            quote = None
            current = text[quote_start]
            index = quote_start
        index += 1
    if has_token:
        args.append(current)
    return args


_PLACEHOLDER = re.compile(
    r"\$\{([0-9]+|ARGUMENTS|@):-([^}]*)\}|\$\{@:([0-9]+)(?::([0-9]+))?\}|\$(ARGUMENTS|@|[0-9]+)"
)


def _positional(args: Sequence[str], number: str) -> str | None:
    index = int(number) - 1
    return args[index] if 0 <= index < len(args) else None


def substitute_args(content: str, args: Sequence[str]) -> str:
    """Fill the placeholders of `content` in one pass (values are never re-expanded):
    `$1`… (missing -> empty, `$0` empty), `$@` / `$ARGUMENTS` (all, space-joined),
    `${N:-default}` / `${@:-default}` / `${ARGUMENTS:-default}` (default when missing or
    empty), `${@:N}` and `${@:N:L}` (slices, 1-based). `${1}` and `${@}` are left as they
    are."""
    all_args = " ".join(args)

    def replace(match: re.Match[str]) -> str:
        default_target, default, slice_start, slice_length, simple = match.groups()
        if default_target is not None:
            value = (
                all_args
                if default_target in ("@", "ARGUMENTS")
                else _positional(args, default_target)
            )
            return value if value else default
        if slice_start is not None:
            start = max(int(slice_start) - 1, 0)
            if slice_length is not None:
                return " ".join(args[start : start + int(slice_length)])
            return " ".join(args[start:])
        if simple in ("ARGUMENTS", "@"):
            return all_args
        return _positional(args, simple) or ""

    return _PLACEHOLDER.sub(replace, content)


_COMMAND = re.compile(rf"/((?:(?!{JS_SPACE_CLASS}).)+)(?:{JS_SPACE_CLASS}+(.*))?", re.DOTALL)


def expand_prompt_template(text: str, templates: Sequence[PromptTemplate]) -> str:
    """`/name args` -> the content of the template called `name` with `args` substituted;
    any other text, or an unknown name, is returned unchanged."""
    match = _COMMAND.fullmatch(text)
    if match is None:
        return text
    template = next((t for t in templates if t.name == match.group(1)), None)
    if template is None:
        return text
    return substitute_args(template.content, parse_command_args(match.group(2) or ""))
