"""Pure-Python file listing that gives what `rg --files --hidden --sort path` gives.

The rules are ripgrep's (its `ignore` crate; `pith.glob`'s ripgrep dialect reads each line):
`.rgignore` beats `.ignore`, which beats `.gitignore`, which beats `.git/info/exclude`, which
beats the global excludes file; the nearest directory with a matching rule decides, and within
one file the last matching line wins. Git rules apply only inside a repository (a `.git` or
`.jj` in the directory or above) unless `require_git` is False, and stop at the repository
root. `--glob` overrides come first. Entries are visited depth-first, sorted by the bytes of
their names; symlinks are not listed.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from pith.glob import GlobError, RipgrepRule, parse_ripgrep_rule, ripgrep_verdict

__all__ = ["list_files", "walk"]

_EXCLUDES_FILE = re.compile(rb'(?im)^\s*excludesfile\s*=\s*"?\s*(\S+?)\s*"?\s*$')


def list_files(root: str, *, require_git: bool = True) -> Iterator[str]:
    """Files under `root`, relative with `/` separators, in the order and set that
    `rg --files --hidden --sort path --glob '!.git'` prints (without its leading `./`)."""
    return walk(root, require_git=require_git, globs=["!.git"])


def walk(
    root: str,
    *,
    require_git: bool,
    globs: Sequence[str],
    on_error: Callable[[str], None] | None = None,
) -> Iterator[str]:
    """Like `list_files`, with `globs` as ripgrep's `--glob` overrides, in order.

    Raises `GlobError` at once (not on iteration) when a glob is invalid."""
    rules = (parse_ripgrep_rule(glob, unclosed_class_ok=False) for glob in globs)
    overrides = [rule for rule in rules if rule is not None]
    return _walk(root, require_git, overrides, on_error)


def _read_rules(path: str) -> tuple[RipgrepRule, ...]:
    """The rules of one ignore file; unreadable files and invalid lines are skipped."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError:
        return ()
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    rules: list[RipgrepRule] = []
    for number, raw in enumerate(lines):
        if raw.endswith(b"\r") and (number + 1 < len(lines) or data.endswith(b"\n")):
            raw = raw[:-1]
        try:
            text = raw.decode()
        except UnicodeDecodeError:
            break  # ripgrep stops reading an ignore file at its first non-UTF-8 line
        try:
            rule = parse_ripgrep_rule(text.lstrip("\ufeff") if number == 0 else text)
        except GlobError:
            continue
        if rule is not None:
            rules.append(rule)
    return tuple(rules)


@dataclass(frozen=True)
class _Dir:
    """The ignore rules one directory contributes, and how to make paths relative to it."""

    rules: tuple[tuple[RipgrepRule, ...], ...]  # .rgignore, .ignore, .gitignore, info/exclude
    has_git: bool
    strip: int  # leading bytes of a root-relative path that name this directory
    prepend: bytes  # or, for a directory above the root, the root's path below it


def _load_dir(path: str, require_git: bool, cwd: str, strip: int, prepend: bytes) -> _Dir:
    """The rules of directory `path`; `cwd` is the walk's root, where ripgrep would run."""
    rules = tuple(_read_rules(os.path.join(path, name)) for name in (".rgignore", ".ignore"))
    git = os.path.join(path, ".git")
    has_git = False
    exclude_dir: str | None = git
    if require_git:  # only then does ripgrep look at `.git` (a directory, or a worktree's file)
        try:
            git_is_file = stat.S_ISREG(os.stat(git).st_mode)
            has_git = True
        except OSError:
            git_is_file = False
        has_git = has_git or os.path.exists(os.path.join(path, ".jj"))
        exclude_dir = _common_dir(git, cwd) if git_is_file else git
    rules += (_read_rules(os.path.join(path, ".gitignore")),)
    exclude = _read_rules(os.path.join(exclude_dir, "info", "exclude")) if exclude_dir else ()
    return _Dir((*rules, exclude), has_git, strip, prepend)


