"""Session ids as a user meets them: `pith sessions` prints them, every command takes them back.

Sessions made within a minute share their first 8 characters (ids start with the time), so the
listing must print as much of each id as tells it apart, and each command must accept that.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import pith as pith_sdk
from pith.testing import FakeServer, configure_agent_dir, subprocess_env
from tests.app.rpc.client import RpcClient

_ROW = re.compile(r"^\s*\d+\. .*? entries  (\S+)\s+(.*)$")
SESSIONS = 12


def pith(work: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pith", *args],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def listed(work: Path, env: dict[str, str]) -> dict[str, str]:
    """What `pith sessions` shows: the printed id of each session, by its first request."""
    result = pith(work, env, "sessions")
    assert result.returncode == 0, result.stderr
    rows = [_ROW.match(line) for line in result.stdout.splitlines()]
    assert all(rows), result.stdout
    return {row.group(2): row.group(1) for row in rows if row}


def text_of(message: dict[str, object]) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    assert isinstance(content, list)
    return "".join(block["text"] for block in content if block.get("type") == "text")


async def make_sessions(work: Path, agent: Path) -> None:
    """`SESSIONS` sessions of one request each, one after the other in one process (as fast
    as the machine goes, so their ids share long prefixes), saved as `pith -p` saves them."""
    for n in range(SESSIONS):
        async with await pith_sdk.create_session(
            cwd=work, agent_dir=agent, model="fake/m"
        ) as session:
            await session.prompt(f"request {n}")
            assert session.last_text == f"answer {n}"


# Seven `pith` processes one after the other: the hang guard allows for a loaded machine.
@pytest.mark.timeout(600)
def test_every_command_takes_the_ids_pith_sessions_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PITH_SESSION_DIR", raising=False)  # as subprocess_env has it
    work = tmp_path / "work"
    work.mkdir()
    env = subprocess_env(tmp_path / "agent")
    later = ["qx-again", "qx-other-way"]
    script = {
        "turns": [
            *({"text": f"answer {n}", "unless": later} for n in range(SESSIONS)),
            {"text": "continued", "match": ["qx-again"], "expect": ["request 3"]},
            {"text": "forked", "match": ["qx-other-way"], "expect": ["request 5"]},
        ]
    }
    with FakeServer(script) as server:
        configure_agent_dir(tmp_path / "agent", server)
        asyncio.run(make_sessions(work, tmp_path / "agent"))
        ids = listed(work, env)
        assert sorted(ids) == sorted(f"request {n}" for n in range(SESSIONS))
        shown = list(ids.values())
        assert len(set(shown)) == SESSIONS
        assert all(len(shown_id) >= 8 and not shown_id.endswith("-") for shown_id in shown)

        again = pith(
            work, env, "-p", "--model", "fake/m", "--session", ids["request 3"], "qx-again"
        )
        assert again.returncode == 0, again.stderr
        assert again.stdout == "continued\n"
        fork = pith(
            work, env, "-p", "--model", "fake/m", "--fork", ids["request 5"], "qx-other-way"
        )
        assert fork.returncode == 0, fork.stderr
        assert fork.stdout == "forked\n"
        assert server.problems() == []

        page = tmp_path / "page.html"
        export = pith(work, env, "export", ids["request 7"], "-o", str(page))
        assert export.returncode == 0, export.stderr
        assert "request 7" in page.read_text()

        context = pith(work, env, "context", "--session", ids["request 9"], "--json")
        assert context.returncode == 0, context.stderr
        messages = json.loads(context.stdout)["messages"]
        assert text_of(messages[0]["message"]) == "request 9"

        client = RpcClient(work, tmp_path / "agent")
        try:
            switched = client.request("switch_session", sessionPath=ids["request 2"])
            assert switched.get("success") is True, switched
            history = client.request("get_messages")["data"]["messages"]
            assert text_of(history[0]) == "request 2"
            missing = client.request("switch_session", sessionPath="zz-no-such-id")
            assert missing["success"] is False
            assert missing["error"].startswith("switch_session sessionPath zz-no-such-id:")
        finally:
            client.close()


def test_an_ambiguous_id_lists_the_candidates_under_the_option_used(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    env = subprocess_env(tmp_path / "agent")
    with FakeServer({"turns": [{"text": "ok"}, {"text": "ok"}]}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        for name, request in (("bugfix-one", "fix the parser"), ("bugfix-two", "fix the lexer")):
            made = pith(work, env, "-p", "--model", "fake/m", "--session-id", name, request)
            assert made.returncode == 0, made.stderr
        for option in ("--session", "--fork"):
            result = pith(work, env, "-p", "--model", "fake/m", option, "bugfix", "x")
            assert result.returncode == 2
            lines = result.stderr.splitlines()
            assert lines[0] == f"pith: {option} bugfix: 2 sessions match; give more of the id:"
            assert sorted(line.split() for line in lines[1:]) == [
                ["bugfix-o", "fix", "the", "parser"],
                ["bugfix-t", "fix", "the", "lexer"],
            ]
        export = pith(work, env, "export", "bugfix")
        assert export.stderr.splitlines()[0].startswith("pith: export bugfix: 2 sessions match")
        context = pith(work, env, "context", "--session", "bugfix")
        assert context.stderr.splitlines()[0].startswith("pith: --session bugfix: 2 sessions")
        missing = pith(work, env, "-p", "--model", "fake/m", "--fork", "nothing-like-it", "x")
        assert missing.returncode == 2
        assert missing.stderr.startswith("pith: --fork nothing-like-it: no session")


def test_sessions_and_export_look_where_the_session_dir_setting_keeps_them(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    env = subprocess_env(tmp_path / "agent")
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        settings = {"sessionDir": str(tmp_path / "kept")}
        (tmp_path / "agent" / "settings.json").write_text(json.dumps(settings))
        made = pith(work, env, "-p", "--model", "fake/m", "kept elsewhere")
        assert made.returncode == 0, made.stderr
    assert len(list((tmp_path / "kept").glob("*.jsonl"))) == 1
    ids = listed(work, env)
    assert list(ids) == ["kept elsewhere"]
    page = tmp_path / "page.html"
    export = pith(work, env, "export", ids["kept elsewhere"], "-o", str(page))
    assert export.returncode == 0, export.stderr
    latest = pith(work, env, "export", "-o", str(tmp_path / "latest.html"))
    assert latest.returncode == 0, latest.stderr
