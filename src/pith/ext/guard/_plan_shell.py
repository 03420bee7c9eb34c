"""What the shell knows when the final pipeline starts, as far as the text of the command says:
the variables earlier statements set to literal values, the directory it is in, and whether
its umask may have changed.

- **Variables.** A statement made only of assignments (`X=5`, `f=build.log`, `B="$A"0`,
  `X+=1`) sets its names to what bash computes, when that is literal given what is known so
  far (`pith.shell`, the expansion the permission system uses). It counts when it
  surely runs before the pipeline: a top-level statement, or a member of the `&&` chain that
  leads to the pipeline when that chain has no `||`. A name stays known only when every
  assignment of it in the whole command is such a statement before the pipeline, nothing
  else may set it (`read X`, `unset X`, `for X in`, `${X:=…}`, a function body:
  `pith.shell.taint`), it is not one bash manages itself (`RANDOM`, `PWD`, …), and the
  command runs no `source`, `.`, `eval` or command whose name is not literal (which could
  set anything). Known values are
  substituted in the stages that stay (`seq 1 $X` has a known length); a view's own words
  must still be literal, since the view runs again outside the shell.
- **Directory.** The shell starts where the tool runs (`.`). `cd DIR` with a literal operand
  moves it only when it must have succeeded for the pipeline to run: a member of the `&&`
  chain that leads to the pipeline, when that chain has no `||`. `..` is taken logically, as
  bash's `cd` does. Anything else that may change directory (a `cd` elsewhere or with other
  arguments, `pushd`, `popd`, a relative `cd` that CDPATH could send elsewhere, a `..` above
  the start) makes the directory unknown (None).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pith.ext.guard._plan_words import word_set
from pith.shell import (
    Node,
    Scope,
    assignment_name,
    assignment_value,
    child,
    children,
    command_words,
    is_bare,
    is_identifier,
    literal_word,
    taint,
    walk,
)

__all__ = ["ShellPoint", "Unit", "shell_point"]

_MANAGED = word_set(
    "BASHOPTS BASHPID BASH_ARGC BASH_ARGV BASH_ARGV0 BASH_COMMAND BASH_LINENO BASH_REMATCH "
    "BASH_SOURCE BASH_SUBSHELL BASH_VERSINFO BASH_VERSION COLUMNS DIRSTACK EPOCHREALTIME "
    "EPOCHSECONDS EUID FUNCNAME GROUPS HISTCMD HOSTNAME HOSTTYPE IFS LINENO LINES MACHTYPE "
    "OLDPWD OPTARG OPTIND OSTYPE PIPESTATUS PPID PWD RANDOM REPLY SECONDS SHELLOPTS SHLVL "
    "SRANDOM UID"
)
"""Variables bash sets, reads specially or refuses to assign: never taken from the text."""
_CHANGE_ANYTHING = frozenset({"source", ".", "eval"})


@dataclass(frozen=True)
class Unit:
    """A statement before the final pipeline."""

    node: Node
    runs: bool
    """It surely runs before the pipeline does (it may fail)."""
    succeeded: bool
    """The pipeline runs only if it succeeded."""
    place: frozenset[str]
    """The `SHELL_PLACE` builtins it runs anywhere inside."""


@dataclass(frozen=True)
class ShellPoint:
    scope: Scope
    """For expanding the words of the stages that stay: the known variables, no home, no
    directory and no globbing (a word needing them is not literal)."""
    directory: str | None
    """Where the shell is: relative to where the tool runs (`.`, `logs`, `../x` never) or
    absolute; None when unknown."""
    umask: bool
    """Something before the pipeline may have changed the umask."""


def shell_point(root: Node, units: Sequence[Unit], cdpath: bool) -> ShellPoint:
    """The shell's state when the pipeline of the command `root` starts, after `units` (in
    order). `cdpath`: the environment sets CDPATH, so a relative `cd` may go elsewhere."""
    found = taint(root)
    cdpath = cdpath or found.cdpath
    variables: dict[str, str | None] = {}
    tracked: set[int] = set()
    directory: str | None = "."
    for unit in units:
        scope = _scope(variables, found.names, not found.split_unsafe)
        assigns = _assignments_only(unit.node)
        if unit.runs and assigns is not None:
            for assign in assigns:
                tracked.add(id(assign))
                _assign(assign, variables, scope)
                scope = _scope(variables, found.names, not found.split_unsafe)
        if unit.succeeded and "cd" in unit.place:
            target = _cd_target(unit.node)
            directory = _move(directory, target, cdpath) if target is not None else None
        elif unit.place & {"cd", "pushd", "popd"}:
            directory = None
    untracked = {assignment_name(node) for node in _assign_nodes(root) if id(node) not in tracked}
    anything = any(_may_set_anything(node) for node in walk(root))
    known = {
        name: value
        for name, value in variables.items()
        if value is not None and name not in untracked and name not in _MANAGED
    }
    return ShellPoint(
        scope=_scope({} if anything else known, found.names, not found.split_unsafe),
        directory=directory,
        umask=any("umask" in unit.place for unit in units),
    )


def _may_set_anything(node: Node) -> bool:
    """A command that could assign any variable: `source`, `.`, `eval` (also behind
    `command`/`builtin`), or one whose name is not literal."""
    if node.get("Type") != "CallExpr":
        return False
    words = command_words(node)
    while words and words[0] in ("command", "builtin"):
        words = words[1:]
        while words and (words[0] or "").startswith("-"):
            words = words[1:]
    return bool(words) and (words[0] is None or words[0] in _CHANGE_ANYTHING)


def _scope(variables: Mapping[str, str | None], tainted: frozenset[str], split: bool) -> Scope:
    return Scope(variables, None, None, tainted, split_safe=split, glob_safe=False)


def _assignments_only(stmt: Node) -> list[Node] | None:
    """The assignments of a statement made of nothing else (`A=1 B=2`), else None."""
    cmd = child(stmt, "Cmd")
    if not is_bare(stmt) or cmd is None or cmd.get("Type") != "CallExpr":
        return None
    assigns = children(cmd, "Assigns")
    return assigns if assigns and not children(cmd, "Args") else None


def _assign(assign: Node, variables: dict[str, str | None], scope: Scope) -> None:
    name = assignment_name(assign)
    if not is_identifier(name):
        return
    if child(assign, "Index") is not None or child(assign, "Array") is not None:
        variables[name] = None
        return
    value = assignment_value(child(assign, "Value"), scope)
    if assign.get("Append") is True:
        old = variables.get(name)
        value = None if value is None or old is None else old + value
    variables[name] = value


def _assign_nodes(root: Node) -> list[Node]:
    """Every assignment in the command: of statements, prefixes (`X=1 cmd`), declarations."""
    found: list[Node] = []
    for node in walk(root):
        if node.get("Type") == "CallExpr":
            found += children(node, "Assigns")
        elif node.get("Type") == "DeclClause":
            found += [arg for arg in children(node, "Args") if child(arg, "Name") is not None]
    return found


def _cd_target(stmt: Node) -> str | None:
    """The operand of a plain `cd DIR` (or `cd -- DIR`) with a literal, non-empty DIR."""
    cmd = child(stmt, "Cmd")
    if not is_bare(stmt) or cmd is None or cmd.get("Type") != "CallExpr":
        return None
    if children(cmd, "Assigns"):
        return None
    words = [literal_word(word) for word in children(cmd, "Args")]
    if words[:2] == ["cd", "--"]:
        words = ["cd", *words[2:]]
    if len(words) != 2 or words[0] != "cd" or not words[1] or words[1] == "-":
        return None
    return words[1]


def _move(directory: str | None, target: str, cdpath: bool) -> str | None:
    """Where `cd target` from `directory` leads, taken logically; None when unknown."""
    if target.startswith("/"):
        return posixpath.normpath(target)
    if directory is None:
        return None
    first = target.split("/", 1)[0]
    if cdpath and first not in (".", ".."):
        return None  # CDPATH is searched for a name that does not start with / . or ..
    moved = posixpath.normpath(posixpath.join(directory, target))
    if not directory.startswith("/") and (moved == ".." or moved.startswith("../")):
        return None  # above the start: its logical parent is not known here
    return moved
