"""The house rules of docs/architecture.md hold for `src/pith` (tests/test_architecture_rules.py
shows each check catches the break it exists for)."""

from __future__ import annotations

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
