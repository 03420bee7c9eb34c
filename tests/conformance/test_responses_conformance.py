"""pith and Pi 1.6 on the openai-responses api share sessions both ways.

`responses/` holds a session the real Pi wrote against pith's fake server, and the input items
Pi sent when it continued it (recorded by `record_responses.py`). pith must write the same
assistant blocks for the same replies (the reasoning item, the text's message id, the
`call_id|item id` of the tool call), and send the same items when it continues Pi's session.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from pith.testing import FakeServer
from tests.conformance.responses_case import (
    FIRST_PROMPT,
    MODEL,
    SCRIPT,
    SECOND_PROMPT,
    VARYING_FIELDS,
    models_json,
    replay_items,
)

HERE = Path(__file__).resolve().parent / "responses"


def pith(tmp_path: Path, agent: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env = {k: v for k, v in env.items() if not k.startswith(("PITH_", "OPENAI_"))}
    env.update(PITH_AGENT_DIR=str(agent), HOME=str(tmp_path))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pith",
            "--model",
            f"fake/{MODEL['id']}",
            "--no-context-files",
            *args,
        ],
        cwd=tmp_path / "work",
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert result.returncode == 0, result.stderr


def setup(tmp_path: Path, server: FakeServer) -> Path:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("Buy milk.\n")
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "models.json").write_text(models_json(server.base_url))
    return agent


def assistant_contents(session: Path) -> list[Any]:
    lines = [json.loads(line) for line in session.read_text().splitlines()]
    messages = [line["message"] for line in lines if line["type"] == "message"]
    return [m["content"] for m in messages if m["role"] == "assistant"]


def test_pith_writes_the_blocks_pi_writes_for_the_same_replies(tmp_path: Path) -> None:
    first_two = {"turns": SCRIPT["turns"][:2]}
    with FakeServer(first_two) as server:
        agent = setup(tmp_path, server)
        pith(tmp_path, agent, "-p", FIRST_PROMPT)
        assert server.problems() == []
    [session] = (agent / "sessions").glob("*/*.jsonl")
    assert assistant_contents(session) == assistant_contents(HERE / "pi_session.jsonl")


def test_pith_continues_a_pi_session_with_the_items_pi_sends(tmp_path: Path) -> None:
    recorded = json.loads((HERE / "pi_replay.json").read_text())
    with FakeServer({"turns": SCRIPT["turns"][2:]}) as server:
        agent = setup(tmp_path, server)
        session = tmp_path / "pi_session.jsonl"
        shutil.copy(HERE / "pi_session.jsonl", session)
        pith(tmp_path, agent, "--session", str(session), "-p", SECOND_PROMPT)
        [request] = server.requests
    body = request["body"]
    assert replay_items(body) == recorded["items"]
    assert {k: v for k, v in body.items() if k not in VARYING_FIELDS} == recorded["fields"]
