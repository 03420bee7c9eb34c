"""The compiled helper, built here from its source by the install's own build step, gives the
pure-Python scan's figures; truncation gives the same results on either path; a build without
a compiler is a warning, not a failure."""

from __future__ import annotations

import importlib.util
import shutil
import sysconfig
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings

from pith.tools import _textscan, _truncate
from tests.tools.test_textscan import texts
from tests.tools.test_truncate_reference import EDGES, _check
from tests.tools.test_truncate_reference import caps as truncation_caps
from tests.tools.test_truncate_reference import texts as truncation_texts

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BUILD = _load("pith_build_hook", ROOT / "hatch_build.py")


@cache
def _native_scan(folder: str) -> Callable[[str], tuple[int, int]]:
    if not shutil.which(str(sysconfig.get_config_var("CC") or "cc").split()[0]):
        pytest.fail(
            "the compiled truncation helper is tested by building it, which needs a C compiler "
            "(cc, or $CC): install one (e.g. apt-get install gcc)"
        )
    target = Path(folder) / BUILD.extension_filename()
    problem = BUILD.compile_extension(BUILD.SOURCE, target)
    assert problem is None, problem
    scan: Callable[[str], tuple[int, int]] = _load("_textscan_c", target).scan
    return scan


@pytest.fixture(scope="module")
def native_scan(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[int, int]]:
    return _native_scan(str(tmp_path_factory.mktemp("textscan")))


@pytest.fixture(params=["native", "python"])
def scan_path(
    request: pytest.FixtureRequest, native_scan: Callable[[str], tuple[int, int]]
) -> Callable[[str], tuple[int, int]]:
    return native_scan if request.param == "native" else _textscan.scan_python


def test_native_scan_equals_python_scan(native_scan: Callable[[str], tuple[int, int]]) -> None:
    @settings(max_examples=500, deadline=None)
    @given(texts)
    def check(text: str) -> None:
        assert native_scan(text) == _textscan.scan_python(text)

    check()


def test_native_scan_refuses_what_is_not_a_str(
    native_scan: Callable[[str], tuple[int, int]],
) -> None:
    with pytest.raises(TypeError, match="str"):
        native_scan(b"bytes")  # type: ignore[arg-type]


def test_truncation_equals_the_reference_on_both_paths(
    scan_path: Callable[[str], tuple[int, int]],
) -> None:
    @settings(max_examples=300, deadline=None)
    @given(truncation_texts, truncation_caps)
    def check(text: str, cap: tuple[int, int]) -> None:
        if text or min(cap) >= 0:
            _check(text, cap)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_truncate, "_scan", scan_path)
        for text, cap in EDGES:
            _check(text, cap)
        check()


def test_an_installed_helper_is_the_one_in_use() -> None:
    built = (Path(_textscan.__file__).parent / BUILD.extension_filename()).exists()
    assert ("native" if built else "python") == _textscan.IMPLEMENTATION
    assert (_textscan.scan is _textscan.scan_python) == (not built)


def test_a_missing_compiler_is_a_reason_not_an_error(tmp_path: Path) -> None:
    target = tmp_path / BUILD.extension_filename()
    problem = BUILD.compile_extension(BUILD.SOURCE, target, compiler=str(tmp_path / "no-cc"))
    assert problem is not None
    assert "no-cc" in problem
    assert not target.exists()


def test_a_failing_compiler_is_a_reason_not_an_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.c"
    broken.write_text("this is not C\n", encoding="utf-8")
    target = tmp_path / BUILD.extension_filename()
    problem = BUILD.compile_extension(broken, target)
    assert problem is not None
    assert not target.exists()
