"""A third-party package, installed with an entry point, adds a tool, a command and a hook, and
is exercised from `pith -p` and `pith tool` like any built-in."""

from __future__ import annotations

import os
from pathlib import Path

from pith.testing import FakeServer
from tests.extensions.harness import configure_agent_dir, pith_env, run_pith

PACKAGE = """
from pith.extensions import ToolCallDecision, ToolDefinition, text_result


def register(api):
    async def reverse(call_id, args, signal, on_update, ctx):
        return text_result(str(args["text"])[::-1])

    api.register_tool(ToolDefinition(
        name="reverse",
        description="Reverse a piece of text.",
        parameters={"type": "object", "properties": {"text": {"type": "string"}},
                    "required": ["text"]},
        execute=reverse,
    ))

    def no_rm(event, ctx):
        if event.tool_name == "bash" and "rm " in str(event.input.get("command", "")):
            return ToolCallDecision(block=True, reason="rm is not allowed here")

    api.on("tool_call", no_rm)

    async def stats(args, ctx):
        ctx.ui.notify(f"{len(ctx.session.entries)} entries in this session")

    api.register_command("stats", stats, description="Count the session's entries")
"""


def install(site: Path) -> dict[str, str]:
    """`revpkg` installed into `site`; the environment that puts it on the path."""
    (site / "revpkg").mkdir(parents=True)
    (site / "revpkg" / "__init__.py").write_text(PACKAGE)
    info = site / "revpkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: revpkg\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pith.extensions]\nrev = revpkg:register\n")
    path = os.pathsep.join([str(site), *filter(None, [os.environ.get("PYTHONPATH")])])
    return {"PYTHONPATH": path}


def test_the_package_tool_and_hook_work_from_pith_tool(tmp_path: Path) -> None:
    env = pith_env(tmp_path, **install(tmp_path / "site"))
    reversed_ = run_pith(tmp_path, "tool", "reverse", '{"text": "pith"}', env=env)
    assert (reversed_.returncode, reversed_.stdout) == (0, "htip\n"), reversed_.stderr
    blocked = run_pith(tmp_path, "tool", "bash", '{"command": "rm -rf build"}', env=env)
    assert (blocked.returncode, blocked.stdout) == (1, "rm is not allowed here\n")


def test_the_package_works_in_a_model_run_and_its_command_runs(tmp_path: Path) -> None:
    env = pith_env(tmp_path, **install(tmp_path / "site"))
    script = {
        "turns": [
            {"tool_calls": [{"name": "reverse", "arguments": {"text": "abc"}}]},
            {"text": "It is cba.", "expect": ["cba"]},
        ]
    }
    with FakeServer(script) as server:
        configure_agent_dir(tmp_path / "agent", server)
        result = run_pith(tmp_path, "-p", "--model", "fake/m", "reverse abc", "/stats", env=env)
        tools = [tool["function"]["name"] for tool in server.requests[0]["body"]["tools"]]
        assert server.problems() == []
    assert result.returncode == 0, result.stderr
    assert result.stdout == "It is cba.\n"
    assert "reverse" in tools
    # model change, user, assistant (tool call), tool result, assistant
    assert result.stderr == "pith: [rev] 5 entries in this session\n"
