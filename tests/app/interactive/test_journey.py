"""A new user's first session, end to end in a real terminal: a task with a file edit, a move
in the tree, a compaction, an HTML export, quitting — and the tool guard's receipt for a slow
command."""

from __future__ import annotations

from pathlib import Path

import pexpect

from pith.testing import FakeServer
from tests.app.interactive.terminal import Terminal


def test_a_task_then_tree_compact_export_and_quit(tmp_path: Path) -> None:
    script = {
        "turns": [
            {
                "text": "I'll fix the greeting.",
                "tool_calls": [
                    {
                        "name": "edit",
                        "arguments": {
                            "path": "hello.py",
                            "edits": [{"oldText": "helo", "newText": "hello"}],
                        },
                    }
                ],
            },
            {"text": "Fixed: it now prints hello. " + "More detail follows. " * 20},
            {"text": "Tests pass. " + "Even more detail follows. " * 20},
            # /compact: the summary of the history, then of the turn the cut falls in
            {"text": "COMPACTED: the greeting was fixed."},
            {"text": "PREFIX: the user asked about tests."},
        ]
    }
    settings = {"compaction": {"keepRecentTokens": 50}}
    with (
        FakeServer(script) as server,
        Terminal(tmp_path, server, settings=settings) as term,
    ):
        (term.work / "hello.py").write_text('print("helo")\n')
        term.ready()
        term.enter("fix the typo in hello.py")
        term.wait_for("● edit hello.py")
        term.wait_for('+1 print("hello")')  # the edit's diff, added line
        term.wait_for("Fixed: it now prints hello.")
        term.enter("do the tests pass?")
        term.wait_for("Tests pass.")

        # /tree: label the first message, then come back to where we are
        term.enter("/tree")
        term.wait_screen("Go to which point")
        term.type("\x1b[H")  # Home: the first row, "you: fix the typo…"
        term.enter()
        term.wait_screen("Label this point")
        term.type("\x1b[F")  # End: the last action, "Label this point…"
        term.enter()
        term.wait_screen("Label (empty removes it)")
        term.enter("the fix")
        term.wait_for("Labelled 'the fix'.")

        term.enter("/compact")
        term.wait_for("Compacted:")

        term.enter("/export out.html")
        term.wait_for("Exported to")  # then the path (it may wrap); the file is read below
        assert term.quit() == 0
        assert server.problems() == []
        entries = term.session_entries()

    assert (term.work / "hello.py").read_text() == 'print("hello")\n'
    labels = [e for e in entries if e["type"] == "label"]
    assert [label["label"] for label in labels] == ["the fix"]
    assert any(e["type"] == "compaction" for e in entries)
    page = (term.work / "out.html").read_text()
    assert "fix the typo in hello.py" in page
    assert "the fix" in page  # the label
    assert "COMPACTED: the greeting was fixed." in page


def test_a_slow_command_whose_tail_the_guard_applied_shows_a_receipt(tmp_path: Path) -> None:
    script = {
        "turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "seq 1 500 | tail -3"}}]},
            {"text": "The last three numbers.", "expect": ["498"]},
        ]
    }
    # Every command counts as slow: the receipt is shown when the view changed the output.
    settings = {"guard": {"fastThresholdMs": 0}}
    with (
        FakeServer(script) as server,
        Terminal(tmp_path, server, settings=settings) as term,
    ):
        term.ready()
        term.enter("count")
        term.wait_for("● $ seq 1 500 | tail -3")
        receipt = term.wait_for(r"guard: ran `seq 1 500`[^\n]*500 → 3 lines", regex=True)
        term.wait_for("The last three numbers.")
        assert term.quit() == 0
        assert server.problems() == []
    assert "then `| tail -3`" in receipt


