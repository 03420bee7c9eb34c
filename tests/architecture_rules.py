"""The house rules of docs/architecture.md as functions over a source tree.

Each check reads Python files with `ast` (nothing is imported, so a broken rule cannot hide
behind an import error) and returns its violations as one line each; an empty list means the
rule holds. `tests/test_architecture.py` runs them on `src/pith` and on small trees built to
break each rule once.

Every `import` counts, wherever it stands: at the top of a module, under `if TYPE_CHECKING:`,
or inside a function.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

MAX_CLASS_LINES = 400
MAX_MODULE_LINES = 700


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    is_package: bool
    tree: ast.Module = field(compare=False, repr=False)


@dataclass(frozen=True)
class Import:
    importer: str
    target: str
    line: int


def load_modules(src: Path, root: str) -> dict[str, Module]:
    """Every module under `src/<root>` by dotted name (a package by its own name)."""
    modules: dict[str, Module] = {}
    for path in sorted((src / root).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, filename=str(path))
        modules[".".join(parts)] = Module(".".join(parts), path, is_package, tree)
    return modules


def _absolute(module: Module, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.name.split(".") if module.is_package else module.name.split(".")[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def imports(modules: Mapping[str, Module]) -> Iterator[Import]:
    """Each import of a module of the tree, as the most precise module it names.

    `from a.b import c` names the module `a.b.c` when there is one, else `a.b` (a name it
    defines)."""
    for module in modules.values():
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules:
                        yield Import(module.name, alias.name, node.lineno)
            elif isinstance(node, ast.ImportFrom):
                target = _absolute(module, node)
                for alias in node.names:
                    submodule = f"{target}.{alias.name}"
                    name = submodule if submodule in modules else target
                    if name in modules:
                        yield Import(module.name, name, node.lineno)


# -- the layer table ----------------------------------------------------------------------------

_TABLE = re.compile(r"<!-- layer-table -->\n(.*?)<!-- /layer-table -->", re.DOTALL)
_CODE = re.compile(r"`([^`]+)`")


def parse_layer_table(markdown: str) -> dict[str, frozenset[str]]:
    """`package -> the packages it may import` from the marked table of a Markdown file."""
    found = _TABLE.search(markdown)
    if found is None:
        raise ValueError("no <!-- layer-table --> ... <!-- /layer-table --> block")
    table: dict[str, frozenset[str]] = {}
    for row in found.group(1).splitlines():
        cells = [cell.strip() for cell in row.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue  # the header and its rule
        package = _CODE.findall(cells[0])[0]
        table[package] = frozenset(_CODE.findall(cells[-1]))
    return table


def layer_of(module: str, table: Mapping[str, frozenset[str]]) -> str | None:
    """The table row a module belongs to: the longest package name that contains it."""
    best: str | None = None
    for package in table:
        inside = module == package or module.startswith(package + ".")
        if inside and (best is None or len(package) > len(best)):
            best = package
    return best


def layer_violations(
    modules: Mapping[str, Module], table: Mapping[str, frozenset[str]]
) -> list[str]:
    problems: list[str] = []
    for module in modules:
        if layer_of(module, table) is None:
            problems.append(f"{module}: in no row of the layer table")
    for imp in imports(modules):
        source, target = layer_of(imp.importer, table), layer_of(imp.target, table)
        if source is None or target is None or source == target:
            continue
        if target not in table[source]:
            problems.append(
                f"{imp.importer}:{imp.line} imports {imp.target} ({source} may not import {target})"
            )
    return problems


# -- private modules ----------------------------------------------------------------------------


def _private_owner(name: str) -> str | None:
    """The package a private module belongs to (`a.b` for `a.b._c` and `a.b._c.d`)."""
    parts = name.split(".")
    for index, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:index])
    return None


def private_import_violations(modules: Mapping[str, Module]) -> list[str]:
    """Imports of another package's private module."""
    problems: dict[str, None] = {}  # one line per import statement, in order
    for imp in imports(modules):
        owner = _private_owner(imp.target)
        if owner is None or imp.importer == owner or imp.importer.startswith(owner + "."):
            continue
        problems[f"{imp.importer}:{imp.line} imports {imp.target}, private to {owner}"] = None
    return list(problems)


