"""The interactive mode's modules import each other without a cycle, and stay small.

The commands, the keys and `/settings` reach the app through the small protocols of `_host`,
never by importing `_app` (not even behind `TYPE_CHECKING`), so `_app` can import them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pith.app.modes.interactive
from tests.testing.test_import_graph import find_cycle, import_graph

PACKAGE = "pith.app.modes.interactive"
PACKAGE_DIR = Path(pith.app.modes.interactive.__file__).parent


def test_the_interactive_mode_has_no_import_cycle() -> None:
    graph = import_graph(PACKAGE_DIR, PACKAGE)
    assert f"{PACKAGE}._app" in graph[f"{PACKAGE}"]
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_class_of_the_interactive_mode_is_over_400_lines() -> None:
    long = {}
    for path in sorted(PACKAGE_DIR.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        assert source.count("\n") <= 700, f"{path.name} has over 700 lines"
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                size = node.end_lineno - node.lineno + 1
                if size > 400:
                    long[f"{path.name}:{node.name}"] = size
    assert long == {}
