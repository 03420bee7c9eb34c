"""Each check of tests/architecture_rules.py catches the break it exists for: small trees
that break one rule at a time (tests/test_architecture.py runs the checks on `src/pith`)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.architecture_rules import (
    Module,
    all_violations,
    import_cycles,
    layer_violations,
    load_modules,
    parse_layer_table,
    private_import_violations,
    size_violations,
)


def _tree(tmp_path: Path, files: dict[str, str]) -> dict[str, Module]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return load_modules(tmp_path, "app")


_SMALL_TABLE = """
<!-- layer-table -->
| package | owns | may import |
|---|---|---|
| `app.low` | the bottom | — |
| `app.high` | the top | `app.low` |
<!-- /layer-table -->
"""


def test_an_import_up_the_layers_is_reported(tmp_path: Path) -> None:
    table = parse_layer_table(_SMALL_TABLE)
    modules = _tree(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/low/__init__.py": "def helper(): ...\n__all__ = ['helper']\n",
            "app/high/__init__.py": "from app.low import helper\n__all__ = ['helper']\n",
        },
    )
    assert layer_violations(modules, {"app": frozenset(), **table}) == []
    (tmp_path / "app/low/_bad.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import app.high\n"
    )
    modules = load_modules(tmp_path, "app")
    problems = layer_violations(modules, {"app": frozenset(), **table})
    assert problems == ["app.low._bad:3 imports app.high (app.low may not import app.high)"]


def test_a_module_in_no_row_is_reported(tmp_path: Path) -> None:
    table = parse_layer_table(_SMALL_TABLE)
    modules = _tree(tmp_path, {"app/__init__.py": "", "app/other.py": ""})
    assert layer_violations(modules, table) == [
        "app: in no row of the layer table",
        "app.other: in no row of the layer table",
    ]


def test_a_private_module_of_another_package_is_reported(tmp_path: Path) -> None:
    modules = _tree(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/a/__init__.py": "",
            "app/a/_inner.py": "X = 1\n",
            "app/a/_user.py": "from app.a._inner import X\n",  # its own package: fine
            "app/a/sub/_deep.py": "from app.a import _inner\n",  # a subpackage: fine
            "app/b.py": "def f():\n    from app.a._inner import X\n",
        },
    )
    assert private_import_violations(modules) == ["app.b:2 imports app.a._inner, private to app.a"]


def test_all_must_match_the_public_names(tmp_path: Path) -> None:
    modules = _tree(
        tmp_path,
        {
            "app/__init__.py": """\
                import os
                from pathlib import Path
                from typing import TYPE_CHECKING
                from app._impl import Thing, helper
                if TYPE_CHECKING:
                    from app._impl import OnlyForTypes
                VERSION = "1"
                __all__ = ["Thing", "missing_name"]
            """,
            "app/_impl.py": "class Thing: ...\ndef helper(): ...\n",
            "app/flag/__init__.py": """\
                TYPE_CHECKING = False
                if TYPE_CHECKING:
                    from app._impl import Thing
                DEBUG = False
                __all__: list[str] = []
            """,
        },
    )
    assert all_violations(modules) == [
        "app: __all__ lacks VERSION, helper",
        "app: __all__ names unbound missing_name",
        "app.flag: __all__ lacks DEBUG",
    ]


def test_an_import_cycle_is_reported_even_behind_type_checking(tmp_path: Path) -> None:
    modules = _tree(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/one.py": "from app import two\n",
            "app/two.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from app.three import C\n"
            ),
            "app/three.py": "def f():\n    import app.one\nclass C: ...\n",
        },
    )
    assert import_cycles(modules) == [["app.one", "app.three", "app.two"]]


def test_long_classes_and_modules_are_reported(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(12))
    modules = _tree(tmp_path, {"app/__init__.py": "", "app/big.py": f"class Big:\n{body}\n"})
    assert size_violations(modules, max_class=10, max_module=20) == [
        "app.big.Big: 13 lines (at most 10)"
    ]
    assert size_violations(modules, max_class=20, max_module=12) == [
        "app.big: 13 lines (at most 12)"
    ]
