"""`pith._compile_cache`: dataclasses' compiled code kept between processes, behaviour unchanged.

Every case runs real Python processes, as pith's start-up does: one without the cache, one that
fills it, one that reads it; all three must make the very same classes.
"""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pith._compile_cache import FILE_NAME
from pith.testing import FakeServer, configure_agent_dir, subprocess_env

# Classes with the dataclass features pith and extensions use, described by what their
# generated methods do; `stats` says how the cache served them.
PROBE = r"""
import dataclasses, inspect, json, sys
from dataclasses import InitVar, KW_ONLY, dataclass, field
from typing import ClassVar

cache = None
if sys.argv[1] != "off":
    from pith._compile_cache import install
    cache = install(sys.argv[1])

@dataclass
class Plain:
    name: str
    size: int = 0
    tags: list[str] = field(default_factory=list)
    kind: ClassVar[str] = "plain"

@dataclass(frozen=True, order=True)
class Frozen:
    a: int
    b: str = "x"

@dataclass(kw_only=True, slots=True)
class Keywords:
    first: int
    second: "list[int] | None" = None

@dataclass
class Derived(Plain):
    extra: InitVar[int] = 1
    total: int = field(init=False, default=0)
    _: KW_ONLY
    flag: bool = False

    def __post_init__(self, extra: int) -> None:
        self.total = self.size + extra

@dataclass(eq=False, repr=False)
class Bare:
    value: object = None

out = {}
p = Plain("n", 2)
out["plain"] = [repr(p), p == Plain("n", 2), p == Plain("m"), str(inspect.signature(Plain))]
f = Frozen(1)
try:
    f.a = 2
    out["frozen_assign"] = "allowed"
except dataclasses.FrozenInstanceError as error:
    out["frozen_assign"] = type(error).__name__
out["frozen"] = [repr(f), hash(f) == hash(Frozen(1)), Frozen(1) < Frozen(2)]
out["frozen_sorted"] = sorted([Frozen(3), f]) == [f, Frozen(3)]
k = Keywords(first=1)
try:
    Keywords(1)
    out["keywords_positional"] = "allowed"
except TypeError:
    out["keywords_positional"] = "TypeError"
out["keywords"] = [repr(k), hasattr(k, "__dict__"), str(inspect.signature(Keywords))]
d = Derived("d", 3, extra=4, flag=True)
out["derived"] = [repr(d), d.total, str(inspect.signature(Derived))]
b = Bare()
out["bare"] = [b == Bare(), repr(b).startswith("<__main__.Bare object")]
out["annotations"] = {
    cls.__name__: {name: repr(value) for name, value in cls.__init__.__annotations__.items()}
    for cls in (Plain, Frozen, Keywords, Derived, Bare)
}
out["code"] = {
    f"{cls.__name__}.{method}": getattr(cls, method).__code__.co_code.hex()
    for cls in (Plain, Frozen, Keywords, Derived)
    for method in ("__init__", "__repr__", "__eq__")
}
stats = {"hits": cache.hits, "compiled": cache.compiled} if cache else None
print(json.dumps({"classes": out, "stats": stats}))
"""


def probe(folder: Path | str, env: dict[str, str] | None = None) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(folder)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_cached_code_makes_the_same_classes(tmp_path: Path) -> None:
    without = probe("off")
    filling = probe(tmp_path)
    reading = probe(tmp_path)
    assert filling["classes"] == without["classes"] == reading["classes"]
    assert without["classes"]["frozen_assign"] == "FrozenInstanceError"  # type: ignore[index]
    assert without["classes"]["keywords_positional"] == "TypeError"  # type: ignore[index]
    filled, read = filling["stats"], reading["stats"]
    assert isinstance(filled, dict)
    assert isinstance(read, dict)
    assert filled["compiled"] > 10
    assert filled["hits"] == 0
    assert read["compiled"] == 0
    assert read["hits"] == filled["compiled"]
    assert (tmp_path / FILE_NAME).is_file()


def test_annotations_stay_objects_not_strings(tmp_path: Path) -> None:
    # The cache module itself compiles; none of its own compiler flags may reach the classes.
    annotations = probe(tmp_path)["classes"]["annotations"]  # type: ignore[index]
    assert annotations["Plain"]["name"] == "<class 'str'>"
    assert annotations["Frozen"]["a"] == "<class 'int'>"


def stamp_of_this_interpreter() -> bytes:
    return f"{sys.version}\n{sys.flags.optimize}\n".encode()


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\x00\xff garbage",
        b"pith compile cache 1\nPython 2.7\n0\n" + marshal.dumps({}),
        b"pith compile cache 1\n" + stamp_of_this_interpreter() + b"\x00truncated",
        b"pith compile cache 1\n" + stamp_of_this_interpreter() + marshal.dumps([1, 2]),
        b"pith compile cache 1\n"
        + stamp_of_this_interpreter()
        + marshal.dumps({"def f(): pass": 3}),
    ],
    ids=["empty", "garbage", "other-interpreter", "truncated", "not-a-dict", "not-code"],
)
def test_a_bad_file_is_ignored_and_replaced(tmp_path: Path, content: bytes) -> None:
    (tmp_path / FILE_NAME).write_bytes(content)
    first = probe(tmp_path)
    assert first["classes"] == probe("off")["classes"]
    assert first["stats"]["hits"] == 0  # type: ignore[index]
    assert probe(tmp_path)["stats"]["compiled"] == 0  # type: ignore[index]


def test_an_unwritable_folder_costs_nothing_but_the_saving(tmp_path: Path) -> None:
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("x")
    result = probe(blocked / "cache")
    assert result["classes"] == probe("off")["classes"]
    assert result["stats"]["compiled"] > 0  # type: ignore[index]


def test_the_switch_turns_it_off(tmp_path: Path) -> None:
    env = dict(os.environ, PITH_NO_COMPILE_CACHE="1")
    assert probe(tmp_path, env)["stats"] is None
    assert not (tmp_path / FILE_NAME).exists()


def run_pith(agent: Path, work: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pith", *args],
        cwd=work,
        env={**subprocess_env(agent), **env},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_pith_keeps_the_cache_in_the_agent_dir(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    script = {"turns": [{"text": "first"}, {"text": "second"}]}
    with FakeServer(script) as server:
        agent = configure_agent_dir(tmp_path / "agent", server)
        first = run_pith(agent, work, "-p", "--model", "fake/m", "--no-session", "hi")
        cache = agent / "cache" / FILE_NAME
        assert first.returncode == 0, first.stderr
        assert cache.is_file()
        written = cache.stat().st_mtime_ns
        second = run_pith(agent, work, "-p", "--model", "fake/m", "--no-session", "hi")
    assert (first.stdout, second.stdout) == ("first\n", "second\n")
    assert second.stderr == first.stderr
    assert cache.stat().st_mtime_ns == written  # nothing new to compile, nothing rewritten


def test_version_does_not_touch_the_cache(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    done = run_pith(agent, tmp_path, "--version")
    assert done.returncode == 0
    assert not (agent / "cache").exists()
