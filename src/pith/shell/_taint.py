"""The names and settings a command may change behind an analysis's back.

Walking a command statement by statement, the permission system and the guard substitute the
values of variables the command assigned literals. That is only sound for names nothing else
sets: `read x`, `unset x`, `printf -v x`, `((x++))`, `${x:=y}` or a function body (which runs
when called, not where it is written) may set them anywhere. `taint` finds those names
wherever they appear, and whether IFS, `shopt`/GLOBIGNORE or CDPATH make splitting, globbing
or a relative `cd` differ from bash's defaults.
"""

from __future__ import annotations

from dataclasses import dataclass

from pith.shell._quotes import IDENTIFIER, simple_parameter
from pith.shell._tree import Node, child, string

__all__ = ["Taint", "taint"]


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
            mentioned.update(IDENTIFIER.findall(value))
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
