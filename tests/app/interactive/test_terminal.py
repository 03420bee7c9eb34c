"""The interactive mode driven for real: `pith` in a pseudo-terminal (80×24, xterm-256color)
against the fake model server, typed at key by key."""

from __future__ import annotations

import json
import time
from pathlib import Path

from pith.testing import FakeServer
from tests.app.interactive.terminal import Terminal


def requests(server: FakeServer) -> list[dict[str, object]]:
    return [r for r in server.requests if str(r["path"]).endswith("/chat/completions")]


def body_text(request: dict[str, object]) -> str:
    return json.dumps(request["body"], ensure_ascii=False)


def messages(entries: list[dict[str, object]]) -> list[dict[str, object]]:
    return [e["message"] for e in entries if e["type"] == "message"]  # type: ignore[misc]


def test_a_prompt_streams_an_answer_runs_a_tool_and_shows_its_result(tmp_path: Path) -> None:
    script = {
        "chunk": 3,
        "turns": [
            {
                "text": "Let me **look** at it.",
                "tool_calls": [{"name": "bash", "arguments": {"command": "echo tool-out-42"}}],
            },
            {"text": "The tool printed 42.\n\nThat is all.", "expect": ["tool-out-42"]},
        ],
    }
    with FakeServer(script) as server, Terminal(tmp_path, server) as term:
        term.ready()
        term.enter("what does it print?")
        term.wait_for("› what does it print?")
        term.wait_for("Let me look at it.")
        term.wait_for("● $ echo tool-out-42")
        term.wait_for("tool-out-42")
        term.wait_for("The tool printed 42.")
        term.wait_for("That is all.")
        assert term.quit() == 0
        assert server.problems() == []
        roles = [m["role"] for m in messages(term.session_entries())]
    assert roles == ["user", "assistant", "toolResult", "assistant"]


LONG = " ".join(f"word{n}" for n in range(400))


def test_esc_stops_a_streaming_answer_and_keeps_what_arrived(tmp_path: Path) -> None:
    script = {"turns": [{"text": LONG, "chunk": 6, "fault": {"chunkDelay": 0.05}}]}
    with FakeServer(script) as server, Terminal(tmp_path, server) as term:
        term.ready()
        term.enter("tell me a long story")
        term.wait_for("word3 ")
        term.type("\x1b")
        term.wait_for("Stopped.")
        assert term.quit() == 0
        (reply,) = [m for m in messages(term.session_entries()) if m["role"] == "assistant"]
    assert reply["stopReason"] == "aborted"
    (block,) = reply["content"]  # type: ignore[misc]
    kept = block["text"]
    assert kept.startswith("word0 word1 word2 word3")
    assert len(kept) < len(LONG)
    assert kept.split()[-1] in term.text  # the partial answer stayed on screen


def test_a_message_typed_while_a_tool_runs_steers_the_next_request(tmp_path: Path) -> None:
    script = {
        "turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 3; echo slept"}}]},
            {"text": "Steered: keeping it short.", "expect": ["keep it short", "slept"]},
        ]
    }
    with FakeServer(script) as server, Terminal(tmp_path, server) as term:
        term.ready()
        term.enter("run the slow thing")
        term.wait_screen("$ sleep 3; echo slept")
        term.enter("keep it short")
        term.wait_screen("↳ steer: keep it short")
        term.wait_for("● $ sleep 3; echo slept")
        term.wait_for("Steered: keeping it short.")
        assert term.quit() == 0
        assert server.problems() == []
        second = requests(server)[1]["body"]
    last = second["messages"][-1]  # type: ignore[index]
    assert last["role"] == "user"
    assert "keep it short" in json.dumps(last["content"])


def test_tree_moves_to_an_earlier_message_and_summarizes_the_branch_left(
    tmp_path: Path,
) -> None:
    script = {
        "turns": [
            {"text": "First answer."},
            {"text": "Second answer."},
            {"text": "BRANCH-SUMMARY: the second question was answered."},
            {"text": "Answered again.", "expect": ["BRANCH-SUMMARY", "second question"]},
        ]
    }
    with FakeServer(script) as server, Terminal(tmp_path, server) as term:
        term.ready()
        term.enter("first question")
        term.wait_for("First answer.")
        term.enter("second question")
        term.wait_for("Second answer.")
        term.enter("/tree")
        term.wait_screen("Go to which point of the conversation?")
        term.wait_screen("❯ ◉ pith: Second answer.")
        term.type("\x1b[A")  # up
        term.wait_screen("❯ • you: second question")
        term.enter()
        term.wait_screen("❯ Go there")
        term.type("\x1b[B")  # down
        term.wait_screen("❯ Go there and summarize the branch you leave")
        term.enter()
        term.wait_for("Moved in the tree (the branch left behind is summarized).")
        assert editor_row(term) == "› second question"  # the message left behind, to edit
        term.enter()
        term.wait_for("Answered again.")
        assert term.quit() == 0
        assert server.problems() == []
        bodies = [body_text(r) for r in requests(server)]
        entries = term.session_entries()
    assert "Second answer." in bodies[2]
    (summary,) = [e for e in entries if e["type"] == "branch_summary"]
    assert "BRANCH-SUMMARY" in str(summary["summary"])
    users = [m["content"] for m in messages(entries) if m["role"] == "user"]
    assert users[-1] == users[1]


def editor_row(term: Terminal, timeout: float = 30) -> str:
    """The editor's first row (the one above the footer), once it holds text."""
    deadline = time.monotonic() + timeout
    row = ""
    while time.monotonic() < deadline:
        lines = term.lines
        footers = [i for i, line in enumerate(lines) if line.startswith("fake/m ·")]
        row = lines[footers[-1] - 1] if footers and footers[-1] > 0 else ""
        if row.startswith("› ") and row != "›":
            return row
        term.drain(0.1)
    return row