# -- __all__ ------------------------------------------------------------------------------------


def _declared_all(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        if not isinstance(node, ast.Assign | ast.AnnAssign):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if isinstance(target, ast.Name) and target.id == "__all__":
                value = node.value
                if isinstance(value, ast.List | ast.Tuple):
                    return [
                        element.value
                        for element in value.elts
                        if isinstance(element, ast.Constant) and isinstance(element.value, str)
                    ]
    return None


def _bound_names(tree: ast.Module, root: str) -> set[str]:
    """Names a module binds at its top level: what it defines, and what it imports from its
    own project (`root`). Imports from the standard library or other projects,
    `TYPE_CHECKING` blocks (which bind nothing at run time), and a `TYPE_CHECKING = False` flag
    (set instead of importing `typing`), do not count."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            own = node.level > 0 or (node.module or "").split(".")[0] == root
            if own:
                names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
            if ast.unparse(node) == "TYPE_CHECKING = False":
                names.discard("TYPE_CHECKING")
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _type_checking_names(tree: ast.Module) -> set[str]:
    """Names imported inside the module's top-level `if TYPE_CHECKING:` blocks."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) in (
            "TYPE_CHECKING",
            "typing.TYPE_CHECKING",
        ):
            for inner in node.body:
                if isinstance(inner, ast.ImportFrom):
                    names.update(alias.asname or alias.name for alias in inner.names)
    return names


def all_violations(modules: Mapping[str, Module]) -> list[str]:
    """Each package's `__all__` lists exactly the public names its `__init__` defines or
    re-exports from its project. Public means no leading underscore; `__all__` itself, and the
    names of the package's own submodules, do not count."""
    problems = []
    for module in modules.values():
        if not module.is_package:
            continue
        declared = _declared_all(module.tree)
        root = module.name.split(".")[0]
        bound = _bound_names(module.tree, root) - {"__all__"}
        if "__getattr__" in bound:  # a lazy package: names typed under TYPE_CHECKING, and
            bound |= _type_checking_names(module.tree)  # loaded by __getattr__ on first use
        submodules = {
            name.rsplit(".", 1)[1] for name in modules if name.startswith(module.name + ".")
        }
        public = {name for name in bound - submodules if not name.startswith("_")}
        if declared is None:
            if public:
                problems.append(f"{module.name}: no __all__ for {', '.join(sorted(public))}")
            continue
        missing = public - set(declared)
        unknown = set(declared) - bound
        if missing:
            problems.append(f"{module.name}: __all__ lacks {', '.join(sorted(missing))}")
        if unknown:
            problems.append(f"{module.name}: __all__ names unbound {', '.join(sorted(unknown))}")
    return problems


# -- cycles -------------------------------------------------------------------------------------


def import_cycles(modules: Mapping[str, Module]) -> list[list[str]]:
    """Every group of modules that import each other in a circle (strongly connected
    components of two or more modules), each sorted."""
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for imp in imports(modules):
        if imp.target != imp.importer:
            graph[imp.importer].add(imp.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for child in sorted(graph[node]):
            if child not in index:
                visit(child)
                low[node] = min(low[node], low[child])
            elif child in on_stack:
                low[node] = min(low[node], index[child])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)


# -- sizes --------------------------------------------------------------------------------------


def size_violations(
    modules: Mapping[str, Module],
    max_class: int = MAX_CLASS_LINES,
    max_module: int = MAX_MODULE_LINES,
) -> list[str]:
    problems = []
    for module in modules.values():
        lines = len(module.path.read_text(encoding="utf-8").splitlines())
        if lines > max_module:
            problems.append(f"{module.name}: {lines} lines (at most {max_module})")
        for node in ast.walk(module.tree):
            if isinstance(node, ast.ClassDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > max_class:
                    problems.append(
                        f"{module.name}.{node.name}: {length} lines (at most {max_class})"
                    )
    return problems
