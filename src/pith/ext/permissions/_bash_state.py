"""The shell state `_bash_walk` carries while walking a command, and the names it must not
trust.

The state is what the text of the command determines: the directories the shell may be in
(more than one after `cd x; y`, where the `cd` may have failed) and the variables assigned
literals so far. Each statement leaves two states, one for when it succeeded and one for when
it failed, so that `cd x && y` runs `y` in `x` and `cd x || y` runs it where it was.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from pith.ext.permissions._bash_words import simple_parameter
from pith.tools.shell_parse import Node, child, string

__all__ = ["Flow", "State", "Taint", "taint"]


@dataclass(frozen=True)
class State:
    dirs: tuple[str | None, ...]
    """Where the shell may be (None: somewhere unknown)."""
    variables: Mapping[str, str | None]
    """Variables assigned in the command so far (None: not a literal, or not one value)."""

    def join(self, other: State) -> State:
        """Either of two states (after two branches): every directory of both; a variable
        keeps its value only when both branches assigned it the same one."""
        if other is self:
            return self
        mine, theirs = self.variables, other.variables
        variables = {
            name: mine[name] if name in mine and name in theirs and mine[name] == theirs[name]
            else None
            for name in dict.fromkeys([*mine, *theirs])
        }  # fmt: skip
        return State(tuple(dict.fromkeys(self.dirs + other.dirs)), variables)

    def lost(self) -> State:
        """The same, plus a directory nobody knows (a `cd` the walk cannot follow)."""
        return State(tuple(dict.fromkeys((*self.dirs, None))), self.variables)

    def unknown(self) -> State:
        """After something that may have changed directory and variables."""
        forgotten = {name: None for name in (*self.variables, "HOME", "PWD")}
        return State(self.lost().dirs, forgotten)


Flow = tuple[State, State]
"""States after a statement: when it succeeded, when it failed (for `&&` / `||`)."""


@dataclass(frozen=True)
class Taint:
    """What a command says about names and settings, whatever the order."""

    names: frozenset[str]
    """Names never substituted: written as a word or inside a string anywhere (`read x`,
    `unset x`, `printf -v x`, `((x++))`, `declare -n r=x`, `${x:=y}`), or assigned in a
    function body (which runs when called, not where it is written)."""
    split_unsafe: bool
    """IFS is assigned or mentioned: unquoted values may split anywhere."""
    glob_unsafe: bool
    """`shopt` or GLOBIGNORE appear: globs may match differently from bash's defaults."""
    cdpath: bool
    """CDPATH appears: a relative `cd` may go elsewhere."""


def taint(root: Node) -> Taint:
    """The names and settings of the command `root` that the walk must not rely on."""
    mentioned: set[str] = set()
    assigned: set[tuple[str, bool]] = set()
    _scan_names(root, mentioned, assigned, in_function=False)
    names = mentioned | {name for name, _ in assigned}
    return Taint(
        frozenset(mentioned | {name for name, in_function in assigned if in_function}),
        split_unsafe="IFS" in names,
        glob_unsafe=bool(names & {"shopt", "GLOBIGNORE"}),
        cdpath="CDPATH" in names,
    )


def _scan_names(
    node: object, mentioned: set[str], assigned: set[tuple[str, bool]], *, in_function: bool
) -> None:
    if isinstance(node, list):
        for item in node:
            _scan_names(item, mentioned, assigned, in_function=in_function)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("Type")
    inside = in_function or kind == "FuncDecl"
    for key, value in node.items():
        if key == "Value" and isinstance(value, str):
            mentioned.update(_IDENT.findall(value))
        elif key == "Name" and kind is None and isinstance(value, dict):
            name = string(value, "Value")
            if name:
                assigned.add((name, inside))  # an assignment's own name
        elif key == "Param" and kind == "ParamExp":
            expansion = child(node, "Exp")
            op = string(expansion, "Op") if expansion is not None else None
            name = simple_parameter({"Param": value}) if isinstance(value, dict) else None
            if op is not None and "=" in op and name:
                mentioned.add(name)  # `${x:=default}` assigns
        elif isinstance(value, dict | list):
            _scan_names(value, mentioned, assigned, in_function=inside)


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
