"""`pith.glob` is a leaf: its modules import no other part of pith, and no cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import pith.glob
from tests.testing.test_import_graph import find_cycle, import_graph

PACKAGE_DIR = Path(pith.glob.__file__).parent


def test_pith_glob_has_no_import_cycle() -> None:
    graph = import_graph(PACKAGE_DIR, "pith.glob")
    assert "pith.glob._translate" in graph
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_pith_glob_imports_nothing_else_from_pith() -> None:
    for path in sorted(PACKAGE_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            outside = [name for name in names if name.startswith("pith.")]
            outside = [name for name in outside if not name.startswith("pith.glob")]
            assert not outside, f"{path.name} imports {outside}"