def test_an_unknown_project_asks_for_trust_before_the_editor_opens(tmp_path: Path) -> None:
    script = {"turns": [{"text": "Trusted.", "expect": ["PROJECT-PROMPT-7"]}]}
    work = tmp_path / "work"
    (work / ".pith").mkdir(parents=True)
    (work / ".pith" / "SYSTEM.md").write_text("You follow PROJECT-PROMPT-7.\n")
    (work / ".pith" / "settings.json").write_text("{}")
    with FakeServer(script) as server, Terminal(tmp_path, server) as term:
        term.wait_screen("Do you trust the project folder")
        term.wait_screen("Trust (this session only)")
        term.type("\x1b[B\x1b[B")  # down twice: "Trust (this session only)"
        term.enter()
        term.ready()
        term.enter("hello")
        term.wait_for("Trusted.")
        assert term.quit() == 0
        assert server.problems() == []
    # a session-only answer is not remembered
    assert not (term.agent / "trust.json").exists()


def test_ctrl_g_writes_the_message_in_the_external_editor(tmp_path: Path) -> None:
    editor = tmp_path / "fake-editor.sh"
    editor.write_text('#!/bin/sh\nprintf "written in the editor\\nsecond line" > "$1"\n')
    editor.chmod(0o755)
    script = {"turns": [{"text": "Got it.", "expect": ["written in the editor\\nsecond line"]}]}
    with (
        FakeServer(script) as server,
        Terminal(tmp_path, server, env={"VISUAL": str(editor), "EDITOR": str(editor)}) as term,
    ):
        term.ready()
        term.child.sendcontrol("g")
        term.wait_screen("second line")
        term.enter()
        term.wait_for("Got it.")
        assert term.quit() == 0
        assert server.problems() == []


def test_a_long_tree_narrows_as_you_type(tmp_path: Path) -> None:
    words = ["first", "second", "third", "fourth", "fifth", "sixth"]
    script = {"turns": [{"text": f"answer {n}"} for n in range(len(words))]}
    with FakeServer(script) as server, Terminal(tmp_path, server) as term:
        term.ready()
        for n, word in enumerate(words):
            term.enter(f"the {word} question")
            term.wait_for(f"answer {n}")
        term.enter("/tree")
        term.wait_screen("type to filter")
        term.type("THIRD")
        term.wait_screen("filter: THIRD")
        term.enter()
        term.wait_screen("Go there")
        term.enter()
        term.wait_for("Moved in the tree")
        term.wait_screen("› the third question")  # your message, back in the editor
        term.type("\x03")  # Ctrl+C clears the editor
        assert term.quit() == 0
        assert server.problems() == []


def test_model_names_complete_after_slash_model(tmp_path: Path) -> None:
    with FakeServer({"turns": []}) as server, Terminal(tmp_path, server) as term:
        term.ready()
        term.type("/model fa")
        term.type("\t")
        term.wait_screen("› /model fake/m")
        term.type("\x03")
        assert term.quit() == 0


def test_resume_flag_in_a_terminal_lists_the_sessions_to_choose_from(tmp_path: Path) -> None:
    script = {"turns": [{"text": "first session answer"}, {"text": "back again"}]}
    with FakeServer(script) as server:
        with Terminal(tmp_path, server) as term:
            term.ready()
            term.enter("remember the word teapot")
            term.wait_for("first session answer")
            assert term.quit() == 0
        with Terminal(tmp_path, server, "-r") as term:
            term.wait_screen("Resume which session?")
            term.wait_screen("remember the word teapot")
            term.enter()
            term.ready()
            term.wait_for("› remember the word teapot")  # the conversation shown again
            term.settle()  # the replay drawn in full: keys typed before it can land in the gap
            term.enter("and now?")
            term.wait_for("back again")
            assert term.quit() == 0
        assert server.problems() == []
        last = server.requests[-1]["body"]
    assert "teapot" in str(last)


