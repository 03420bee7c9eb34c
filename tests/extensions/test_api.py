"""The rest of `api` and `ctx`: commands, flags, `exec`, messages, entries, active tools and
questions nobody can answer."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from pith.agent import AbortController, text_result
from pith.errors import InputError
from pith.extensions import ExecResult, ExtensionAPI, ExtensionContext, ToolDefinition
from pith.testing import FakeServer
from tests.extensions.harness import (
    body,
    configure_agent_dir,
    drive,
    drive_outcomes,
    make_runner,
    make_session,
    messages_of,
    run_pith,
    sent_texts,
    session_entries,
    tool_names_of,
)

# --- commands ---------------------------------------------------------------------------------


def test_a_command_name_taken_already_gets_the_next_free_number(tmp_path: Path) -> None:
    names: list[str] = []

    def deployer(api: ExtensionAPI) -> None:
        names.append(api.register_command("deploy", lambda args, ctx: None))

    runner = make_runner(tmp_path, ("one", deployer), ("two", deployer), ("three", deployer))
    assert names == ["deploy", "deploy:1", "deploy:2"]
    assert {name: command.extension for name, command in runner.commands.items()} == {
        "deploy": "one",
        "deploy:1": "two",
        "deploy:2": "three",
    }


def test_a_numbered_command_runs_its_own_handler_with_the_arguments(tmp_path: Path) -> None:
    calls: list[tuple[str, str]] = []

    def deployer(api: ExtensionAPI) -> None:
        api.register_command("deploy", lambda args, ctx: calls.append((api.name, args)))

    with FakeServer({"turns": []}) as server:
        runner = make_runner(tmp_path, ("one", deployer), ("two", deployer))
        session = make_session(tmp_path, server, runner)
        [outcome] = drive_outcomes(session, "/deploy:1 to production")
        assert server.requests == []
    assert outcome.reply is None
    assert outcome.handled is True
    assert calls == [("two", "to production")]


def test_a_command_runs_before_input_handlers_which_never_see_it(tmp_path: Path) -> None:
    inputs: list[str] = []

    def commands(api: ExtensionAPI) -> None:
        api.register_command("deploy", lambda args, ctx: None)
        api.on("input", lambda event, ctx: inputs.append(event.text))

    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        drive(make_session(tmp_path, server, make_runner(tmp_path, ("c", commands))), "/deploy")
        assert server.requests == []
        with pytest.raises(InputError, match="unknown command /other"):
            drive(make_session(tmp_path, server, make_runner(tmp_path, ("c", commands))), "/other")
        assert server.requests == []
        drive(make_session(tmp_path, server, make_runner(tmp_path, ("c", commands))), " /other")
        assert sent_texts(body(server, 0))[1:] == [" /other"]  # a leading space: a prompt
    assert inputs == [" /other"]


ASK = """
def register(api):
    async def ask(args, ctx):
        await api.send_user_message("please " + args)

    api.register_command("ask", ask)
"""


def test_a_command_sending_a_user_message_in_print_mode_prints_the_reply(
    tmp_path: Path,
) -> None:
    (tmp_path / "ask.py").write_text(ASK)
    with FakeServer({"turns": [{"text": "answered", "expect": ["please help"]}]}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        result = run_pith(
            tmp_path, "-p", "--model", "fake/m", "-e", str(tmp_path / "ask.py"), "/ask help"
        )
        assert server.problems() == []
        assert len(server.requests) == 1
    assert (result.returncode, result.stdout, result.stderr) == (0, "answered\n", "")


# --- flags ------------------------------------------------------------------------------------

FLAGS = """
from pith.extensions import InputResult

def register(api):
    api.register_flag("shout", description="louder", default=False)
    api.register_flag("greeting", type="string", default="hello")

    def stamp(event, ctx):
        flags = f"[shout={api.get_flag('shout')} greeting={api.get_flag('--greeting')}]"
        return InputResult("transform", event.text + " " + flags)

    api.on("input", stamp)
