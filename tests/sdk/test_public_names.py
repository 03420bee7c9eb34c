"""`pith`'s public names: each one there, typed, and `import pith` stays cheap."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import pith

SRC = Path(pith.__file__).parent


def test_every_public_name_resolves() -> None:
    for name in pith.__all__:
        assert getattr(pith, name) is not None, name
    assert set(dir(pith)) >= set(pith.__all__)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        pith.no_such_name  # type: ignore[attr-defined]  # noqa: B018


def test_the_package_says_it_is_typed() -> None:
    assert (SRC / "py.typed").is_file()


def test_import_pith_loads_only_its_version_module() -> None:
    shown = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, pith; print(sorted(m for m in sys.modules if m.startswith('pith')))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert shown.stdout.strip() == "['pith', 'pith._version']"
