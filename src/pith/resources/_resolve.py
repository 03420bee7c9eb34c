"""Which skill and prompt-template files a session loads, in which order, and where each came
from: Pi's package-manager resolution (`resolve()`), less packages.

Candidates are gathered in this order, the first mention of a path keeping its origin:
project settings entries, user settings entries, then auto-discovered folders (trusted
project `.pith/skills` and `.agents/skills` up to the git root, or `.pith/prompts`; then
`<agent dir>/skills` and `~/.agents/skills`, or `<agent dir>/prompts`). They are then stably
sorted by precedence (project settings, project auto, user settings, user auto) and files
reached twice (same real path) are kept once, first wins.

Settings entries are paths (files or folders; `~` and relative paths resolved against
`.pith/` for the project, the agent dir for the user) or patterns: `!glob` excludes,
`+path` force-includes, `-path` force-excludes, and a plain glob selects among the files the
path entries found. The `!`/`+`/`-` entries also switch auto-discovered files of the same scope
off and on.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pith.glob import minimatch
from pith.resources._input_paths import normalize_input, resolve_input_path
from pith.resources._pathnames import PROJECT_DIR, canonical_path, is_within
from pith.resources._scan import ScanResult, markdown_files, prompt_dir_files, skill_files
from pith.resources._types import Diagnostic, SourceInfo

__all__ = ["Candidate", "Origin", "ResourceKind", "find_source_info", "resolve_candidates"]

ResourceKind = Literal["skills", "prompts"]


@dataclass(frozen=True)
class Origin:
    """Pi's path metadata: where a resolved path came from."""

    source: str
    """`local` (a settings entry) or `auto` (discovered)."""
    scope: str
    base_dir: str | None

    def source_info(self, path: str) -> SourceInfo:
        return SourceInfo(path, self.source, self.scope, "top-level", self.base_dir)


@dataclass(frozen=True)
class Candidate:
    path: str
    origin: Origin
    enabled: bool


# --- patterns ------------------------------------------------------------------------------


def _is_pattern(entry: str) -> bool:
    return entry[:1] in ("!", "+", "-") or "*" in entry or "?" in entry


@dataclass(frozen=True)
class _Views:
    """The spellings of a file that settings patterns are tested against."""

    globbed: tuple[str, ...]
    exact: frozenset[str]


def _relative(path: str, base_dir: str) -> str:
    relative = os.path.relpath(path, base_dir)
    return "" if relative == "." else relative


def _views(file_path: str, base_dir: str) -> _Views:
    """Globs see the path relative to the base dir, the name and the absolute path; exact
    entries the relative and absolute paths. A `SKILL.md` is also known by its folder."""
    relative = _relative(file_path, base_dir)
    globbed = [relative, os.path.basename(file_path), file_path]
    exact = {relative, file_path}
    if os.path.basename(file_path) == "SKILL.md":
        parent = os.path.dirname(file_path)
        parent_relative = _relative(parent, base_dir)
        globbed += [parent_relative, os.path.basename(parent), parent]
        exact |= {parent_relative, parent}
    return _Views(tuple(globbed), frozenset(exact))


def _matches_any(file_path: str, patterns: Sequence[str], base_dir: str, home: str) -> bool:
    views = _views(file_path, base_dir).globbed
    return any(
        minimatch(view, normalize_input(pattern, home)) for pattern in patterns for view in views
    )


def _matches_exact(file_path: str, patterns: Sequence[str], base_dir: str, home: str) -> bool:
    exact = _views(file_path, base_dir).exact
    return any(normalize_input(pattern.removeprefix("./"), home) in exact for pattern in patterns)


def _enabled_by_overrides(file_path: str, entries: Sequence[str], base_dir: str, home: str) -> bool:
    excludes = [entry[1:] for entry in entries if entry.startswith("!")]
    includes = [entry[1:] for entry in entries if entry.startswith("+")]
    force_excludes = [entry[1:] for entry in entries if entry.startswith("-")]
    enabled = True
    if excludes and _matches_any(file_path, excludes, base_dir, home):
        enabled = False
    if includes and _matches_exact(file_path, includes, base_dir, home):
        enabled = True
    if force_excludes and _matches_exact(file_path, force_excludes, base_dir, home):
        enabled = False
    return enabled


def _apply_patterns(
    files: list[str], patterns: Sequence[str], base_dir: str, home: str
) -> set[str]:
    includes = [p for p in patterns if p[:1] not in ("!", "+", "-")]
    excludes = [p[1:] for p in patterns if p.startswith("!")]
    force_includes = [p[1:] for p in patterns if p.startswith("+")]
    force_excludes = [p[1:] for p in patterns if p.startswith("-")]
    result = (
        [f for f in files if _matches_any(f, includes, base_dir, home)] if includes else [*files]
    )
    if excludes:
        result = [f for f in result if not _matches_any(f, excludes, base_dir, home)]
    for f in files:
        if force_includes and f not in result and _matches_exact(f, force_includes, base_dir, home):
            result.append(f)
    if force_excludes:
        result = [f for f in result if not _matches_exact(f, force_excludes, base_dir, home)]
    return set(result)


# --- candidates ----------------------------------------------------------------------------


def _files_in(path: str, kind: ResourceKind) -> ScanResult:
    """What a folder named in settings contributes: skills as in a "pi" skills folder, prompt
    templates from the whole tree."""
    if kind == "skills":
        return skill_files(path, "pi")
    return markdown_files(path, recursive=True)