"""


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (["--shout", "--greeting", "hola"], "hi [shout=True greeting=hola]"),
        ([], "hi [shout=False greeting=hello]"),
    ],
    ids=["given", "defaults"],
)
def test_extension_flags_on_the_command_line_reach_get_flag(
    tmp_path: Path, given: list[str], expected: str
) -> None:
    (tmp_path / "flags.py").write_text(FLAGS)
    script = {"turns": [{"text": "ok", "expect": [expected]}]}
    with FakeServer(script) as server:
        configure_agent_dir(tmp_path / "agent", server)
        result = run_pith(
            tmp_path, "-p", "--model", "fake/m", "-e", str(tmp_path / "flags.py"), *given, "hi"
        )
        assert result.returncode == 0, result.stderr
        assert server.problems() == []
    assert result.stdout == "ok\n"


CLASH = """
def register(api):
    api.register_flag("model", type="string", default="mine")
"""


def test_an_extension_flag_clashing_with_pith_flag_is_reported_and_ignored(
    tmp_path: Path,
) -> None:
    (tmp_path / "clash.py").write_text(CLASH)
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        result = run_pith(
            tmp_path, "-p", "--model", "fake/m", "-e", str(tmp_path / "clash.py"), "hi"
        )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ok\n"
    assert (
        "pith: warning: extension clash: flag --model clashes with one of pith's; ignored"
        in result.stderr.splitlines()
    )


# --- api.exec ---------------------------------------------------------------------------------


def api_for(tmp_path: Path) -> ExtensionAPI:
    held: list[ExtensionAPI] = []
    make_runner(tmp_path, ("runner", held.append))
    return held[0]


def test_exec_returns_stdout_stderr_and_exit_code(tmp_path: Path) -> None:
    api = api_for(tmp_path)
    result = asyncio.run(api.exec("sh", ["-c", "echo out; echo err >&2; exit 3"]))
    assert (result.stdout, result.stderr, result.code) == ("out\n", "err\n", 3)
    assert (result.killed, result.truncated) == (False, False)


def test_exec_timeout_kills_the_program_and_says_so(tmp_path: Path) -> None:
    api = api_for(tmp_path)
    result = asyncio.run(api.exec("sleep", ["30"], timeout=0.2))
    assert result.killed is True
    assert result.code == 128 + 15  # SIGTERM


def test_exec_stops_the_program_when_the_abort_signal_fires(tmp_path: Path) -> None:
    api = api_for(tmp_path)
    controller = AbortController()

    async def scenario() -> ExecResult:
        asyncio.get_running_loop().call_later(0.2, controller.abort)
        return await api.exec("sleep", ["30"], signal=controller.signal)

    result = asyncio.run(scenario())
    assert result.killed is True
    assert result.code == 128 + 15


def test_exec_reports_a_signal_exit_as_128_plus_the_signal(tmp_path: Path) -> None:
    api = api_for(tmp_path)
    result = asyncio.run(api.exec("sh", ["-c", "kill -9 $$"]))
    assert result.code == 128 + 9
    assert result.killed is False


def test_exec_passes_arguments_without_shell_interpretation(tmp_path: Path) -> None:
    api = api_for(tmp_path)
    args = ["$HOME", "*", "a;b", "$(id)", "it's"]
    result = asyncio.run(api.exec(sys.executable, ["-c", "import sys; print(sys.argv[1:])", *args]))
    assert result.stdout == f"{args!r}\n"


def test_exec_runs_in_the_working_directory_by_default(tmp_path: Path) -> None:
    api = api_for(tmp_path)
    result = asyncio.run(api.exec("pwd"))
    assert os.path.samefile(result.stdout.strip(), tmp_path / "work")


def test_exec_of_a_missing_program_raises_file_not_found(tmp_path: Path) -> None:
    api = api_for(tmp_path)
    with pytest.raises(FileNotFoundError):
        asyncio.run(api.exec("pith-no-such-program-here"))


def test_exec_output_past_max_buffer_is_cut_and_flagged(tmp_path: Path) -> None:
    api = api_for(tmp_path)
    program = "import sys; sys.stdout.write('x' * 100000)"
    result = asyncio.run(api.exec(sys.executable, ["-c", program], max_buffer=1000))
    assert result.truncated is True
    assert result.stdout == "x" * 1000
    assert result.code == 0


# --- send_message -----------------------------------------------------------------------------

BASH_THEN_TEXT = {
    "turns": [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "printf tool-output"}}]},
        {"text": "done"},
    ]
}


def test_a_steered_message_during_a_run_reaches_the_next_request(tmp_path: Path) -> None:
    def steerer(api: ExtensionAPI) -> None:
        async def handler(event: object, ctx: object) -> None:
            await api.send_message("note", "steered in")

        api.on("tool_execution_start", handler)

    with FakeServer(BASH_THEN_TEXT) as server:
        session = make_session(tmp_path, server, make_runner(tmp_path, ("steerer", steerer)))
        drive(session, "go")
        assert "steered in" not in json.dumps(body(server, 0))
        assert sent_texts(body(server, 1))[-1] == "steered in"
    kinds = [e["type"] for e in session_entries(session) if e["type"] != "model_change"]
    assert kinds[-3:] == ["message", "custom_message", "message"]  # toolResult, note, reply


def test_a_next_turn_message_waits_for_the_next_prompt(tmp_path: Path) -> None:
    def queuer(api: ExtensionAPI) -> None:
        async def handler(event: object, ctx: object) -> None:
            await api.send_message("note", "for later", deliver_as="next_turn")

        api.on("tool_execution_start", handler)

    script = {"turns": [*BASH_THEN_TEXT["turns"], {"text": "again"}]}
    with FakeServer(script) as server:
        drive(make_session(tmp_path, server, make_runner(tmp_path, ("q", queuer))), "go", "next")
        assert "for later" not in json.dumps(body(server, 1))
        assert sent_texts(body(server, 2))[-2:] == ["next", "for later"]


def idle_sender(**options: object) -> object:
    def register(api: ExtensionAPI) -> None:
        async def note(args: str, ctx: ExtensionContext) -> None:
            await api.send_message("note", args, **options)  # type: ignore[arg-type]

        api.register_command("note", note)

    return register


def test_an_idle_message_is_recorded_and_sent_with_the_next_prompt(tmp_path: Path) -> None:
    script = {"turns": [{"text": "one"}, {"text": "two"}]}
    with FakeServer(script) as server:
        session = make_session(tmp_path, server, make_runner(tmp_path, ("n", idle_sender())))

        async def scenario() -> None:
            await session.prompt("first")
            await session.prompt("/note recorded while idle")
            assert len(server.requests) == 1  # no run started
            await session.prompt("second")

        asyncio.run(scenario())
        session.close()
        assert sent_texts(body(server, 1))[1:] == ["first", "one", "recorded while idle", "second"]
    [custom] = [e for e in session_entries(session) if e["type"] == "custom_message"]
    assert (custom["customType"], custom["content"], custom["display"]) == (
        "note",
        "recorded while idle",
        True,
    )


def test_an_idle_message_with_trigger_turn_starts_a_run(tmp_path: Path) -> None:
    script = {"turns": [{"text": "one"}, {"text": "woken"}]}
    with FakeServer(script) as server:
        session = make_session(
            tmp_path, server, make_runner(tmp_path, ("n", idle_sender(trigger_turn=True)))
        )
        drive(session, "first", "/note wake up")
        assert len(server.requests) == 2
        assert sent_texts(body(server, 1))[-1] == "wake up"
    roles = [m["role"] for m in messages_of(session_entries(session))]
    assert roles == ["user", "assistant", "assistant"]
    assert session.messages[-1].text() == "woken"  # type: ignore[union-attr]


def test_a_next_turn_message_waits_for_the_next_prompt_even_with_trigger_turn(
    tmp_path: Path,
) -> None:
    script = {"turns": [{"text": "one"}, {"text": "two"}]}
    options = {"deliver_as": "next_turn", "trigger_turn": True}
    with FakeServer(script) as server:
        runner = make_runner(tmp_path, ("n", idle_sender(**options)))
        drive(make_session(tmp_path, server, runner), "first", "/note later please", "second")
        assert sent_texts(body(server, 1))[-2:] == ["second", "later please"]


# --- append_entry, set_active_tools -----------------------------------------------------------


def test_append_entry_writes_a_custom_entry_the_model_never_sees(tmp_path: Path) -> None:
    ids: list[str] = []

    def saver(api: ExtensionAPI) -> None:
        api.register_command(
            "save", lambda args, ctx: ids.append(api.append_entry("state", {"count": 3}))
        )

    script = {"turns": [{"text": "one"}, {"text": "two"}]}
    with FakeServer(script) as server:
        session = make_session(tmp_path, server, make_runner(tmp_path, ("saver", saver)))
        drive(session, "first", "/save", "second")
        assert "count" not in json.dumps(body(server, 1))
    [custom] = [e for e in session_entries(session) if e["type"] == "custom"]
    assert custom == {
        "type": "custom",
        "id": ids[0],
        "parentId": custom["parentId"],
        "timestamp": custom["timestamp"],
        "customType": "state",
        "data": {"count": 3},
    }


def test_set_active_tools_changes_the_tools_of_the_next_request(tmp_path: Path) -> None:
    seen: list[list[str]] = []

    def narrower(api: ExtensionAPI) -> None:
        def only(args: str, ctx: object) -> None:
            api.set_active_tools(args.split())
            seen.append(api.get_active_tools())

        api.register_command("only", only)

    script = {"turns": [{"text": "one"}, {"text": "two"}]}
    with FakeServer(script) as server:
        session = make_session(tmp_path, server, make_runner(tmp_path, ("narrower", narrower)))
        drive(session, "first", "/only write read nosuchtool", "second")
        assert tool_names_of(body(server, 0)) == ["read", "bash", "edit", "write"]
        assert tool_names_of(body(server, 1)) == ["read", "write"]
    assert seen == [["read", "write"]]


def test_a_tool_registered_inactive_is_sent_only_once_activated(tmp_path: Path) -> None:
    def shy(api: ExtensionAPI) -> None:
        api.register_tool(
            ToolDefinition(
                name="shy",
                description="only when asked",
                parameters={"type": "object"},
                execute=lambda *args: text_result("here"),
                default_active=False,
            )
        )
        api.register_command(
            "activate", lambda args, ctx: api.set_active_tools([*api.get_active_tools(), "shy"])
        )

    script = {"turns": [{"text": "one"}, {"text": "two"}]}
    with FakeServer(script) as server:
        drive(
            make_session(tmp_path, server, make_runner(tmp_path, ("shy", shy))),
            "a",
            "/activate",
            "b",
        )
        assert tool_names_of(body(server, 0)) == ["read", "bash", "edit", "write"]
        assert tool_names_of(body(server, 1)) == ["read", "bash", "edit", "write", "shy"]


# --- questions in print mode ------------------------------------------------------------------

ASKER = """
from pith.extensions import InputResult

def register(api):
    async def ask(event, ctx):
        confirmed = await ctx.ui.confirm("Proceed?", "really")
        chosen = await ctx.ui.select("Pick", ["a", "b"])
        typed = await ctx.ui.input("Name?")
        where = f"mode={ctx.mode} ui={ctx.has_ui}"
        answers = f"[confirm={confirmed} select={chosen} input={typed} {where}]"
        return InputResult("transform", event.text + " " + answers)

    api.on("input", ask)
"""


def test_questions_in_print_mode_get_their_default_answer_at_once(tmp_path: Path) -> None:
    (tmp_path / "asker.py").write_text(ASKER)
    expected = "hi [confirm=False select=None input=None mode=print ui=False]"
    with FakeServer({"turns": [{"text": "ok", "expect": [expected]}]}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        result = run_pith(
            tmp_path, "-p", "--model", "fake/m", "-e", str(tmp_path / "asker.py"), "hi", timeout=30
        )
        assert result.returncode == 0, result.stderr
        assert server.problems() == []
