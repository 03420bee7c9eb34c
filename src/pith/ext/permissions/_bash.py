"""What a bash command runs and which paths it touches, for the permission gates to judge.

`analyze_bash` parses the command (`pith.shell`) and walks the tree the way bash
would run it, keeping just enough shell state to resolve what the text determines: the
directory after literal `cd`s (a set of possibilities: `cd x || y` runs `y` where the `cd`
failed) and variables assigned literals earlier in the same command (`F=.env; cat $F`).

- Every simple command is a `CommandUnit`, wherever it sits: pipelines, lists, subshells,
  groups, control-flow conditions and bodies, function bodies, `$(…)`, backticks, `<(…)`,
  assignment values, array subscripts, here-document bodies, `[[ … ]]`, arithmetic,
  redirect targets and the words of other commands. Wrappers are flagged and the command they
  run is added as a unit of its own when the text says what it is (`_bash_wrappers`); a
  literal `bash -c '…'` / `eval '…'` payload is parsed and walked like the command itself.
- Paths: redirect targets, operands of known commands by position and mode (`_bash_files`),
  `cd` targets, and for other commands the words that look like paths (a `/`, a leading `.`
  or `~`, or the name of an existing file). Words
  are expanded as bash would (`pith.shell`), globs against the file system.

Nothing here knows the configuration; the only I/O is the parse, glob matching, and "does
this bare word name a file".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from pith.ext.permissions._bash_argv import Mode, Origin, Wrapper
from pith.ext.permissions._bash_state import State
from pith.ext.permissions._bash_walk import Context, Walker
from pith.shell import ShellSyntaxError, parse_bash_leniently

__all__ = ["BashAnalysis", "CommandUnit", "Context", "PathAccess", "analyze_bash"]


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


@dataclass(frozen=True)
class BashAnalysis:
    """Everything a bash command runs and touches."""

    units: tuple[CommandUnit, ...]
    """Every command it runs; empty for an empty or comment-only command (or a parse error)."""
    paths: tuple[PathAccess, ...]
    """Every path it touches that the text determines."""
    unresolved_path_operands: tuple[str, ...]
    """The source text of words in a path position whose value is only known when the
    command runs (`cat "$F"`, `> $(mktemp)`, `cd "$X"`); words in other positions of
    commands not known here are not listed (`echo "$X"` is no path)."""
    error: str | None
    """The parser's message when the command does not parse (the gates then ask)."""
    unresolved_modes: Mapping[str, frozenset[Mode]] = field(default_factory=dict)
    """What the command does to each of `unresolved_path_operands`."""


def analyze_bash(command: str, cwd: str, home: str) -> BashAnalysis:
    """Parse and analyze `command` run in `cwd` with `$HOME` = `home`."""
    try:
        tree = parse_bash_leniently(command)
    except ShellSyntaxError as error:
        return BashAnalysis((), (), (), str(error))
    walker = Walker(home)
    try:
        walker.script(tree.root, tree.data, State((cwd,), {}))
    except RecursionError:
        return BashAnalysis((), (), (), "the command is nested too deeply to be analyzed")
    return BashAnalysis(
        tuple(CommandUnit(*unit) for unit in walker.units),
        tuple(PathAccess(*path) for path in walker.paths),
        tuple(walker.unresolved),
        error=None,
        unresolved_modes={key: frozenset(modes) for key, modes in walker.unresolved.items()},
    )
