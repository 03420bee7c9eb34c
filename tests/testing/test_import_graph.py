"""`pith.testing`'s modules import each other without a cycle.

The scan reads every `import` and `from ... import` statement with `ast`, wherever it is: at
the top, inside `if TYPE_CHECKING:`, or inside a function (a lazy import). A cycle hidden behind
`TYPE_CHECKING` still ties two modules together, so it counts too.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from collections.abc import Mapping
from pathlib import Path

import pith.testing

Graph = dict[str, set[str]]


def _module_files(package_dir: Path, package: str) -> dict[str, Path]:
    """Every Python source module of the package (not of its subpackages), by dotted name;
    a compiled extension module has no imports to read."""
    files = {package: package_dir / "__init__.py"}
    for info in pkgutil.iter_modules([str(package_dir)]):
        source = package_dir / f"{info.name}.py"
        if not info.ispkg and source.is_file():
            files[f"{package}.{info.name}"] = source
    return files


def _imported(
    node: ast.Import | ast.ImportFrom, module: str, is_package: bool, modules: set[str]
) -> set[str]:
    """The modules of `modules` that one import statement of `module` loads."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names} & modules
    if node.level:  # relative: resolved against the module's own package
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - node.level + 1]
        target = ".".join([*base, node.module] if node.module else base)
    else:
        target = node.module or ""
    # `from pkg import name` loads the module `pkg.name` when there is one, else takes a name
    # that `pkg` itself defines.
    found = set()
    for alias in node.names:
        submodule = f"{target}.{alias.name}"
        found.add(submodule if submodule in modules else target)
    return found & modules


def import_graph(package_dir: Path, package: str) -> Graph:
    """Which modules of the package each of its modules imports."""
    files = _module_files(package_dir, package)
    graph: Graph = {name: set() for name in files}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                graph[name] |= _imported(node, name, is_package, set(files)) - {name}
    return graph


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """One import cycle as a path (`[a, b, a]`), or None when the graph has none."""
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return None
        path.append(node)
        for child in sorted(graph.get(node, ())):
            cycle = visit(child)
            if cycle is not None:
                return cycle
        path.pop()
        done.add(node)
        return None

    for start in sorted(graph):
        cycle = visit(start)
        if cycle is not None:
            return cycle
    return None


PACKAGE_DIR = Path(pith.testing.__file__).parent


def test_every_module_of_pith_testing_imports() -> None:
    for name in _module_files(PACKAGE_DIR, "pith.testing"):
        assert importlib.import_module(name).__name__ == name


def test_pith_testing_has_no_import_cycle() -> None:
    graph = import_graph(PACKAGE_DIR, "pith.testing")
    assert "pith.testing.fake_server" in graph
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_scan_sees_a_cycle_behind_type_checking(tmp_path: Path) -> None:
    package = tmp_path / "demo"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "server.py").write_text("from demo import _wire\n")
    (package / "_wire.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from demo.server import Reply\n"
    )
    (package / "_other.py").write_text("from . import _wire\n")
    graph = import_graph(package, "demo")
    assert graph == {
        "demo": set(),
        "demo.server": {"demo._wire"},
        "demo._wire": {"demo.server"},
        "demo._other": {"demo._wire"},
    }
    assert find_cycle(graph) == ["demo._wire", "demo.server", "demo._wire"]


def test_the_scan_sees_lazy_and_relative_imports(tmp_path: Path) -> None:
    package = tmp_path / "demo"
    package.mkdir()
    (package / "__init__.py").write_text("def f():\n    from .a import x\n")
    (package / "a.py").write_text("import demo.b\n")
    (package / "b.py").write_text("from .. import elsewhere\nfrom . import a\n")
    graph = import_graph(package, "demo")
    assert graph == {"demo": {"demo.a"}, "demo.a": {"demo.b"}, "demo.b": {"demo.a"}}
    assert find_cycle(graph) == ["demo.a", "demo.b", "demo.a"]


def test_an_acyclic_graph_has_no_cycle() -> None:
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None
