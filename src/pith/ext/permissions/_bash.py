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

from pith.ext.permissions._bash_argv import Mode
from pith.ext.permissions._bash_context import CommandUnit, Context, PathAccess
from pith.ext.permissions._bash_state import State
from pith.ext.permissions._bash_walk import Walker
from pith.shell import ShellSyntaxError, parse_bash_leniently

__all__ = ["BashAnalysis", "CommandUnit", "Context", "PathAccess", "analyze_bash"]


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
    found = walker.findings
    return BashAnalysis(
        tuple(found.units),
        tuple(found.paths),
        tuple(found.unresolved),
        error=None,
        unresolved_modes={key: frozenset(modes) for key, modes in found.unresolved.items()},
    )
