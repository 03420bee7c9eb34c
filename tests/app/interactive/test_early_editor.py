"""The editor is up before the session: what is typed while pith starts is shown at once,
kept in order, and acted on only by the real editor once the session is there.

An extension given with `-e` holds the start (its module waits for a gate file), so the test
knows the session is not built yet while it types; `pith` runs in a pty, the screen is read
through pyte.
"""

from __future__ import annotations

from pathlib import Path

import pexpect
import pytest

from pith.testing import FakeServer
from tests.app.interactive.terminal import Terminal

SLOW_EXTENSION = """
import os, sys, time

print("slow extension: loading", file=sys.stderr)
while not os.path.exists(os.environ["PITH_TEST_GATE"]):
    time.sleep(0.02)


def register(api):
    pass
"""


def slow_start(tmp_path: Path) -> tuple[list[str], dict[str, str], Path]:
    extension = tmp_path / "slow_ext.py"
    extension.write_text(SLOW_EXTENSION)
    gate = tmp_path / "gate"
    return ["-e", str(extension)], {"PITH_TEST_GATE": str(gate)}, gate


def test_typing_while_pith_starts_is_shown_then_sent_once_the_session_is_up(
    tmp_path: Path,
) -> None:
    args, env, gate = slow_start(tmp_path)
    script = {"turns": [{"text": "the answer", "expect": ["typed early"]}]}
    with FakeServer(script) as server, Terminal(tmp_path, server, *args, env=env) as term:
        term.type("typed early")
        term.wait_editor("typed early")  # shown while the extension still holds the start
        assert "Ctrl+D quits" not in term.text
        term.type("\r")  # Enter: held until the session is there, then it sends
        term.drain(0.3)
        assert server.requests == []
        gate.touch()
        term.wait_for("slow extension: loading")  # standard error, once the drawing is gone
        term.wait_for("Ctrl+D quits")
        term.wait_for("› typed early")
        term.wait_for("the answer")
        assert term.quit() == 0
    assert server.problems() == []
    assert len(server.requests) == 1


def test_ctrl_d_typed_while_pith_starts_quits_once_the_session_is_up(tmp_path: Path) -> None:
    args, env, gate = slow_start(tmp_path)
    with FakeServer({"turns": []}) as server, Terminal(tmp_path, server, *args, env=env) as term:
        term.wait_lines(lambda _: term.editor_line() == "›", "the early editor")
        term.child.sendcontrol("d")
        gate.touch()
        term.wait_for("Ctrl+D quits")
        term.child.expect(pexpect.EOF)
        term.child.close()
        assert term.child.exitstatus == 0


def test_a_bad_option_is_reported_as_without_the_early_editor(tmp_path: Path) -> None:
    with FakeServer({"turns": []}) as server, Terminal(tmp_path, server, "--no-such") as term:
        term.child.expect(pexpect.EOF)
        term.raw += term.child.before or ""
        term.child.close()
        assert term.child.exitstatus == 2
        assert "unrecognized arguments: --no-such" in term.text
        assert "›" not in term.text.split("usage:")[-1]


@pytest.mark.parametrize(
    ("flag", "printed"),
    [("--help", "usage:"), ("--list-models", "provider"), ("--list", "provider")],
)
def test_a_run_that_prints_first_never_draws_the_early_editor(
    tmp_path: Path, flag: str, printed: str
) -> None:
    with FakeServer({"turns": []}) as server, Terminal(tmp_path, server, flag) as term:
        term.child.expect(pexpect.EOF)
        term.raw += term.child.before or ""
        term.child.close()
        assert term.child.exitstatus == 0
        assert printed in term.text  # it printed what was asked
        assert "─" not in term.text
        assert "›" not in term.text
