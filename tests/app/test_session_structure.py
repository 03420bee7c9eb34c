"""The session runtime's shape: its modules import each other without a cycle, and no module
or class grows past what a reader takes in at once."""

from __future__ import annotations

import ast
from pathlib import Path

import pith.app.session
from tests.testing.test_import_graph import find_cycle, import_graph

PACKAGE_DIR = Path(pith.app.session.__file__).parent


def test_the_session_modules_have_no_import_cycle() -> None:
    graph = import_graph(PACKAGE_DIR, "pith.app.session")
    assert "pith.app.session._session" in graph
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_session_module_or_class_is_too_long_to_read() -> None:
    too_long = []
    for path in sorted(PACKAGE_DIR.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > 700:
            too_long.append(f"{path.name}: {text.count(chr(10))} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                lines = node.end_lineno - node.lineno + 1
                if lines > 400:
                    too_long.append(f"{path.name}: class {node.name}, {lines} lines")
    assert too_long == []
