"""The path a file tool's `path` argument names is the path the permission system judges:
every spelling the tools accept (`file://` URLs, a leading `@`, `~`, look-alike spaces, the
read tool's screenshot-name variants) reaches the path gates as the file it opens."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from pith.agent import AbortSignal
from pith.ext.permissions import PermissionLayer, Ruleset, Situation, build_rules, decide
from pith.testing import subprocess_env
from pith.tools import ReadTool, WriteTool

ETC_DENIED = {"path": {"/etc/*": "deny"}, "external_directory": "deny"}


def rules(section: object, home: str) -> Ruleset:
    return Ruleset(build_rules([PermissionLayer("settings.json", section)]), home)


def decision(section: object, tool: str, path: str, cwd: Path, home: Path) -> str:
    situation = Situation(str(cwd), str(home))
    return decide(rules(section, str(home)), tool, {"path": path}, situation).state


@pytest.mark.parametrize(
    "path",
    [
        "file:///etc/hostname",
        "file://localhost/etc/hostname",
        "file:///etc/%68ostname",
        "@file:///etc/hostname",
        "@/etc/hostname",
    ],
)
def test_a_file_url_or_at_path_meets_the_path_gates(
    tmp_path: Path, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    for tool in ("read", "write", "edit", "ls", "grep", "find"):
        assert decision(ETC_DENIED, tool, path, tmp_path, tmp_path) == "deny", (tool, path)


def test_look_alike_spaces_are_judged_as_the_plain_space_the_tools_use(tmp_path: Path) -> None:
    section = {"read": {"secret notes.txt": "deny"}}
    for space in ("\u00a0", "\u2002", "\u202f", "\u3000"):
        path = f"secret{space}notes.txt"
        assert decision(section, "read", path, tmp_path, tmp_path) == "deny", repr(path)


def _run(tool: WriteTool | ReadTool, args: dict[str, object]) -> str:
    result = asyncio.run(tool.execute("call", args, AbortSignal(), None))
    return "".join(getattr(part, "text", "") for part in result.content)


def _written(root: Path) -> list[Path]:
    return [Path(d) / f for d, _, files in os.walk(root) for f in files]


def _forms(work: Path, home: Path) -> list[str]:
    """Spellings of a path the tools accept, each naming a different file."""
    outside = work.parent / "outside"
    return [
        "plain.txt",
        "./dot/x.txt",
        "@at.txt",
        "@./at/dot.txt",
        "~/home.txt",
        "@~/at-home.txt",
        f"file://{work}/url.txt",
        f"file://localhost{work}/host-url.txt",
        f"file://{quote(str(work))}/sp%20ace.txt",
        f"@file://{work}/at-url.txt",
        f"file://{outside}/escaped.txt",
        "odd\u00a0space.txt",
        "odd\u2002en\u3000ideo.txt",
        "sub/../up.txt",
        f"/{work}/double-slash.txt",
        str(outside / "absolute.txt"),
        "../outside/relative-out.txt",
        "$HOME/not-expanded.txt",
        "~other/not-a-home.txt",
        "quo'ted\".txt",
        "back\\slash.txt",
    ]


def test_every_accepted_form_is_judged_where_the_tool_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """For each spelling: let the write tool write, find the file it made, then deny exactly
    that file — the permission system must deny the call as the tool got it."""
    home = tmp_path / "home"
    work = tmp_path / "work"
    for folder in (home, work, tmp_path / "outside"):
        folder.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for form in _forms(work, home):
        before = set(_written(tmp_path))
        _run(WriteTool(str(work)), {"path": form, "content": form})
        made = set(_written(tmp_path)) - before
        assert len(made) == 1, (form, made)
        target = str(made.pop())
        for tool in ("write", "edit", "read"):
            denied = {"path": {target: "deny"}}
            assert decision(denied, tool, form, work, home) == "deny", (tool, form, target)
            only = {"path": {"*": "deny", target: "allow"}, "external_directory": "allow"}
            assert decision(only, tool, form, work, home) == "allow", (tool, form, target)


def test_the_read_tool_s_screenshot_variants_are_judged_as_the_file_it_opens(
    tmp_path: Path,
) -> None:
    """macOS names screenshots with a narrow no-break space before AM/PM; the read tool finds
    that file when the plain spelling does not exist, so the gates judge that file."""
    real = tmp_path / "Shot 10.00\u202fAM.png"
    real.write_text("the screenshot")
    typed = "Shot 10.00 AM.png"
    assert "the screenshot" in _run(ReadTool(str(tmp_path)), {"path": typed})
    denied = {"read": {str(real): "deny"}}
    assert decision(denied, "read", typed, tmp_path, tmp_path) == "deny"


def test_pith_tool_read_of_a_file_url_is_refused(tmp_path: Path) -> None:
    work, agent = tmp_path / "work", tmp_path / "agent"
    work.mkdir()
    agent.mkdir()
    (agent / "settings.json").write_text(json.dumps({"permission": ETC_DENIED}))
    env = subprocess_env(agent)
    args = json.dumps({"path": "file:///etc/hostname"})
    pith = [sys.executable, "-m", "pith"]
    run = {"cwd": work, "env": env, "capture_output": True, "text": True, "timeout": 60}
    check = subprocess.run(
        [*pith, "permissions", "check", "--tool", "read", "--args", args, "--json"], **run
    )
    assert json.loads(check.stdout)["decision"] == "deny", check.stdout + check.stderr
    tool = subprocess.run([*pith, "tool", "read", args], **run)
    assert tool.returncode == 1, tool.stdout
    assert "/etc/hostname" in tool.stdout + tool.stderr
