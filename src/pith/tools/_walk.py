"""Pure-Python file listing that gives what `rg --files --hidden --sort path` gives.

The rules are ripgrep's (its `ignore` and `globset` crates): `.rgignore` beats `.ignore`, which
beats `.gitignore`, which beats `.git/info/exclude`, which beats the global excludes file; the
nearest directory with a matching rule decides, and within one file the last matching line
wins. Git rules apply only inside a repository (a `.git` or `.jj` in the directory or above)
unless `require_git` is False, and stop at the repository root. `--glob` overrides come first.
Entries are visited depth-first, sorted by the bytes of their names; symlinks are not listed.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

__all__ = ["GlobError", "list_files", "walk"]

_PREFIX, _SUFFIX, _MIDDLE = "(?:/?|.*/)", "/.*", "(?:/|/.*/)"
_ANY_NAME = "[^/]*"
# Rust's `char::is_whitespace`, which ripgrep trims from the end of ignore lines.
_WHITESPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B)))
_WHITESPACE += "\u2028\u2029\u202f\u205f\u3000"
_EXCLUDES_FILE = re.compile(rb'(?im)^\s*excludesfile\s*=\s*"?\s*(\S+?)\s*"?\s*$')


class GlobError(ValueError):
    """A glob ripgrep would reject."""


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
    rules = (_parse_rule(glob, unclosed_class_ok=False) for glob in globs)
    overrides = [rule for rule in rules if rule is not None]
    return _walk(root, require_git, overrides, on_error)


@dataclass(frozen=True)
class _Rule:
    regex: re.Pattern[bytes]
    whitelist: bool
    dir_only: bool


def _parse_rule(line: str, *, unclosed_class_ok: bool = True) -> _Rule | None:
    """One gitignore line as ripgrep reads it; None for blanks and comments.

    An unclosed `[` is literal in ignore files; in `--glob` it is an error."""
    if line.startswith("#"):
        return None
    if not line.endswith("\\ "):
        line = line.rstrip(_WHITESPACE)
    if not line:
        return None
    whitelist = absolute = False
    if line.startswith(("\\!", "\\#")):
        line = line[1:]
    else:
        if line.startswith("!"):
            whitelist, line = True, line[1:]
        if line.startswith("/"):
            absolute, line = True, line[1:]
    dir_only = line.endswith("/")
    if dir_only:
        line = line[:-1]
        if line.endswith("\\"):
            line = line[:-1]
    glob = line
    if not absolute and "/" not in line and not (glob.startswith("**/") or glob == "**"):
        glob = "**/" + glob
    if glob.endswith("/**"):
        glob += "/*"
    return _Rule(_glob_regex(glob, unclosed_class_ok=unclosed_class_ok), whitelist, dir_only)


def _glob_regex(glob: str, *, unclosed_class_ok: bool = True) -> re.Pattern[bytes]:
    """globset's regex for `glob` (`*` stops at `/`, `\\` escapes); matches path bytes."""
    branches: list[list[str]] = [[]]
    opened: list[int] = []
    index, unclosed_class = 0, False
    while index < len(glob):
        char = glob[index]
        index += 1
        if char == "?":
            branches[-1].append("[^/]")
        elif char == "*":
            index = _star(glob, index, branches, bool(opened))
        elif char == "[" and not unclosed_class:
            end, token = _class(glob, index)
            unclosed_class = end < 0
            if unclosed_class and not unclosed_class_ok:
                raise GlobError(f"unclosed character class in {glob!r}")
            index = index if unclosed_class else end
            branches[-1].append(token)
        elif char == "{":
            opened.append(len(branches))
            branches.append([])
        elif char == "}":
            if not opened:
                raise GlobError(f"unopened alternate group in {glob!r}")
            start = opened.pop()
            parts = ["".join(branch) for branch in branches[start:] if "".join(branch)]
            del branches[start:]
            branches[-1].append("(?:" + "|".join(parts) + ")" if parts else "")
        elif char == "," and opened:
            branches.append([])
        elif char == "\\":
            if index == len(glob):
                raise GlobError(f"dangling '\\' in {glob!r}")
            branches[-1].append(_literal(glob[index]))
            index += 1
        else:
            branches[-1].append(_literal(char))
    if opened:
        raise GlobError(f"unclosed alternate group in {glob!r}")
    tokens = branches[0]
    body = ".*" if tokens == [_PREFIX] else "".join(tokens)
    return re.compile(body.encode("ascii"), re.DOTALL)


