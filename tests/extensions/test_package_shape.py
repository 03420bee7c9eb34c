"""`pith.extensions` reads as its design: no import cycle (TYPE_CHECKING imports included),
small units, and one event table that says how each event combines its handlers' answers,
with one generic `emit` in the runner instead of a method per event."""

from __future__ import annotations

import ast
from pathlib import Path

import pith.extensions
from pith.extensions import EVENT_NAMES, ExtensionRunner
from pith.extensions._event_table import EVENT_TABLE
from tests.testing.test_import_graph import find_cycle, import_graph

PACKAGE_DIR = Path(pith.extensions.__file__).parent


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph(PACKAGE_DIR, "pith.extensions")
    assert {"pith.extensions._api", "pith.extensions._runner"} <= set(graph)
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_module_over_700_lines_and_no_class_over_400() -> None:
    too_long: list[str] = []
    for path in sorted(PACKAGE_DIR.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > 700:
            too_long.append(path.name)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                assert node.end_lineno is not None
                if node.end_lineno - node.lineno + 1 > 400:
                    too_long.append(f"{path.name}:{node.name}")
    assert too_long == []


def test_every_event_has_one_row_in_the_table() -> None:
    assert set(EVENT_TABLE) == EVENT_NAMES
    for name, row in EVENT_TABLE.items():
        assert row.payload.__dataclass_fields__["type"].default == name  # type: ignore[attr-defined]


def test_the_runner_has_one_emit_for_every_event() -> None:
    emits = [name for name in vars(ExtensionRunner) if name.startswith("emit")]
    assert emits == ["emit"]