def test_ctrl_z_goes_back_to_the_shell_and_fg_brings_pith_back(tmp_path: Path) -> None:
    import shlex
    import sys

    import pexpect

    from pith.testing import configure_agent_dir, subprocess_env

    script = {"turns": [{"text": "still here"}]}
    work = tmp_path / "work"
    work.mkdir()
    with FakeServer(script) as server:
        agent = configure_agent_dir(tmp_path / "agent", server)
        env = subprocess_env(agent, TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1", PS1="$ ")
        shell = pexpect.spawn(
            "bash", ["--norc", "--noprofile", "-i"], cwd=str(work), env=env,
            dimensions=(24, 80), encoding="utf-8", codec_errors="replace", timeout=60,
        )  # fmt: skip
        try:
            command = shlex.join([sys.executable, "-m", "pith", "--model", "fake/m"])
            shell.sendline(command)
            shell.expect("Ctrl")
            shell.expect("quits")
            shell.sendcontrol("z")
            shell.expect("Stopped")  # the shell's job control took over
            shell.sendline("fg")
            shell.expect("fake/m")  # redrawn
            shell.send("are you there?\r")
            shell.expect("still here")
            shell.sendcontrol("d")
            shell.expect(r"\$ ")
            shell.sendline("echo status=$?")
            shell.expect("status=0")
        finally:
            shell.terminate(force=True)
        assert server.problems() == []


def test_shift_tab_cycles_thinking_and_ctrl_p_cycles_models(tmp_path: Path) -> None:
    models: list[dict[str, object]] = [{"id": "m", "reasoning": True}, {"id": "plain"}]
    script = {"turns": [{"text": "answered by plain", "expect": ['"model":"plain"']}]}
    with (
        FakeServer(script) as server,
        Terminal(tmp_path, server, "--thinking", "low", models=models) as term,
    ):
        term.ready()
        term.wait_screen("thinking low")
        term.type("\x1b[Z")  # Shift+Tab
        term.wait_for("Thinking: medium")
        term.wait_screen("thinking medium")
        term.child.sendcontrol("p")
        term.wait_for("Model: fake/plain (thinking off)")  # no reasoning: thinking goes off
        term.child.sendcontrol("p")
        term.wait_for("Model: fake/m")
        term.child.sendcontrol("p")
        term.wait_for("Model: fake/plain")
        term.type("\x1b[Z")
        term.wait_for("does not think")
        term.child.sendcontrol("l")  # the model list
        term.wait_screen("Which model?")
        term.type("\x1b")  # Esc: keep the model
        term.drain(0.5)  # alone: Esc followed at once by a key would read as Alt+key
        term.enter("hi")
        term.wait_for("answered by plain")
        assert term.quit() == 0
        assert server.problems() == []
        changes = [e for e in term.session_entries() if e["type"] == "model_change"]
    assert [c["modelId"] for c in changes][-3:] == ["plain", "m", "plain"]


def test_a_closed_terminal_stops_the_run_and_leaves_the_session_whole(tmp_path: Path) -> None:
    import signal

    script = {
        "turns": [
            {"text": "word " * 400, "chunk": 4, "fault": {"chunkDelay": 0.02}},
        ]
    }
    with FakeServer(script) as server, Terminal(tmp_path, server) as term:
        term.ready()
        term.enter("talk for a while")
        term.wait_for("word word word")
        term.child.kill(signal.SIGHUP)
        term.child.expect(pexpect.EOF, timeout=20)
        term.child.close()
        assert term.child.signalstatus is None  # it exited by itself
        entries = term.session_entries()
        sessions = list((term.agent / "sessions").rglob("*"))
    replies = [
        e["message"]
        for e in entries
        if e["type"] == "message" and e["message"]["role"] == "assistant"  # type: ignore[index]
    ]
    assert replies
    assert replies[-1]["stopReason"] == "aborted"  # type: ignore[index]
    assert "word word" in str(replies[-1]["content"])  # type: ignore[index]
    assert not [p for p in sessions if p.name.endswith(".lock")]  # closed properly


def test_copy_sends_the_last_answer_to_the_clipboard_and_session_sums_it_up(
    tmp_path: Path,
) -> None:
    import base64

    answer = "Use `git bisect` — it finds the commit."
    script = {"turns": [{"text": answer, "usage": {"input": 1500, "output": 40}}]}
    with (
        FakeServer(script) as server,
        Terminal(tmp_path, server, env={"PATH": "/usr/bin:/bin"}) as term,
    ):
        term.ready()
        term.enter("how do I find the bad commit?")
        term.wait_for("finds the commit.")
        term.enter("/copy")
        term.wait_for("Copied the last answer: 39 characters, via the terminal")
        term.enter("/session")
        summary = term.wait_for("cost")
        assert term.quit() == 0
        raw = term.raw
    encoded = base64.b64encode(answer.encode()).decode()
    assert f"\x1b]52;c;{encoded}\x07" in raw  # OSC 52: the terminal's clipboard
    assert "1 yours, 1 replies, 0 tool results" in summary
    assert "1.5k in / 40 out" in summary


def test_at_and_a_fragment_finds_a_file_deep_in_the_project(tmp_path: Path) -> None:
    with FakeServer({"turns": []}) as server, Terminal(tmp_path, server) as term:
        deep = term.work / "src" / "pith" / "loaders"
        deep.mkdir(parents=True)
        (deep / "settings_loader.py").write_text("x = 1\n")
        (term.work / "README.md").write_text("hi\n")
        term.ready()
        term.type("explain @setload")
        term.wait_screen("src/pith/loaders/settings_loader.py")  # in the menu
        term.type("\t")
        term.wait_screen("› explain @src/pith/loaders/settings_loader.py")
        term.type("\x03")
        assert term.quit() == 0


def test_settings_toggles_a_setting_and_saves_it(tmp_path: Path) -> None:
    import json

    with FakeServer({"turns": []}) as server, Terminal(tmp_path, server) as term:
        term.ready()
        term.enter("/settings")
        term.wait_screen("Auto-compaction: on")
        term.enter()  # the first row: Auto-compaction
        term.wait_for("Auto-compaction: off (saved to")
        term.wait_screen("Auto-compaction: off")
        term.type("\x1b[F")  # End: "Done"
        term.enter()
        term.drain(0.5)
        assert term.quit() == 0
        saved = json.loads((term.agent / "settings.json").read_text())
    assert saved["compaction"]["enabled"] is False


def test_new_then_resume_goes_back_to_the_first_conversation(tmp_path: Path) -> None:
    script = {
        "turns": [
            {"text": "noted the teapot"},
            {"text": "fresh start"},
            {"text": "teapot again", "expect": ["remember the teapot"]},
        ]
    }
    with FakeServer(script) as server, Terminal(tmp_path, server) as term:
        term.ready()
        term.enter("remember the teapot")
        term.wait_for("noted the teapot")
        term.enter("/new")
        term.wait_for("A new session")
        term.enter("something else")
        term.wait_for("fresh start")
        term.enter("/resume")
        term.wait_screen("Resume which session?")
        term.wait_screen("remember the teapot")
        term.enter()
        term.wait_for("Resumed")
        term.enter("and now?")
        term.wait_for("teapot again")
        assert term.quit() == 0
        assert server.problems() == []
    files = list((term.agent / "sessions").rglob("*.jsonl"))
    assert len(files) == 2


def test_an_unknown_command_is_refused_and_a_leading_space_sends_it(tmp_path: Path) -> None:
    script = {"turns": [{"text": "as text then", "expect": ["/frobnicate the widget"]}]}
    with FakeServer(script) as server, Terminal(tmp_path, server) as term:
        term.ready()
        term.enter("/frobnicate the widget")
        term.wait_for("unknown command /frobnicate;")
        assert server.requests == []
        term.enter("/name teapot")
        term.wait_for("Session named 'teapot'.")
        term.enter(" /frobnicate the widget")
        term.wait_for("as text then")
        assert term.quit() == 0
        assert server.problems() == []
        assert len(server.requests) == 1
        names = [e["name"] for e in term.session_entries() if e["type"] == "session_info"]
    assert names == ["teapot"]