def test_allow_for_this_session_is_not_asked_again_for_the_same_kind(tmp_path: Path) -> None:
    script = {
        "turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "echo first-call"}}]},
            {"tool_calls": [{"name": "bash", "arguments": {"command": "echo second-call"}}]},
            {"text": "Both ran.", "expect": ["second-call"]},
        ]
    }
    settings = {"permission": {"bash": "ask"}}
    with (
        FakeServer(script) as server,
        Terminal(tmp_path, server, settings=settings) as term,
    ):
        term.ready()
        term.enter("echo twice")
        term.wait_screen("Allow bash?")
        term.wait_screen("Allow for this session: bash echo *")
        term.type("\x1b[B")  # down
        term.wait_screen("❯ Allow for this session: bash echo *")
        term.enter()
        term.wait_for("● $ echo first-call")
        # Asked again, the run would wait for an answer here and never say "Both ran."
        term.wait_for("● $ echo second-call")
        term.wait_for("Both ran.")
        assert term.quit() == 0
        assert server.problems() == []
        results = [m for m in messages(term.session_entries()) if m["role"] == "toolResult"]
    assert [r["isError"] for r in results] == [False, False]


def test_compact_summarizes_the_conversation_and_records_it(tmp_path: Path) -> None:
    script = {
        "turns": [
            {"text": "Hello there. " + "The first answer goes on. " * 30},
            {"text": "All good. " + "The second answer goes on. " * 30},
            # The history, and the start of the turn the cut falls in.
            {"text": "COMPACTED-SUMMARY: a greeting was exchanged."},
            {"text": "TURN-PREFIX: the user asked how things are."},
        ]
    }
    settings = {"compaction": {"keepRecentTokens": 50}}
    with (
        FakeServer(script) as server,
        Terminal(tmp_path, server, settings=settings) as term,
    ):
        term.ready()
        term.enter("hello")
        term.wait_for("Hello there.")
        term.enter("how are you")
        term.wait_for("All good.")
        term.enter("/compact")
        term.wait_for("Compacted:")
        assert term.quit() == 0
        assert server.problems() == []
        summary_request = body_text(requests(server)[2])
        entries = term.session_entries()
    assert "Hello there." in summary_request
    (compaction,) = [e for e in entries if e["type"] == "compaction"]
    assert "COMPACTED-SUMMARY" in str(compaction["summary"])


def test_a_bang_command_runs_and_is_recorded_in_the_session(tmp_path: Path) -> None:
    script = {"turns": [{"text": "I see it.", "expect": ["echo hi-from-bash", "hi-from-bash"]}]}
    with FakeServer(script) as server, Terminal(tmp_path, server) as term:
        term.ready()
        term.enter("!echo hi-from-bash")
        term.wait_for("● $ echo hi-from-bash")
        term.wait_for("hi-from-bash")
        assert requests(server) == []
        term.enter("what did it print?")
        term.wait_for("I see it.")
        assert term.quit() == 0
        assert server.problems() == []
        recorded = messages(term.session_entries())
    assert [m["role"] for m in recorded] == ["bashExecution", "user", "assistant"]
    assert recorded[0]["command"] == "echo hi-from-bash"
    assert recorded[0]["output"] == "hi-from-bash\n"


def test_ctrl_d_on_an_empty_editor_quits_with_status_zero(tmp_path: Path) -> None:
    with FakeServer({"turns": []}) as server, Terminal(tmp_path, server) as term:
        term.ready()
        term.type("abc")
        term.child.sendcontrol("d")  # not empty: deletes, does not quit
        term.drain(0.5)
        assert term.child.isalive()
        term.wait_screen("› abc")
        term.type("\x7f" * 3)  # backspace: the editor is empty again
        term.drain()
        assert term.quit() == 0


def test_a_resized_terminal_keeps_working(tmp_path: Path) -> None:
    script = {"turns": [{"text": "Before the resize."}, {"text": "After the resize."}]}
    with FakeServer(script) as server, Terminal(tmp_path, server, size=(24, 80)) as term:
        term.ready()
        term.wait_for("fake/m")
        term.enter("one")
        term.wait_for("Before the resize.")
        term.resize(30, 100)
        term.enter("two")
        term.wait_for("After the resize.")
        term.resize(20, 60)
        term.enter("!echo still-here")
        term.wait_for("● $ echo still-here")
        assert term.quit() == 0
        assert server.problems() == []


def test_term_dumb_gives_plain_lines_without_escape_sequences(tmp_path: Path) -> None:
    script = {
        "turns": [
            {
                "text": "Plain **reply**.",
                "tool_calls": [{"name": "bash", "arguments": {"command": "echo plain-out"}}],
            },
            {"tool_calls": [{"name": "bash", "arguments": {"command": "seq 1 40"}}]},
            {"text": "Done plainly."},
        ]
    }
    with FakeServer(script) as server, Terminal(tmp_path, server, term="dumb") as term:
        term.wait_for("pith (plain terminal)")
        term.wait_for("> ")
        term.enter("go")
        term.wait_for("Done plainly.")
        term.wait_for("> ")
        term.child.sendeof()
        term.child.expect(__import__("pexpect").EOF)
        term.raw += term.child.before or ""
        term.child.close()
        assert term.child.exitstatus == 0
        assert server.problems() == []
    assert "\x1b" not in term.raw
    assert "● $ echo plain-out" in term.raw
    assert "Plain reply." in term.raw
    # No keys in a plain terminal: the hint for folded output names what works there.
    assert "more lines (/export shows the whole output)" in term.raw
    assert "ctrl+o" not in term.raw.lower()
