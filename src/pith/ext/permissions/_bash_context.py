"""What the parts of the bash walk share: the units and paths it finds, what it knows about
the command as a whole, and what a part asks of the walker.

The walker (`_bash_walk`) goes through statements; the parts it hands work to — redirections
and file tests (`_bash_redirects`), assignments (`_bash_assign`), the commands a command runs
(`_bash_commands`) — record what they find in one `Findings` and call back through `Walking`
for the shell text they meet (a substitution, a payload).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

from pith.ext.permissions._bash_argv import Mode, Origin, Wrapper
from pith.ext.permissions._bash_state import Flow, State
from pith.shell import Node, Scope, taint

__all__ = [
    "MAX_DEPTH",
    "CommandUnit",
    "Context",
    "Findings",
    "Knowledge",
    "PathAccess",
    "Walking",
]

Context = Literal[
    "top",
    "list",
    "pipeline",
    "background",
    "subshell",
    "group",
    "control",
    "function",
    "substitution",
    "process_substitution",
    "assignment",
    "heredoc",
    "payload",
    "script",
]

MAX_DEPTH = 8
"""How deep payloads may nest (`bash -c "eval '…'"`, a script running a script)."""


@dataclass(frozen=True)
class CommandUnit:
    """One command the bash command runs, as `bash` patterns see it."""

    texts: tuple[str, ...]
    """What `bash` patterns are matched against (the most restrictive answer wins): the
    command with its `VAR=val` prefixes stripped, each word after quote removal, ANSI-C
    decoding, brace expansion and substitution of literal variables, joined by single spaces
    (a word that is not literal keeps its source text, `$(…)` included); then the same with
    globs matched against the file system, when that differs; then, for each, the variant with
    the command name's basename when the name has a `/` (`/bin/rm` is `rm` too). Comments
    never."""
    context: Context
    """Where it was found (for messages): `top` (the whole command), `list` (`;` `&&` `||`),
    `pipeline`, `background` (`&`, `coproc`), `subshell`, `group`, `control` (conditions and
    bodies of if/while/until/for/case), `function` (a function body), `substitution`
    (`$(…)`, backticks), `process_substitution`, `assignment` (inside an assignment value),
    `heredoc` (inside a here-document body), `payload` (the command a wrapper runs),
    `script` (a command in a script file the command runs)."""
    wrapper: Wrapper | None
    """`opaque`: runs shell text the unit's words do not show (`eval`, `bash -c`, `… | sh`,
    `trap '…'`, `source <(…)`, a command name that is not literal); `indirection`: runs the
    command named in its arguments (`sudo`, `env`, `xargs`, `find -exec`, …). The gates never
    let a wrapper through on an `allow`; the command it runs is a unit of its own when known."""
    source: str
    """The command's text as written (a payload unit: its wrapper's text), for messages."""
    note: str | None = None
    """Why the unit is never allowed by a broad rule, when it is not a plain wrapper: it
    changes pith's own controls (`pith trust --yes`), or it runs a script file that cannot
    be judged."""


@dataclass(frozen=True)
class PathAccess:
    """A path the command touches."""

    path: str
    """As the command gives it after expansion: quotes removed, `~`, `$HOME`, `$PWD` and
    literal variables substituted, globs matched; relative paths are not joined."""
    directory: str | None
    """The directory the command runs in, which a relative `path` is relative to: the working
    directory, or where earlier literal `cd`s in the same shell lead. None after a `cd`
    somewhere the text does not say (`cd "$X"`, `cd -`, `source`)."""
    mode: Mode
    """`read`: its content is read (`cat`, `<`, `cp` sources, and the path-like words of
    commands not known here); `write`: it is created, changed or removed (`>`,
    `tee`, `rm`, `cp`/`mv` destinations, `sed -i`, …); `access`: neither — a `cd` target or
    the operand of a file test (`[[ -f x ]]`)."""
    origin: Origin
    """`operand`, `option` (`--file=x`, `sort -o x`), `redirect`, or `cd`."""
    command: str
    """The unit text (for a redirect: the statement) it belongs to, for messages."""


@dataclass
class Findings:
    """The units, paths and unresolved path words of one command (payloads included), in the
    order found, without repeats."""

    units: dict[CommandUnit, None] = field(default_factory=dict)
    paths: dict[PathAccess, None] = field(default_factory=dict)
    unresolved: dict[str, set[Mode]] = field(default_factory=dict)

    def unit(
        self,
        texts: tuple[str, ...],
        context: Context,
        wrapper: Wrapper | None,
        source: str,
        note: str | None = None,
    ) -> None:
        self.units[CommandUnit(texts, context, wrapper, source, note)] = None

    def path(
        self, path: str, directory: str | None, mode: Mode, origin: Origin, command: str
    ) -> None:
        if path:
            self.paths[PathAccess(path, directory, mode, origin, command)] = None

    def unresolved_word(self, source: str, mode: Mode) -> None:
        self.unresolved.setdefault(source, set()).add(mode)


@dataclass
class Knowledge:
    """What the walk knows about the command as a whole (payloads add to it as they are
    parsed): `$HOME`, and the names and settings it must not rely on (`pith.shell.taint`)."""

    home: str
    tainted: frozenset[str] = frozenset()
    split_safe: bool = True
    glob_safe: bool = True
    cdpath: bool = False
    depth: int = 0
    """How many payloads deep the walk is (`MAX_DEPTH` at most)."""

    def learn(self, root: Node) -> None:
        """Take in what the command (or payload) `root` says about names and settings."""
        found = taint(root)
        self.tainted = self.tainted | found.names
        self.split_safe = self.split_safe and not found.split_unsafe
        self.glob_safe = self.glob_safe and not found.glob_unsafe
        self.cdpath = self.cdpath or found.cdpath

    def scope(self, state: State, directory: str | None) -> Scope:
        """How words expand in `state`, run in `directory`."""
        return Scope(
            state.variables,
            self.home,
            directory,
            self.tainted,
            self.split_safe,
            self.glob_safe,
        )


class Walking(Protocol):
    """What the parts of the walk ask of the walker."""

    def stmts(self, stmts: list[Node], state: State, data: bytes, context: Context) -> Flow:
        """Walk statements in order, threading the state."""
        ...

    def nested(self, node: object, state: State, data: bytes, context: Context | None) -> None:
        """Walk the commands of every substitution inside `node`."""
        ...

    def payload(self, text: str, state: State, context: Context) -> Flow | None:
        """Walk shell text a command runs; None when it does not parse."""
        ...

    def literal_code(self, text: str, state: State) -> None:
        """Walk the substitutions of a string bash may evaluate later."""
        ...
