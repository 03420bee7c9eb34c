"""pith's interactive mode in a real pseudo-terminal, for the tests (and bench/tui_latency.py).

`Terminal` spawns `python -m pith` in a pty against the fake model server and reads what it
prints two ways:

- `wait_for`: the output stream with escape sequences removed, searched from a moving mark so
  that each wait looks only at output that came after the previous one. Right for what pith
  prints into the scroll-back (messages, tool blocks, notices), which is written in one piece.
- `wait_screen`: the screen as a terminal emulator (pyte) shows it. Needed for the area
  prompt_toolkit redraws in place (the live area, queued messages, questions, the editor): it
  sends only the cells that changed, so that text is not in the stream in one piece.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Self

import pexpect
import pyte

from pith.testing import FakeServer, configure_agent_dir, subprocess_env

WAIT = 60.0
"""Seconds to wait for text: generous, the suite runs on two busy cores."""

_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, modes
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: titles
    r"|\x1b[()][0-9A-Za-z]"  # character sets
    r"|\x1b[=>78]"  # keypad modes, save/restore cursor
)
_CURSOR_FORWARD = re.compile(r"\x1b\[(\d*)C")


def strip_escapes(raw: str) -> str:
    """The text of terminal output: cursor-forward moves become spaces, every other escape
    sequence and carriage return is dropped."""
    spaced = _CURSOR_FORWARD.sub(lambda m: " " * int(m.group(1) or 1), raw)
    return _ESCAPES.sub("", spaced).replace("\r", "")


class Terminal:
    """A `pith` process in a pty; `wait_for` blocks until text appears."""

    def __init__(
        self,
        root: Path,
        server: FakeServer,
        *args: str,
        term: str = "xterm-256color",
        size: tuple[int, int] = (24, 80),
        settings: dict[str, object] | None = None,
        env: dict[str, str] | None = None,
        models: list[dict[str, object]] | None = None,
    ) -> None:
        self.work = root / "work"
        self.work.mkdir(parents=True, exist_ok=True)
        self.agent = configure_agent_dir(root / "agent", server)
        if models is not None:  # the fake provider serves these models instead of one `m`
            config = json.loads((self.agent / "models.json").read_text())
            config["providers"]["fake"]["models"] = models
            (self.agent / "models.json").write_text(json.dumps(config))
        if settings is not None:
            (self.agent / "settings.json").write_text(json.dumps(settings))
        # pexpect is no terminal emulator: it cannot answer prompt_toolkit's cursor position
        # requests, which would then wait for an answer and print a warning.
        extra = env
        env = subprocess_env(
            self.agent, TERM=term, LANG="C.UTF-8", LC_ALL="C.UTF-8", PROMPT_TOOLKIT_NO_CPR="1"
        )
        env.update(extra or {})
        env.pop("NO_COLOR", None)
        env.pop("COLUMNS", None)
        env.pop("LINES", None)
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "pith", "--model", "fake/m", *args],
            cwd=str(self.work),
            env=env,
            dimensions=size,
            encoding="utf-8",
            codec_errors="replace",
            timeout=WAIT,
        )
        self.raw = ""
        self._mark = 0
        self.screen = pyte.Screen(size[1], size[0])
        self._stream = pyte.Stream(self.screen)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)

    # --- reading ------------------------------------------------------------------------------

    @property
    def text(self) -> str:
        return strip_escapes(self.raw)

    def _read(self, timeout: float) -> bool:
        """Read what is there (waiting up to `timeout`); False at the end of output."""
        try:
            data = self.child.read_nonblocking(65536, timeout=timeout)
        except pexpect.TIMEOUT:
            return True
        except pexpect.EOF:
            return False
        self.raw += data
        self._stream.feed(data)
        return True

    @property
    def lines(self) -> list[str]:
        """The screen's rows, trailing spaces removed."""
        return [row.rstrip() for row in self.screen.display]

    def wait_screen(self, text: str, timeout: float = WAIT) -> list[str]:
        """Wait until a row of the screen contains `text`; the screen's rows then."""
        deadline = time.monotonic() + timeout
        while True:
            if any(text in row for row in self.lines):
                return self.lines
            if time.monotonic() > deadline or not self._read(0.1):
                screen = "\n".join(self.lines)
                raise AssertionError(f"{text!r} is not on the screen:\n{screen}")

    def wait_lines(
        self, holds: Callable[[list[str]], bool], what: str, timeout: float = WAIT
    ) -> list[str]:
        """Wait until `holds(rows of the screen)` is true; the rows then. `what` names the
        condition in the failure."""
        deadline = time.monotonic() + timeout
        while True:
            if holds(self.lines):
                return self.lines
            if time.monotonic() > deadline or not self._read(0.1):
                screen = "\n".join(self.lines)
                raise AssertionError(f"the screen never showed {what}:\n{screen}")

    def editor_line(self) -> str | None:
        """The first row of the editor (under the last rule the screen shows), or None."""
        rows = self.lines
        rules = [index for index, row in enumerate(rows) if row.startswith("────")]
        if not rules or rules[-1] + 1 >= len(rows):
            return None
        return rows[rules[-1] + 1]

    def wait_editor(self, text: str, timeout: float = WAIT) -> None:
        """Wait until the editor's first row reads `› text`."""
        self.wait_lines(lambda _: self.editor_line() == f"› {text}", f"the editor holding {text!r}")

    def resize(self, rows: int, columns: int, timeout: float = WAIT) -> None:
        """Resize the terminal (pith gets SIGWINCH) and the emulated screen with it, then wait
        until pith has drawn its editor again for the new width: the output that came after
        the resize holds the rule above the editor for `columns` cells (prompt_toolkit writes a
        row's last cell apart, so the run of rule characters is one short) and the screen shows
        the editor."""
        mark = len(self.raw)
        self.screen.resize(rows, columns)
        self.child.setwinsize(rows, columns)
        rule = re.compile(f"(?<!─)─{{{columns - 1},{columns}}}(?!─)")
        deadline = time.monotonic() + timeout
        while rule.search(strip_escapes(self.raw[mark:])) is None or self.editor_line() is None:
            if time.monotonic() > deadline or not self._read(0.1):
                tail = strip_escapes(self.raw[mark:])[-2000:]
                raise AssertionError(f"pith did not redraw for {columns} columns:\n{tail}")

    def wait_for(self, pattern: str, timeout: float = WAIT, *, regex: bool = False) -> str:
        """Wait until `pattern` appears after the mark; moves the mark past it and returns the
        text from the mark to the end of the match."""
        deadline = time.monotonic() + timeout
        search = re.compile(pattern if regex else re.escape(pattern))
        alive = True
        while True:
            text = self.text
            found = search.search(text, self._mark)
            if found is not None:
                seen = text[self._mark : found.end()]
                self._mark = found.end()
                return seen
            if not alive or time.monotonic() > deadline:
                tail = text[self._mark :][-3000:]
                raise AssertionError(f"{pattern!r} did not appear; after the mark:\n{tail}")
            alive = self._read(0.1)

    def drain(self, seconds: float = 0.3) -> None:
        """Read what arrives in the next `seconds`."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and self._read(0.05):
            pass

    # --- typing -------------------------------------------------------------------------------

    def type(self, text: str) -> None:
        self.child.send(text)

    def enter(self, text: str = "") -> None:
        self.child.send(text + "\r")

    def ready(self) -> None:
        """Wait for the welcome line: the editor is up."""
        self.wait_for("Ctrl+D quits")

    def settle(self, quiet: float = 0.5, timeout: float = WAIT) -> None:
        """Wait until nothing has been printed for `quiet` seconds (pith is idle)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            size = len(self.raw)
            self.drain(quiet)
            if len(self.raw) == size:
                return

    def quit(self) -> int:
        """Ctrl+D on an empty editor, once pith is idle; the exit status."""
        self.settle()
        self.child.sendcontrol("d")
        deadline = time.monotonic() + WAIT
        while self._read(0.2):
            if time.monotonic() > deadline:
                tail = self.text[-2000:]
                raise AssertionError(f"pith did not quit on Ctrl+D; the screen ends with:\n{tail}")
        self.child.close()
        status = self.child.exitstatus
        assert status is not None, f"pith ended by signal {self.child.signalstatus}"
        return status

    # --- the session file ---------------------------------------------------------------------

    def session_entries(self) -> list[dict[str, object]]:
        (path,) = (self.agent / "sessions").rglob("*.jsonl")
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
