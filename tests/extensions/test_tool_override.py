"""An extension's tool named like a built-in replaces it, and its `prepare_arguments` folds an
old argument shape (`{"file": ...}`) into the schema's (`{"path": ...}`) before validation,
both in the agent loop and in `pith tool`."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pith.app import load_extension_runner
from pith.extensions import ExtensionAPI
from pith.resources import load_settings
from pith.testing import FakeServer
from tests.extensions.harness import (
    body,
    drive,
    make_runner,
    make_session,
    run_pith,
    system_prompt_of,
    tool_message_text,
)

LEGACY_READ = '''
from pathlib import Path

from pith.agent import text_result
from pith.extensions import ToolDefinition


def fold(args):
    """Old callers said `file`; the schema says `path`."""
    if isinstance(args, dict) and "file" in args and "path" not in args:
        args = {("path" if key == "file" else key): value for key, value in args.items()}
    return args


def execute(call_id, args, signal, on_update, ctx):
    return text_result("legacy-read:" + (Path(ctx.cwd) / args["path"]).read_text())


def register(api):
    api.register_tool(ToolDefinition(
        name="read",
        description="Read a file (the old `file` argument still works).",
        parameters={
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": False,
        },
        execute=execute,
        prepare_arguments=fold,
    ))
'''

OLD_SHAPE_CALL = {"turns": [{"tool_calls": [{"name": "read", "arguments": {"file": "notes.txt"}}]}]}


def setup_files(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir(exist_ok=True)
    (tmp_path / "agent").mkdir(exist_ok=True)
    (tmp_path / "work" / "notes.txt").write_text("hello")
    extension = tmp_path / "legacy_read.py"
    extension.write_text(LEGACY_READ)
    return extension


def test_agent_loop_runs_the_override_with_the_folded_arguments(tmp_path: Path) -> None:
    extension = setup_files(tmp_path)
    runner = asyncio.run(
        load_extension_runner(
            str(tmp_path / "work"),
            tmp_path / "agent",
            load_settings(tmp_path / "agent"),
            paths=[str(extension)],
        )
    )
    assert runner.diagnostics == []
    script = {"turns": [*OLD_SHAPE_CALL["turns"], {"text": "read it"}]}
    with FakeServer(script) as server:
        drive(make_session(tmp_path, server, runner), "read the notes")
        assert server.problems() == []
        first, second = body(server, 0), body(server, 1)
    tools = {tool["function"]["name"]: tool["function"] for tool in first["tools"]}  # type: ignore[union-attr]
    assert list(tools) == ["read", "bash", "edit", "write"]  # replaced in its place
    assert tools["read"]["description"] == "Read a file (the old `file` argument still works)."
    # the override has no prompt snippet, so the built-in's line is gone from the prompt
    assert "- read: Read file contents" not in system_prompt_of(first)
    assert "- bash: " in system_prompt_of(first)
    assert tool_message_text(second) == "legacy-read:hello"


def test_tool_call_handlers_see_the_arguments_after_folding(tmp_path: Path) -> None:
    setup_files(tmp_path)
    seen: list[object] = []

    def load_override(api: ExtensionAPI) -> None:
        namespace: dict[str, object] = {}
        exec(LEGACY_READ, namespace)
        namespace["register"](api)  # type: ignore[operator]

    def watcher(api: ExtensionAPI) -> None:
        api.on("tool_call", lambda event, ctx: seen.append(dict(event.input)))

    runner = make_runner(tmp_path, ("legacy", load_override), ("watcher", watcher))
    script = {"turns": [*OLD_SHAPE_CALL["turns"], {"text": "ok"}]}
    with FakeServer(script) as server:
        drive(make_session(tmp_path, server, runner), "read")
    assert seen == [{"path": "notes.txt"}]


def test_pith_tool_runs_the_override_with_the_old_argument_shape(tmp_path: Path) -> None:
    extension = setup_files(tmp_path)
    result = run_pith(tmp_path, "tool", "read", '{"file": "notes.txt"}', "-e", str(extension))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "legacy-read:hello\n"


def test_the_builtin_read_rejects_the_old_argument_shape(tmp_path: Path) -> None:
    setup_files(tmp_path)
    # pith's tool guard would repair `file` into `path`: without it, the schema refuses it.
    (tmp_path / "agent").mkdir(exist_ok=True)
    (tmp_path / "agent" / "settings.json").write_text('{"guard": {"enabled": false}}')
    result = run_pith(tmp_path, "tool", "read", '{"file": "notes.txt"}')
    assert result.returncode == 1
    assert "legacy-read" not in result.stdout
    assert "path" in result.stdout
