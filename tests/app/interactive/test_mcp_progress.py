"""An MCP tool's progress notifications in the terminal UI: the toolbox server reports progress,
then waits for a file the test creates, so the progress line is on screen while the call runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pith.testing import FakeServer
from tests.app.interactive.terminal import Terminal
from tests.mcp.helpers import TOOLBOX


def test_progress_of_a_running_mcp_call_shows_until_the_result_comes(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    script = {
        "turns": [
            {"tool_calls": [{"name": "mcp__box__gated", "arguments": {"gate": str(gate)}}]},
            {"text": "All done."},
        ]
    }
    box = {"command": sys.executable, "args": [str(TOOLBOX)], "exposure": "direct"}
    with FakeServer(script) as server:
        agent = tmp_path / "agent"
        agent.mkdir()
        (agent / "mcp.json").write_text(json.dumps({"mcpServers": {"box": box}}))
        with Terminal(tmp_path, server) as term:
            term.ready()
            term.enter("go")
            term.wait_screen("box: halfway there (1/2)")
            gate.write_text("open")
            term.wait_for("gate passed")
            term.wait_for("All done.")
            assert term.quit() == 0
