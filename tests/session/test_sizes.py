"""`pith.session` stays in small units: no class over 400 lines, no module over 700."""

from __future__ import annotations

import ast
from pathlib import Path

import pith.session

PACKAGE_DIR = Path(pith.session.__file__).parent


def test_no_class_of_pith_session_is_over_400_lines() -> None:
    long = {}
    for path in sorted(PACKAGE_DIR.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        assert source.count("\n") <= 700, f"{path.name} has over 700 lines"
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                size = node.end_lineno - node.lineno + 1
                if size > 400:
                    long[f"{path.name}:{node.name}"] = size
    assert "_session.py" in {path.name for path in PACKAGE_DIR.glob("*.py")}
    assert long == {}