def _star(glob: str, index: int, branches: list[list[str]], in_group: bool) -> int:
    """Handle the `*` before `index`; returns where parsing continues."""
    tokens = branches[-1]
    if glob[index : index + 1] != "*":
        tokens.append(_ANY_NAME)
        return index
    prev = glob[index - 2] if index >= 2 else ""
    index += 1
    after = glob[index : index + 1]
    if not tokens:
        if after not in ("", "/"):
            tokens += [_ANY_NAME, _ANY_NAME]
            return index
        tokens.append(_PREFIX)
        return index + len(after)
    if prev != "/" or not (after == "" or after == "/" or (in_group and after in ",}")):
        tokens += [_ANY_NAME, _ANY_NAME]
        return index
    last = tokens.pop()
    if last in (_PREFIX, _SUFFIX):
        tokens.append(last)
    else:
        tokens.append(_MIDDLE if after == "/" else _SUFFIX)
    return index + (after == "/")


def _class(glob: str, index: int) -> tuple[int, str]:
    """A `[...]` class starting after `[` at `index`: (end, regex), or (-1, literal `[`)."""
    negated = glob[index : index + 1] in ("!", "^")
    index += negated
    ranges: list[list[str]] = []
    first, in_range = True, False
    while True:
        if index == len(glob):
            return -1, _literal("[")
        char = glob[index]
        index += 1
        if char == "]" and not first:
            break
        if char == "-" and not first and not in_range:
            in_range = True
        elif in_range:
            if char < ranges[-1][0]:
                raise GlobError(f"invalid range {ranges[-1][0]}-{char} in {glob!r}")
            ranges[-1][1], in_range = char, False
        else:
            ranges.append([char, char])
        first = False
    if in_range:
        ranges.append(["-", "-"])
    body = "".join(_literal(lo) + ("" if lo == hi else "-" + _literal(hi)) for lo, hi in ranges)
    return index, "[" + "^" * negated + body + "]"


def _literal(char: str) -> str:
    """`char` as its UTF-8 bytes in an ASCII regex, as globset's byte-oriented regex has it."""
    return "".join(
        re.escape(chr(byte)) if byte < 0x80 else f"\\x{byte:02x}" for byte in char.encode()
    )


def _decide(rules: Sequence[_Rule], path: bytes, is_dir: bool) -> bool | None:
    """True to ignore, False for a whitelist (`!`) match, None when no rule matches."""
    for rule in reversed(rules):
        if (is_dir or not rule.dir_only) and rule.regex.fullmatch(path):
            return not rule.whitelist
    return None


def _read_rules(path: str) -> tuple[_Rule, ...]:
    """The rules of one ignore file; unreadable files and invalid lines are skipped."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError:
        return ()
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    rules: list[_Rule] = []
    for number, raw in enumerate(lines):
        if raw.endswith(b"\r") and (number + 1 < len(lines) or data.endswith(b"\n")):
            raw = raw[:-1]
        try:
            text = raw.decode()
        except UnicodeDecodeError:
            break  # ripgrep stops reading an ignore file at its first non-UTF-8 line
        try:
            rule = _parse_rule(text.lstrip("\ufeff") if number == 0 else text)
        except GlobError:
            continue
        if rule is not None:
            rules.append(rule)
    return tuple(rules)


@dataclass(frozen=True)
class _Dir:
    """The ignore rules one directory contributes, and how to make paths relative to it."""

    rules: tuple[tuple[_Rule, ...], ...]  # .rgignore, .ignore, .gitignore, info/exclude
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


def _global_rules() -> tuple[_Rule, ...]:
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

    def __init__(self, require_git: bool, overrides: Sequence[_Rule]) -> None:
        self.require_git = require_git
        self.overrides = overrides
        self.override_whitelist = any(not rule.whitelist for rule in overrides)
        self.global_rules = _global_rules()

    def skipped(self, chain: Sequence[_Dir], path: bytes, is_dir: bool) -> bool:
        override = _decide(self.overrides, path, is_dir)
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
                    found[kind] = _decide(rules, relative, is_dir)
            saw_git = saw_git or node.has_git
        if any_git:
            found.append(_decide(self.global_rules, path, is_dir))
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
    overrides: Sequence[_Rule],
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