class _Accumulator:
    def __init__(self, home: str) -> None:
        self.home = home
        self.entries: dict[str, Candidate] = {}
        self.problems: list[Diagnostic] = []

    def add(self, path: str, origin: Origin, enabled: bool) -> None:
        if path not in self.entries:
            self.entries[path] = Candidate(path, origin, enabled)

    def settings(
        self, entries: Sequence[str], kind: ResourceKind, origin: Origin, base_dir: str
    ) -> None:
        plain = [entry for entry in entries if not _is_pattern(entry)]
        patterns = [entry for entry in entries if _is_pattern(entry)]
        files: list[str] = []
        for entry in plain:
            path = resolve_input_path(entry, base_dir, self.home)
            if os.path.isfile(path):
                files.append(path)
            elif os.path.isdir(path):
                scanned = _files_in(path, kind)
                files.extend(scanned.files)
                self.problems.extend(scanned.problems)
            else:
                noun = "skill" if kind == "skills" else "prompt template"
                self.problems.append(
                    Diagnostic("warning", f"{noun} path in settings does not exist", path)
                )
        enabled = _apply_patterns(files, patterns, base_dir, self.home)
        for path in files:
            self.add(path, origin, path in enabled)

    def auto(
        self, scanned: ScanResult, origin: Origin, overrides: Sequence[str], base_dir: str
    ) -> None:
        self.problems.extend(scanned.problems)
        for path in scanned.files:
            self.add(path, origin, _enabled_by_overrides(path, overrides, base_dir, self.home))


def _ancestor_agents_dirs(cwd: str) -> list[str]:
    """`.agents/skills` of cwd and each ancestor, up to the first folder holding a `.git`
    entry (file or folder), else up to `/`."""
    directory = cwd
    git_root: str | None = None
    while True:
        if os.path.exists(os.path.join(directory, ".git")):
            git_root = directory
            break
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    dirs: list[str] = []
    directory = cwd
    while True:
        dirs.append(os.path.join(directory, ".agents", "skills"))
        parent = os.path.dirname(directory)
        if directory == git_root or parent == directory:
            return dirs
        directory = parent


def _rank(origin: Origin) -> int:
    return (0 if origin.scope == "project" else 2) + (0 if origin.source == "local" else 1)


def resolve_candidates(
    kind: ResourceKind,
    cwd: str,
    agent_dir: str,
    home: str,
    *,
    project_trusted: bool,
    project_entries: Sequence[str],
    user_entries: Sequence[str],
) -> tuple[list[Candidate], list[Diagnostic]]:
    """Every file of `kind` the settings and auto-discovery name, in precedence order, with
    whether it is enabled; and the problems met (unreadable folders, missing settings paths).

    `cwd`, `agent_dir` and `home` are absolute. Project settings count only when trusted."""
    acc = _Accumulator(home)
    project_base = os.path.join(cwd, PROJECT_DIR)
    if project_trusted:
        acc.settings(project_entries, kind, Origin("local", "project", None), project_base)
    acc.settings(user_entries, kind, Origin("local", "user", None), agent_dir)

    project_auto = Origin("auto", "project", project_base)
    user_auto = Origin("auto", "user", agent_dir)
    project_overrides = project_entries if project_trusted else ()
    if kind == "skills":
        user_agents = os.path.join(home, ".agents", "skills")
        if project_trusted:
            acc.auto(
                skill_files(os.path.join(project_base, "skills"), "pi"),
                project_auto,
                project_overrides,
                project_base,
            )
            for agents_dir in _ancestor_agents_dirs(cwd):
                if agents_dir == user_agents:
                    continue
                base = os.path.dirname(agents_dir)
                acc.auto(
                    skill_files(agents_dir, "agents"),
                    Origin("auto", "project", base),
                    project_overrides,
                    base,
                )
        acc.auto(
            skill_files(os.path.join(agent_dir, "skills"), "pi"),
            user_auto,
            user_entries,
            agent_dir,
        )
        agents_base = os.path.dirname(user_agents)
        acc.auto(
            skill_files(user_agents, "agents"),
            Origin("auto", "user", agents_base),
            user_entries,
            agents_base,
        )
    else:
        if project_trusted:
            acc.auto(
                prompt_dir_files(os.path.join(project_base, "prompts")),
                project_auto,
                project_overrides,
                project_base,
            )
        acc.auto(
            prompt_dir_files(os.path.join(agent_dir, "prompts")),
            user_auto,
            user_entries,
            agent_dir,
        )

    ordered = sorted(acc.entries.values(), key=lambda candidate: _rank(candidate.origin))
    seen: set[str] = set()
    unique: list[Candidate] = []
    for candidate in ordered:
        key = canonical_path(candidate.path)
        if key not in seen:
            seen.add(key)
            unique.append(candidate)
    return unique, acc.problems


def find_source_info(
    path: str,
    extension_infos: Sequence[tuple[str, SourceInfo]],
    origins: dict[str, Origin],
) -> SourceInfo | None:
    """The resource loader's `findSourceInfoForPath`: an extension's info when the file lies in
    a path an extension contributed, else the origin recorded for the file, else None."""
    for root, info in extension_infos:
        if is_within(root, path):
            return SourceInfo(path, info.source, info.scope, info.origin, info.base_dir)
    origin = origins.get(path)
    return origin.source_info(path) if origin is not None else None
