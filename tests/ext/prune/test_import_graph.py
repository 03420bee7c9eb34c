"""The pruner's modules import each other without a cycle, and its subpackages keep their
private modules to themselves.

Every module of `pith.ext.prune` and of its subpackages is scanned (imports behind
`TYPE_CHECKING` and inside functions count, as in `tests/testing/test_import_graph.py`).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pith.ext.prune
from tests.testing.test_import_graph import Graph, _imported, find_cycle

PACKAGE = "pith.ext.prune"
PACKAGE_DIR = Path(pith.ext.prune.__file__).parent


def _all_module_files(package_dir: Path, package: str) -> dict[str, Path]:
    """Every module of the package and of its subpackages, by dotted name."""
    files = {package: package_dir / "__init__.py"}
    for info in pkgutil.iter_modules([str(package_dir)]):
        name = f"{package}.{info.name}"
        if info.ispkg:
            files |= _all_module_files(package_dir / info.name, name)
        else:
            files[name] = package_dir / f"{info.name}.py"
    return files


def tree_graph(package_dir: Path, package: str) -> Graph:
    """Which modules of the package's whole tree each of them imports."""
    files = _all_module_files(package_dir, package)
    graph: Graph = {name: set() for name in files}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                graph[name] |= _imported(node, name, is_package, set(files)) - {name}
    return graph


def private_reaches(package_dir: Path, package: str) -> list[str]:
    """The imports of a private module (`_name`) from outside the package that holds it: a
    module inside `p` (its subpackages included) may import `p._x`; any other reaches `p`
    only through `p` itself or its public modules."""
    files = _all_module_files(package_dir, package)
    graph = tree_graph(package_dir, package)
    wrong = []
    for module, targets in graph.items():
        home = module if files[module].name == "__init__.py" else module.rpartition(".")[0]
        for target in targets:
            owner, _, name = target.rpartition(".")
            if name.startswith("_") and not f"{home}.".startswith(f"{owner}."):
                wrong.append(f"{module} -> {target}")
    return sorted(wrong)


def test_every_module_of_the_pruner_imports() -> None:
    for name in _all_module_files(PACKAGE_DIR, PACKAGE):
        assert importlib.import_module(name).__name__ == name


def test_the_pruner_has_no_import_cycle() -> None:
    graph = tree_graph(PACKAGE_DIR, PACKAGE)
    assert f"{PACKAGE}._extension" in graph
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_a_private_module_is_imported_only_from_inside_its_package() -> None:
    assert private_reaches(PACKAGE_DIR, PACKAGE) == []


def outside_private_imports(package_dir: Path, package: str) -> list[str]:
    """The imports of another package's private module (`pith.tools._truncate`): outside its
    own tree the pruner uses what each package exports."""
    wrong = []
    for module, path in _all_module_files(package_dir, package).items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                targets = [node.module or ""]
            else:
                continue
            for target in targets:
                inside = target == package or target.startswith(f"{package}.")
                private = [p for p in target.split(".") if p.startswith("_") and p[1:2] != "_"]
                if not inside and private:
                    wrong.append(f"{module} -> {target}")
    return sorted(wrong)


def test_the_pruner_uses_other_packages_through_their_exports() -> None:
    assert outside_private_imports(PACKAGE_DIR, PACKAGE) == []


def test_the_scan_follows_subpackages(tmp_path: Path) -> None:
    package = tmp_path / "demo"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "_top.py").write_text("from demo.sub import thing\n")
    (package / "sub" / "__init__.py").write_text("from demo.sub._inner import thing\n")
    (package / "sub" / "_inner.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from demo._top import x\n"
    )
    graph = tree_graph(package, "demo")
    assert graph == {
        "demo": set(),
        "demo._top": {"demo.sub"},
        "demo.sub": {"demo.sub._inner"},
        "demo.sub._inner": {"demo._top"},
    }
    assert find_cycle(graph) == ["demo._top", "demo.sub", "demo.sub._inner", "demo._top"]
    # `demo.sub._inner` may use `demo._top` (it lives inside `demo`), not the other way round.
    (package / "_other.py").write_text("import demo.sub._inner\n")
    assert private_reaches(package, "demo") == ["demo._other -> demo.sub._inner"]
    (package / "sub" / "_outer.py").write_text("from elsewhere._hidden import y\nimport os\n")
    assert outside_private_imports(package, "demo") == ["demo.sub._outer -> elsewhere._hidden"]
