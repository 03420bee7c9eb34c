"""A resized terminal: what is printed after the resize fits the new width."""

from __future__ import annotations

from pathlib import Path

from pith.testing import FakeServer
from tests.app.interactive.terminal import Terminal

PARAGRAPH = " ".join(f"word{n}" for n in range(60))


def test_a_reply_after_a_resize_is_wrapped_to_the_new_width(tmp_path: Path) -> None:
    script = {"turns": [{"text": PARAGRAPH}]}
    with FakeServer(script) as server, Terminal(tmp_path, server, size=(24, 80)) as term:
        term.ready()
        term.resize(24, 50)  # returns once pith has redrawn at 50 columns
        term.enter("a long paragraph please")
        seen = term.wait_for("word59")
        assert term.quit() == 0
    reply = seen[seen.index("word0") :]
    widths = [len(line.rstrip()) for line in reply.split("\n")]
    assert max(widths) <= 50, widths
