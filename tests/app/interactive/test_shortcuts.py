"""Extension shortcuts (`api.register_shortcut`) in the terminal UI: `pith` in a pty, keys
typed as a terminal sends them."""

from __future__ import annotations

from pathlib import Path

from pith.testing import FakeServer
from tests.app.interactive.terminal import Terminal

EXTENSION = """
from pathlib import Path


def register(api):
    def mark(ctx):
        Path(ctx.cwd, "alt-k.txt").write_text(f"ran in {ctx.mode}")
        ctx.ui.notify("alt+k ran")

    async def late(ctx):
        ctx.ui.notify("ctrl+alt+t ran")

    api.register_shortcut("alt+k", mark, description="write a mark")
    api.register_shortcut("ctrl+alt+t", late)
    api.register_shortcut("ctrl+t", lambda ctx: ctx.ui.notify("stolen"), description="mine")
    api.register_shortcut("hyper+q", lambda ctx: ctx.ui.notify("never"))
"""

ALT_K = "\x1bk"
CTRL_ALT_T = "\x1b\x14"
CTRL_T = "\x14"


def test_extension_shortcuts_run_and_conflicts_and_bad_keys_are_reported(tmp_path: Path) -> None:
    extension = tmp_path / "keys_ext.py"
    extension.write_text(EXTENSION)
    with (
        FakeServer({"turns": []}) as server,
        Terminal(tmp_path, server, "-e", str(extension), size=(30, 160)) as term,
    ):
        term.ready()
        term.wait_for(
            "keys_ext: shortcut ctrl+t is pith's key for showing or hiding thinking; "
            "pith's key wins and the shortcut is not bound"
        )
        term.wait_for(
            "keys_ext: shortcut 'hyper+q' is not a key: unknown modifier 'hyper' "
            "(use ctrl, alt or shift); it is not bound"
        )
        term.type(ALT_K)
        term.wait_for("[keys_ext] alt+k ran")
        assert (term.work / "alt-k.txt").read_text() == "ran in interactive"
        term.type("z")
        term.wait_screen("› z")  # Alt+K typed no "k" into the editor
        term.type("\x7f")  # backspace: the editor is empty again
        term.type(CTRL_ALT_T)
        term.wait_for("[keys_ext] ctrl+alt+t ran")
        term.type(CTRL_T)  # still pith's: thinking was shown, now hidden
        term.wait_for("Thinking is hidden.")
        assert term.quit() == 0
    assert "stolen" not in term.text
    assert "Thinking is shown." not in term.text
