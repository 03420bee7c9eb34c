"""The entry-point cache (`<agent dir>/cache/entry-points.json`): a hit gives what reading the
metadata gives, a changed distribution means a fresh read, and a broken cache file is read
past and rewritten, never a traceback.

Distributions here are real `*.dist-info` folders in a temporary folder put on the path, read
by `importlib.metadata` as it reads any installed package.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from pith.extensions._entry_points import CACHE_NAME, EntryPointRecord, installed_entry_points
from tests.extensions.harness import pith_env, run_pith

GROUP = "pith.extensions"

TOOL_PACKAGE = """
from pith.extensions import ToolDefinition, text_result


def register(api):
    async def execute(call_id, args, signal, on_update, ctx):
        return text_result({answer!r})

    api.register_tool(ToolDefinition(
        name={tool!r},
        description="Say who answered.",
        parameters={{"type": "object", "properties": {{}}}},
        execute=execute,
    ))
"""


def install(site: Path, package: str, points: str, *, tool: str = "", answer: str = "") -> Path:
    """A distribution `package` 1.0 in `site` with `points` as its entry_points.txt; with `tool`,
    its module registers a tool of that name answering `answer`. Returns the dist-info folder."""
    module = site / package
    module.mkdir(parents=True, exist_ok=True)
    body = (
        TOOL_PACKAGE.format(tool=tool, answer=answer) if tool else "def register(api):\n    pass\n"
    )
    (module / "__init__.py").write_text(body)
    info = site / f"{package}-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(points)
    return info


def scan(site: Path) -> list[EntryPointRecord]:
    return installed_entry_points(GROUP, None, [str(site)])


def on_path(tmp_path: Path, site: Path) -> dict[str, str]:
    extra = [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
    return pith_env(tmp_path, PYTHONPATH=os.pathsep.join(extra))


def cache_of(tmp_path: Path) -> Path:
    return tmp_path / "agent" / "cache" / CACHE_NAME


# --- in process, on a given path ---------------------------------------------------------------


def test_a_hit_gives_what_a_fresh_read_gives_and_leaves_the_file_alone(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install(site, "alpha", f"[{GROUP}]\na = alpha:register\n[console_scripts]\nx = alpha:x\n")
    install(site, "beta", f"[{GROUP}]\nb1 = beta:register\nb2 = beta\n")
    cache = tmp_path / "cache" / CACHE_NAME
    fresh = scan(site)
    assert sorted((r.name, r.value, r.distribution) for r in fresh) == [
        ("a", "alpha:register", "alpha"),
        ("b1", "beta:register", "beta"),
        ("b2", "beta", "beta"),
    ]
    first = installed_entry_points(GROUP, cache, [str(site)])
    written = cache.read_bytes()
    stamp = cache.stat().st_mtime_ns
    second = installed_entry_points(GROUP, cache, [str(site)])
    assert first == second == fresh
    assert (cache.read_bytes(), cache.stat().st_mtime_ns) == (written, stamp)


def test_a_hit_is_read_from_the_file(tmp_path: Path) -> None:
    """With the distributions unchanged, the file's records are the answer (so a hit really
    skips reading the metadata)."""
    site = tmp_path / "site"
    install(site, "alpha", f"[{GROUP}]\na = alpha:register\n")
    cache = tmp_path / CACHE_NAME
    installed_entry_points(GROUP, cache, [str(site)])
    content = json.loads(cache.read_text())
    content["groups"][GROUP].append(["marker", "marker:register", "marker"])
    cache.write_text(json.dumps(content))
    names = [r.name for r in installed_entry_points(GROUP, cache, [str(site)])]
    assert names == ["a", "marker"]


def test_a_changed_added_or_removed_distribution_means_a_fresh_read(tmp_path: Path) -> None:
    site = tmp_path / "site"
    info = install(site, "alpha", f"[{GROUP}]\na = alpha:register\n")
    cache = tmp_path / CACHE_NAME

    def names() -> list[str]:
        return sorted(r.name for r in installed_entry_points(GROUP, cache, [str(site)]))

    assert names() == ["a"]
    (info / "entry_points.txt").write_text(f"[{GROUP}]\nrenamed = alpha:register\n")
    assert names() == ["renamed"]
    beta = install(site, "beta", f"[{GROUP}]\nb = beta:register\n")
    assert names() == ["b", "renamed"]
    (beta / "entry_points.txt").unlink()
    assert names() == ["renamed"]
    (info / "entry_points.txt").rename(tmp_path / "kept.txt")
    (info / "METADATA").unlink()
    info.rmdir()
    assert names() == []
    assert names() == scan(site) == []


def test_the_key_names_the_distributions_on_the_path(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install(site, "alpha", f"[{GROUP}]\na = alpha:register\n")
    cache = tmp_path / CACHE_NAME
    installed_entry_points(GROUP, cache, [str(site), str(tmp_path / "missing")])
    key = json.loads(cache.read_text())["key"]
    assert [row[:2] for row in key] == [[str(site), "alpha-1.0.dist-info"]]


def test_a_broken_cache_file_is_read_past_and_rewritten(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install(site, "alpha", f"[{GROUP}]\na = alpha:register\n")
    cache = tmp_path / CACHE_NAME
    expected = scan(site)
    installed_entry_points(GROUP, cache, [str(site)])
    good = json.loads(cache.read_text())
    wrong_rows = {**good, "groups": {GROUP: [["a", 1, None]]}}
    for broken in (
        b"\x00\xff not json",
        b"",
        b"[]",
        b'{"format": 99}',
        json.dumps({**good, "groups": "nope"}).encode(),
        json.dumps(wrong_rows).encode(),
    ):
        cache.write_bytes(broken)
        assert installed_entry_points(GROUP, cache, [str(site)]) == expected, broken
        assert json.loads(cache.read_text()) == good, broken


def test_an_unreadable_or_unwritable_cache_still_gives_the_entry_points(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install(site, "alpha", f"[{GROUP}]\na = alpha:register\n")
    folder = tmp_path / CACHE_NAME
    folder.mkdir()  # a folder where the file should be: neither read nor replaced
    assert installed_entry_points(GROUP, folder, [str(site)]) == scan(site)
    assert folder.is_dir()
    assert list(folder.iterdir()) == []
    blocked = tmp_path / "plain-file" / CACHE_NAME  # its folder cannot be made
    (tmp_path / "plain-file").write_text("")
    assert installed_entry_points(GROUP, blocked, [str(site)]) == scan(site)


# --- a whole process, on the real sys.path -----------------------------------------------------


def test_on_sys_path_a_hit_matches_importlib_metadata(tmp_path: Path) -> None:
    """In a fresh interpreter with a package added to the path, cached and uncached answers
    are importlib.metadata's own (pith's built-ins included)."""
    site = tmp_path / "site"
    install(site, "alpha", f"[{GROUP}]\na = alpha:register\n")
    program = """
