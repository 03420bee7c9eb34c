"""An extension that sends `/fork <id>` with `api.send_user_message` while pith is idle: the
forked message lands in the editor, to change and send again, exactly as when the user types
`/fork <id>`. `pith` in a pty; the screen read through pyte."""

from __future__ import annotations

from pathlib import Path

import pexpect

from pith.testing import FakeServer
from tests.app.interactive.terminal import Terminal

EXTENSION = """
def first_question(ctx):
    for entry in ctx.session.entries:
        message = getattr(entry, "message", None)
        if getattr(message, "role", None) == "user":
            return entry.id
    raise RuntimeError("no message to fork from")


def register(api):
    async def refork(args, ctx):
        await api.send_user_message(f"/fork {first_question(ctx)}")

    async def key(ctx):
        await api.send_user_message(f"/fork {first_question(ctx)}")

    api.register_command("refork", refork, description="fork from the first question")
    api.register_shortcut("alt+k", key, description="fork from the first question")
"""

ALT_K = "\x1bk"


def test_a_fork_an_extension_sends_hands_the_message_to_the_editor(tmp_path: Path) -> None:
    extension = tmp_path / "refork_ext.py"
    extension.write_text(EXTENSION)
    script = {"turns": [{"text": "answer one"}, {"text": "answer two"}]}
    with (
        FakeServer(script) as server,
        Terminal(tmp_path, server, "-e", str(extension), size=(30, 120)) as term,
    ):
        term.ready()
        term.enter("the first question")
        term.wait_for("answer one")
        term.enter("/refork")  # an extension command: it runs as the user's work
        term.wait_for("Forked into")
        term.wait_editor("the first question")
        term.enter()  # the editor's text goes to the model again, in the forked session
        term.wait_for("answer two")
        term.type(ALT_K)  # a shortcut: it runs beside the editor, with no work of the user's
        term.wait_for("Forked into")
        term.wait_editor("the first question")
        term.type("\x15")  # Ctrl+U: the editor is empty again, so Ctrl+D quits
        assert term.quit() == 0
    assert len(server.requests) == 2


def test_in_a_plain_terminal_the_forked_message_is_shown_to_send_again(tmp_path: Path) -> None:
    extension = tmp_path / "refork_ext.py"
    extension.write_text(EXTENSION)
    script = {"turns": [{"text": "answer one"}]}
    with (
        FakeServer(script) as server,
        Terminal(tmp_path, server, "-e", str(extension), term="dumb") as term,
    ):
        term.wait_for("type a request")
        term.enter("the first question")
        term.wait_for("answer one")
        term.enter("/refork")
        term.wait_for("(to edit and send again) the first question")
        term.enter("/quit")
        term.child.expect(pexpect.EOF)
