"""`pith.tools`'s modules import each other without a cycle (lazy imports included)."""

from __future__ import annotations

from pathlib import Path

import pith.tools
from tests.testing.test_import_graph import find_cycle, import_graph


def test_pith_tools_has_no_import_cycle() -> None:
    graph = import_graph(Path(pith.tools.__file__).parent, "pith.tools")
    assert "pith.tools._grep_fallback" in graph
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])