import json, sys
from importlib import metadata
from pathlib import Path
from pith.extensions._entry_points import installed_entry_points
group = "pith.extensions"
runs = [installed_entry_points(group, Path(sys.argv[1])) for _ in range(2)]
rows = [sorted((r.name, r.value, r.distribution) for r in run) for run in runs]
truth = sorted((p.name, p.value, p.dist.name) for p in metadata.entry_points(group=group))
print(json.dumps([*rows, truth]))
"""
    cache = tmp_path / CACHE_NAME
    env = on_path(tmp_path, site)
    result = subprocess.run(
        [sys.executable, "-c", program, str(cache)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    written, hit, truth = json.loads(result.stdout)
    assert written == hit == truth
    assert ["a", "alpha:register", "alpha"] in truth
    assert {"guard", "permissions", "prune"} <= {name for name, _, _ in truth}


def test_pith_keeps_the_cache_in_the_agent_dir_and_sees_a_new_package(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install(site, "alpha", f"[{GROUP}]\na = alpha:register\n", tool="who", answer="alpha")
    env = on_path(tmp_path, site)
    first = run_pith(tmp_path, "tool", "who", "{}", env=env)
    assert (first.returncode, first.stdout, first.stderr) == (0, "alpha\n", "")
    assert cache_of(tmp_path).is_file()
    assert ["a", "alpha:register", "alpha"] in json.loads(cache_of(tmp_path).read_text())["groups"][
        GROUP
    ]
    install(site, "beta", f"[{GROUP}]\nb = beta:register\n", tool="who2", answer="beta")
    second = run_pith(tmp_path, "tool", "who2", "{}", env=env)
    assert (second.returncode, second.stdout, second.stderr) == (0, "beta\n", "")


def test_pith_runs_past_a_corrupt_cache_and_rewrites_it(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install(site, "alpha", f"[{GROUP}]\na = alpha:register\n", tool="who", answer="alpha")
    env = on_path(tmp_path, site)
    cache_of(tmp_path).parent.mkdir(parents=True)
    cache_of(tmp_path).write_bytes(b'{"format": 1, "key": [[')
    result = run_pith(tmp_path, "tool", "who", "{}", env=env)
    assert (result.returncode, result.stdout, result.stderr) == (0, "alpha\n", "")
    assert json.loads(cache_of(tmp_path).read_text())["format"] == 1
