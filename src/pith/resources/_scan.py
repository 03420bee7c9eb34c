"""Walking skill and prompt-template folders the way Pi does.

Entries are visited in byte order of their names (what Node's `readdirSync` returns), symlinks
are followed (a dangling one is passed over), and every walker that Pi gives ignore files
honours `.gitignore`, `.ignore` and `.fdignore` in each folder it enters. Folders that cannot
be read are reported, not silently skipped; a symlink that leads back into a folder being
walked is not followed again.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from typing import Literal

from pith.glob import IgnoreRules, ignore_file_patterns
from pith.resources._pathnames import canonical_path
from pith.resources._types import Diagnostic

__all__ = [
    "Entry",
    "ScanResult",
    "list_entries",
    "markdown_files",
    "prompt_dir_files",
    "skill_files",
]

IGNORE_FILE_NAMES = (".gitignore", ".ignore", ".fdignore")
SkillScanMode = Literal["pi", "agents"]


@dataclass(frozen=True)
class Entry:
    name: str
    path: str
    is_dir: bool
    is_file: bool


@dataclass
class ScanResult:
    files: list[str] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)
    """Folders or ignore files that exist but could not be read."""


def _quiet(error: OSError) -> bool:
    """Errors Pi's walkers pass over without a word, because nothing is there to load."""
    return error.errno in (errno.ENOENT, errno.ENOTDIR)


def list_entries(directory: str, problems: list[Diagnostic]) -> list[Entry]:
    """The entries of `directory` in byte order of name, symlinks resolved to what they point
    at; dangling links are left out. An unreadable folder adds a warning to `problems`."""
    try:
        with os.scandir(directory) as iterator:
            raw = list(iterator)
    except OSError as error:
        if not _quiet(error):
            problems.append(
                Diagnostic("warning", f"cannot read directory: {error.strerror}", directory)
            )
        return []
    entries: list[Entry] = []
    for item in sorted(raw, key=lambda item: os.fsencode(item.name)):
        path = os.path.join(directory, item.name)
        try:
            if item.is_symlink():
                is_dir = os.path.isdir(path)
                is_file = os.path.isfile(path)
                if not (is_dir or is_file or os.path.exists(path)):
                    continue  # dangling link
            else:
                is_dir = item.is_dir(follow_symlinks=False)
                is_file = item.is_file(follow_symlinks=False)
        except OSError:
            continue
        entries.append(Entry(item.name, path, is_dir, is_file))
    return entries


def _add_ignore_rules(
    rules: IgnoreRules, directory: str, root: str, problems: list[Diagnostic]
) -> None:
    relative = os.path.relpath(directory, root)
    prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
    for name in IGNORE_FILE_NAMES:
        path = os.path.join(directory, name)
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                content = handle.read()
        except OSError as error:
            # Only a file that is there but cannot be read is worth a word (in a folder that
            # cannot be searched, nothing is "there": the folder itself gets reported).
            if error.errno != errno.EISDIR and os.path.exists(path):
                problems.append(
                    Diagnostic("warning", f"cannot read ignore file: {error.strerror}", path)
                )
            continue
        rules.add(ignore_file_patterns(content.removeprefix("\ufeff"), prefix))


def _relative(root: str, path: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


def skill_files(root: str, mode: SkillScanMode) -> ScanResult:
    """The skill files below `root`, in Pi's order.

    A folder holding a `SKILL.md` file is a skill: that file is taken and the folder is not
    descended into. Other folders are walked (names starting with `.` and `node_modules`
    skipped). Loose `*.md` files are taken at the top level only in "pi" mode (`.pith/skills`,
    `<agent dir>/skills`, and the exported loaders), and only below it in "agents" mode
    (`.agents/skills`)."""
    result = ScanResult()
    _walk_skills(root, root, mode, IgnoreRules(), set(), result)
    return result


def _walk_skills(
    directory: str,
    root: str,
    mode: SkillScanMode,
    rules: IgnoreRules,
    active: set[str],
    result: ScanResult,
) -> None:
    real = canonical_path(directory)
    if real in active:
        return  # a symlink back into a folder being walked
    active.add(real)
    try:
        _add_ignore_rules(rules, directory, root, result.problems)
        entries = list_entries(directory, result.problems)
        for entry in entries:
            skill_file = entry.name == "SKILL.md" and entry.is_file
            if skill_file and not rules.ignores(_relative(root, entry.path)):
                result.files.append(entry.path)
                return
        take_loose = (directory == root) == (mode == "pi")
        for entry in entries:
            if entry.name.startswith(".") or entry.name == "node_modules":
                continue
            relative = _relative(root, entry.path)
            if entry.is_file and entry.name.endswith(".md") and take_loose:
                if not rules.ignores(relative):
                    result.files.append(entry.path)
                continue
            if entry.is_dir and not rules.ignores(relative + "/"):
                _walk_skills(entry.path, root, mode, rules, active, result)
    finally:
        active.discard(real)


def prompt_dir_files(directory: str) -> ScanResult:
    """The prompt templates discovered in `directory` (`<agent dir>/prompts`, `.pith/prompts`):
    its `*.md` files, not recursive, dot names and `node_modules` skipped, the folder's own
    ignore files honoured."""
    result = ScanResult()
    rules = IgnoreRules()
    _add_ignore_rules(rules, directory, directory, result.problems)
    for entry in list_entries(directory, result.problems):
        if entry.name.startswith(".") or entry.name == "node_modules":
            continue
        if rules.ignores(entry.name):
            continue
        if entry.is_file and entry.name.endswith(".md"):
            result.files.append(entry.path)
    return result


def markdown_files(directory: str, *, recursive: bool) -> ScanResult:
    """`*.md` files of `directory`.

    Not recursive (a prompt-template folder given as a path): every `.md` file, dot names
    included, no ignore files. Recursive (a folder named in settings `prompts`): dot names and
    `node_modules` skipped, ignore files honoured in every folder."""
    result = ScanResult()
    if not recursive:
        for entry in list_entries(directory, result.problems):
            if entry.is_file and entry.name.endswith(".md"):
                result.files.append(entry.path)
        return result
    _walk_markdown(directory, directory, IgnoreRules(), set(), result)
    return result


def _walk_markdown(
    directory: str, root: str, rules: IgnoreRules, active: set[str], result: ScanResult
) -> None:
    real = canonical_path(directory)
    if real in active:
        return
    active.add(real)
    try:
        _add_ignore_rules(rules, directory, root, result.problems)
        for entry in list_entries(directory, result.problems):
            if entry.name.startswith(".") or entry.name == "node_modules":
                continue
            relative = _relative(root, entry.path)
            if rules.ignores(relative + "/" if entry.is_dir else relative):
                continue
            if entry.is_dir:
                _walk_markdown(entry.path, root, rules, active, result)
            elif entry.is_file and entry.name.endswith(".md"):
                result.files.append(entry.path)
    finally:
        active.discard(real)