def _common_dir(git_file: str, cwd: str) -> str | None:
    """The shared git directory of a worktree whose `.git` is a `gitdir:` file, or None."""
    try:
        with open(git_file, encoding="utf-8", newline="") as file:
            line = file.readline().rstrip("\n").removesuffix("\r")
        if not line.startswith("gitdir: "):
            return None
        git_dir = os.path.join(cwd, line[len("gitdir: ") :])  # ripgrep runs in the root
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8", newline="") as file:
            common = file.readline().rstrip("\n").removesuffix("\r")
    except (OSError, UnicodeDecodeError):
        return None
    return os.path.join(git_dir if common.startswith(".") else cwd, common)


def _global_rules() -> tuple[RipgrepRule, ...]:
    """Rules from git's `core.excludesFile` (or its default), found the way ripgrep does."""
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    configs = [os.environ.get("GIT_CONFIG_GLOBAL") or ""]
    configs += [os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config")]
    path = os.path.join(xdg, "git", "ignore")
    for config in filter(None, configs):
        try:
            with open(config, "rb") as file:
                found = _EXCLUDES_FILE.search(file.read())
            if found:
                path = found.group(1).decode().replace("~", home)
                break
        except (OSError, UnicodeDecodeError):
            continue
    return _read_rules(path) if os.path.isfile(path) else ()


def _parents(root: str, require_git: bool) -> tuple[_Dir, ...]:
    """The directories above the (canonical) root, nearest first."""
    real = os.path.realpath(root)
    dirs: list[_Dir] = []
    current = real
    while os.path.dirname(current) != current:
        current = os.path.dirname(current)
        below = os.fsencode(os.path.relpath(real, current)) + b"/"
        dirs.append(_load_dir(current, require_git, root, 0, below))
    return tuple(dirs)


class _Matcher:
    """Decides whether a path under the root is skipped, given its directory's chain."""

    def __init__(self, require_git: bool, overrides: Sequence[RipgrepRule]) -> None:
        self.require_git = require_git
        self.overrides = overrides
        self.override_whitelist = any(not rule.whitelist for rule in overrides)
        self.global_rules = _global_rules()

    def skipped(self, chain: Sequence[_Dir], path: bytes, is_dir: bool) -> bool:
        override = ripgrep_verdict(self.overrides, path, is_dir)
        if override is not None:
            return not override  # a plain --glob includes, a `!` one excludes
        if self.override_whitelist and not is_dir:
            return True
        any_git = not self.require_git or any(node.has_git for node in chain)
        found: list[bool | None] = [None, None, None, None]
        saw_git = False
        for node in chain:
            relative = node.prepend + path[node.strip :]
            for kind, rules in enumerate(node.rules):
                if found[kind] is None and (kind < 2 or (any_git and not saw_git)):
                    found[kind] = ripgrep_verdict(rules, relative, is_dir)
            saw_git = saw_git or node.has_git
        if any_git:
            found.append(ripgrep_verdict(self.global_rules, path, is_dir))
        return next((verdict for verdict in found if verdict is not None), False)


def _entries(path: str, on_error: Callable[[str], None] | None) -> list[os.DirEntry[str]]:
    """A directory's entries in ripgrep's `--sort path` order."""
    try:
        with os.scandir(path) as entries:
            return sorted(entries, key=lambda entry: os.fsencode(entry.name))
    except OSError as error:
        # ripgrep reports unreadable directories and goes on; so does this walk.
        if on_error is not None:
            on_error(f"{path}: {error.strerror or error}")
        return []


def _walk(
    root: str,
    require_git: bool,
    overrides: Sequence[RipgrepRule],
    on_error: Callable[[str], None] | None = None,
) -> Iterator[str]:
    if not os.path.isdir(root):
        return
    matcher = _Matcher(require_git, overrides)
    chain = (_load_dir(root, require_git, root, 0, b""), *_parents(root, require_git))
    stack = [(iter(_entries(root, on_error)), chain, "")]
    while stack:
        entries, chain, prefix = stack[-1]
        entry = next(entries, None)
        if entry is None:
            stack.pop()
            continue
        relative = prefix + entry.name
        path = os.fsencode(relative)
        is_dir = entry.is_dir(follow_symlinks=False)
        if matcher.skipped(chain, path, is_dir):
            continue
        if is_dir:
            node = _load_dir(entry.path, require_git, root, len(path) + 1, b"")
            stack.append((iter(_entries(entry.path, on_error)), (node, *chain), relative + "/"))
        elif entry.is_file(follow_symlinks=False):
            yield relative
