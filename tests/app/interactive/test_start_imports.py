"""What the interactive mode loads before its first reply: the editor comes up without the
other modes (print, RPC), the HTML export, or rich's Markdown renderer (markdown-it, pygments,
rich's tables), which loads with the first reply it renders. A guard on behaviour (which
modules load, and when), not on time.

pith runs in a real pty; a `sitecustomize` on its path records each module as it is imported
(an audit hook, one line a module), so the record read once the editor shows a typed key is
what the start imported.
"""

from __future__ import annotations

import os
from pathlib import Path

from pith.testing import FakeServer
from tests.app.interactive.terminal import Terminal

RECORDER = """
import os, sys

_out = open(os.environ["PITH_TEST_IMPORT_LOG"], "a", buffering=1, encoding="utf-8")


def _record(event, args):
    if event == "import":
        _out.write(args[0] + "\\n")


sys.addaudithook(_record)
"""

NOT_BEFORE_THE_FIRST_REPLY = [
    "pith.app.modes._print",
    "pith.app.modes.rpc",
    "pith.app.export",
    "rich.markdown",
    "markdown_it",
    "pygments",
    "rich.table",
]


def imported(log: Path) -> set[str]:
    return set(log.read_text(encoding="utf-8").split())


def test_the_editor_comes_up_without_other_modes_or_markdown_rendering(tmp_path: Path) -> None:
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(RECORDER)
    log = tmp_path / "imports.txt"
    path = os.pathsep.join(p for p in (str(hooks), os.environ.get("PYTHONPATH", "")) if p)
    env = {"PYTHONPATH": path, "PITH_TEST_IMPORT_LOG": str(log)}
    script = {"turns": [{"text": "A **bold** reply.\n\n```python\nx = 1\n```"}]}
    with FakeServer(script) as server, Terminal(tmp_path, server, env=env) as term:
        term.ready()
        term.type("zq")
        term.wait_editor("zq")
        at_start = imported(log)
        assert "prompt_toolkit" in at_start  # the record works: the editor's own library
        assert [m for m in NOT_BEFORE_THE_FIRST_REPLY if m in at_start] == []
        term.child.sendcontrol("u")
        term.enter("say it in markdown")
        term.wait_for("A bold reply.")
        assert "rich.markdown" in imported(log)
        assert term.quit() == 0
