"""What a `pith -p` run imports: only what answering once needs.

A whole `-p` run against the fake server, in a fresh interpreter that then lists
`sys.modules`. The terminal UI, the RPC mode, the HTML export, the Python API's session
object, the providers not chosen, the MCP client and the built-in extensions' bash parsing
(which only a bash call needs) stay out; loading any of them at start-up
is work every short run pays for. A guard on behaviour (which modules load), not on time.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pith.testing import FakeServer, configure_agent_dir, subprocess_env

PROGRAM = """
import json, sys
from pith.cli import main
code = main(sys.argv[2:])
with open(sys.argv[1], "w") as out:
    json.dump(sorted(sys.modules), out)
raise SystemExit(code)
"""

NEVER_IN_A_PRINT_RUN = [
    "pith.app.modes.interactive",
    "prompt_toolkit",
    "rich",
    "pith.app.modes.rpc",
    "pith.app.export",
    "pith.sdk._session",
    "pith.sdk._create",
    "pith.ai._anthropic",
    "pith.ai._anthropic_convert",
    "pith.ai._anthropic_http",
    "pith.ai._google",
    "pith.ai._google_convert",
    "pith.ai._openai_responses",
    "pith.ai._responses_convert",
    "pith.mcp",
    "mcp",
    # the built-in extensions' bash machinery, loaded by the first bash call
    "pith.shell",
    "pith.ext.guard._plan",
    "pith.ext.guard._project",
    "pith.ext.permissions._bash",
]


def modules_of_a_run(
    tmp_path: Path, api: str, *args: str, turns: list[dict[str, object]] | None = None
) -> set[str]:
    with FakeServer({"turns": turns or [{"text": "ok"}]}) as server:
        agent = configure_agent_dir(tmp_path / "agent", server, api=api)
        work = tmp_path / "work"
        work.mkdir()
        listing = tmp_path / "modules.json"
        result = subprocess.run(
            [sys.executable, "-c", PROGRAM, str(listing), *args],
            cwd=work,
            env=subprocess_env(agent),
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        assert server.problems() == []
    assert (result.returncode, result.stdout) == (0, "ok\n"), result.stderr
    return set(json.loads(listing.read_text()))


def test_a_print_run_imports_neither_other_modes_nor_other_providers(tmp_path: Path) -> None:
    loaded = modules_of_a_run(tmp_path, "openai-completions", "-p", "--model", "fake/m", "hi")
    assert {"pith.app.modes._print", "pith.ai._openai_compat"} <= loaded  # it did run
    unwanted = [m for m in NEVER_IN_A_PRINT_RUN if m in loaded]
    assert unwanted == []


@pytest.mark.parametrize(
    ("api", "used", "unused"),
    [
        ("anthropic-messages", "pith.ai._anthropic", "pith.ai._openai_compat"),
        ("google-generative-ai", "pith.ai._google", "pith.ai._anthropic"),
    ],
)
def test_a_print_run_imports_only_the_chosen_provider(
    tmp_path: Path, api: str, used: str, unused: str
) -> None:
    loaded = modules_of_a_run(tmp_path, api, "-p", "--no-session", "--model", "fake/m", "hi")
    assert used in loaded
    assert unused not in loaded
    assert "pith.app.modes.rpc" not in loaded


def test_the_bash_machinery_loads_with_the_first_bash_call(tmp_path: Path) -> None:
    """What start-up leaves out still loads when it is needed: guarded and judged as ever."""
    turns: list[dict[str, object]] = [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi | head -1"}}]},
        {"text": "ok", "expect": ["hi"]},
    ]
    loaded = modules_of_a_run(
        tmp_path, "openai-completions", "-p", "--model", "fake/m", "run it", turns=turns
    )
    assert {"pith.shell", "pith.ext.guard._plan", "pith.ext.permissions._bash"} <= loaded
