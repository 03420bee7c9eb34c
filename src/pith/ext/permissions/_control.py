"""Control paths: files that decide what pith (or a tool the user runs next) allows or runs.

Changing one of them changes the agent's own controls — its permission rules, its trust, the
code it loads at the next start — or makes code run the next time the user runs git, enters
the folder, or opens the editor. So a write, an edit or a bash write to one of them asks even
when a broad rule (`*`, `write: allow`, `bash: allow`) would allow it; only an allow rule that
names the path itself, written by the user (their own settings, an approval this session, a
`--yes`), lets it through without asking. A deny stays a deny.

The areas:

- anywhere in the tree: a `.pith/` folder (settings, extensions, `mcp.json`, SYSTEM.md,
  prompts, skills), `.agents/` (skills), `.git/config*`, `.git/hooks/`, `.gitmodules`,
  `.envrc`, `.vscode/`, `.idea/`, `.devcontainer/`;
- pith's agent directory (user settings, the trust store, keys, extensions);
- the user's own git configuration (`~/.gitconfig`, `~/.config/git/`);
- pith's own installed code (the `pith` package folder).

AGENTS.md and CLAUDE.md are not control paths: they are text the user reads and edits with
the agent.

The key files of the agent directory (`auth.json`, `mcp-auth.json`) are secret as well:
*reading* one asks too (`secret_area`), and so does a read of the agent directory's contents
(`grep -r x ~/.pith/agent`, `tar c ~/.pith/agent`), since that reads them.

Pure: the only input is the path's forms and the folders passed in.
"""

from __future__ import annotations

import functools
import os
import posixpath
from dataclasses import dataclass

from pith.ext.permissions._paths import PathForms
from pith.glob import expand_home

__all__ = [
    "SECRET_FILES",
    "ControlArea",
    "control_area",
    "names_area",
    "pith_package_dir",
    "secret_area",
]

SECRET_FILES = {
    "auth.json": "where pith keeps provider API keys",
    "mcp-auth.json": "where pith keeps MCP sign-in tokens",
}
"""The files of the agent directory that hold keys and tokens, and what each holds."""


@dataclass(frozen=True)
class ControlArea:
    """One kind of control path, and what it protects (for messages)."""

    key: str
    """`.pith`, `.git/hooks`, `agent dir`, …"""
    what: str
    """`pith's project settings and extensions`, …"""
    folder: str | None = None
    """For a folder-shaped area (the agent dir, pith's code): its absolute path."""


# (components to find in the path, the area's key, what it holds, whether the last component
# may be followed by more: a folder). Matched on path components, so `a/.envrc.bak` is not
# `.envrc` but `sub/.pith/x` is `.pith`.
_COMPONENT_AREAS: tuple[tuple[tuple[str, ...], str, bool], ...] = (
    ((".pith",), "pith's project settings, extensions, prompts and skills", True),
    ((".agents",), "agent skills loaded into the system prompt", True),
    ((".git", "hooks"), "git hooks, which run on the next git command", True),
    ((".git", "config"), "git's configuration, which can run commands", False),
    ((".git", "config.worktree"), "git's configuration, which can run commands", False),
    ((".gitmodules",), "git submodule definitions", False),
    ((".envrc",), "direnv's script, which runs on entering the folder", False),
    ((".vscode",), "editor tasks and settings, which can run commands", True),
    ((".idea",), "editor settings, which can run commands", True),
    ((".devcontainer",), "the dev container definition", True),
)


@functools.cache
def pith_package_dir() -> str:
    """The folder pith's own code is installed in (resolved; looked up once per process, as
    every tool call asks)."""
    here = os.path.dirname(os.path.abspath(__file__))  # <package>/ext/permissions
    return os.path.realpath(os.path.dirname(os.path.dirname(here)))


def _components(absolute: str) -> list[str]:
    return [part for part in absolute.split("/") if part]


def _component_area(absolute: str) -> ControlArea | None:
    # Case folded: on a case-insensitive file system `.PITH/` is `.pith/`.
    parts = _components(absolute.lower())
    for needle, what, folder in _COMPONENT_AREAS:
        size = len(needle)
        for start in range(len(parts) - size + 1):
            if tuple(parts[start : start + size]) != needle:
                continue
            if folder or start + size == len(parts):
                return ControlArea("/".join(needle), what)
    return None


def _inside(path: str, folder: str) -> bool:
    folder = folder.rstrip("/") or "/"
    return path == folder or path.startswith(folder + "/")


def _folder_areas(home: str, agent_dir: str | None, package_dir: str | None) -> list[ControlArea]:
    areas = []
    if agent_dir:
        areas.append(
            ControlArea("agent dir", "pith's own settings, trust store and keys", agent_dir)
        )
    areas.append(
        ControlArea("~/.gitconfig", "your git configuration", posixpath.join(home, ".gitconfig"))
    )
    areas.append(
        ControlArea(
            "~/.config/git", "your git configuration", posixpath.join(home, ".config", "git")
        )
    )
    if package_dir:
        areas.append(ControlArea("pith's code", "pith's own installed code", package_dir))
    return areas


def control_area(
    forms: PathForms,
    *,
    home: str,
    agent_dir: str | None = None,
    package_dir: str | None = None,
) -> ControlArea | None:
    """The control area `forms` falls in, as written or as resolved (a link to a control path
    is one), or None."""
    candidates = [forms.absolute]
    if forms.resolved is not None and forms.resolved != forms.absolute:
        candidates.append(forms.resolved)
    folders = _folder_areas(home, agent_dir, package_dir)
    for candidate in candidates:
        for area in folders:
            assert area.folder is not None
            if _inside(candidate, area.folder):
                return area
        found = _component_area(candidate)
        if found is not None:
            return found
    return None


def secret_area(
    forms: PathForms, *, agent_dir: str | None, contents: bool = False
) -> ControlArea | None:
    """The key file of the agent directory that reading `forms` reads (as written or as
    resolved), or None. With `contents` (a read that takes a folder's files: grep, `tar`,
    `cp -r`), the agent directory itself is one too."""
    if not agent_dir:
        return None
    folder = agent_dir.rstrip("/") or "/"
    candidates = [forms.absolute]
    if forms.resolved is not None and forms.resolved != forms.absolute:
        candidates.append(forms.resolved)
    for candidate in candidates:
        for name, what in SECRET_FILES.items():
            path = posixpath.join(folder, name)
            if candidate == path:
                return ControlArea(name, what, path)
        if contents and candidate == folder:
            return ControlArea(
                "agent dir", "pith's agent directory, which holds API keys and tokens", folder
            )
    return None


def _literal_head(pattern: str) -> str:
    """The part of a pattern before its first wildcard."""
    for index, char in enumerate(pattern):
        if char in "*?":
            return pattern[:index]
    return pattern


def names_area(pattern: str, area: ControlArea, *, cwd: str, home: str) -> bool:
    """Whether the path pattern `pattern` names `area` itself rather than reaching it through
    a wildcard: `.pith/settings.json`, `**/.envrc`, `.git/hooks/*` do; `*`, `src/*`, `**` do
    not."""
    if area.folder is not None:
        head = expand_home(_literal_head(pattern.strip()), home)
        if not head:
            return False
        absolute = posixpath.normpath(posixpath.join(cwd, head))
        return _inside(absolute, area.folder)
    needle = area.key.split("/")
    parts = [part for part in pattern.lower().split("/") if part not in ("", ".")]
    size = len(needle)
    return any(tuple(parts[i : i + size]) == tuple(needle) for i in range(len(parts) - size + 1))
