"""The house rules of docs/architecture.md hold for `src/pith`, and each check catches the
break it exists for (a small tree that breaks one rule at a time)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

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

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
TABLE = parse_layer_table((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def pith_modules() -> dict[str, Module]:
    return load_modules(SRC, "pith")


def test_the_table_names_real_packages() -> None:
    for package, allowed in TABLE.items():
        for name in (package, *allowed):
            parts = name.split(".")
            folder = SRC.joinpath(*parts)
            assert folder.is_dir() or folder.with_suffix(".py").is_file(), name


def test_imports_follow_the_layer_table(pith_modules: dict[str, Module]) -> None:
    assert layer_violations(pith_modules, TABLE) == []


def test_no_package_imports_another_packages_private_modules(
    pith_modules: dict[str, Module],
) -> None:
    assert private_import_violations(pith_modules) == []


def test_every_package_lists_its_public_names_in_all(pith_modules: dict[str, Module]) -> None:
    assert all_violations(pith_modules) == []


def test_no_import_cycles(pith_modules: dict[str, Module]) -> None:
    assert import_cycles(pith_modules) == []


def test_no_class_or_module_is_too_long(pith_modules: dict[str, Module]) -> None:
    assert size_violations(pith_modules) == []


# -- the checks themselves ----------------------------------------------------------------------


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
        },
    )
    assert all_violations(modules) == [
        "app: __all__ lacks VERSION, helper",
        "app: __all__ names unbound missing_name",
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
