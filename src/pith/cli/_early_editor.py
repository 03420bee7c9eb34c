"""The editor's first line, up before the session is: what the user types while pith starts.

The interactive mode can take its editor only once the session is assembled (settings,
extensions, the model, the store), which is most of the start. Until then this draws the
editor's rule and prompt at once and echoes what is typed into it, from a thread that reads
the terminal while the main thread builds the session. The typing is kept, never acted on:
printable characters are shown as the editor would; from the first other key (Enter, Ctrl+D,
an arrow, a paste too wide for the line) on, every byte is only held, in order. `stop` takes
the drawing away again and hands over the text and the held bytes; the terminal UI puts the
text in its editor and replays the bytes as keys, so nothing typed is lost or reordered and
the first prompt is sent only by the real editor, once the session is there.

Only for a run that goes straight to the terminal UI: both ends a terminal that can move its
cursor, and nothing printed to standard output before it (no --help, no --list-models).
Whatever start-up writes to standard error meanwhile (warnings, errors) is kept and written
after the drawing is gone, so it reads as it would without this. Anything that asks the user
first (the trust question, `pith -r`) stops it before asking.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import os
import select
import sys
import termios
import threading
import tty
import unicodedata
from dataclasses import dataclass
from typing import TextIO

__all__ = ["EarlyEditor", "EarlyTyping", "start_early_editor"]

_PROMPT = "› "
_PRINTS_HELP = ("--help", "--list-models", "--options")


@dataclass(frozen=True)
class EarlyTyping:
    """What was typed before the terminal UI took over: `text` shown in the editor, then the
    `held` bytes (keys other than text, and all after the first), still to be acted on."""

    text: str = ""
    held: bytes = b""


def start_early_editor(argv: list[str]) -> EarlyEditor | None:
    """The early editor, drawn and reading, when this run of `argv` is a terminal UI one that
    prints nothing first; else None."""
    if not _suits(argv):
        return None
    try:
        editor = EarlyEditor(sys.stdin.fileno(), sys.stdout.fileno())
    except (OSError, termios.error, ValueError):
        return None
    editor.start()
    return editor


def _suits(argv: list[str]) -> bool:
    if os.environ.get("TERM", "dumb") in ("dumb", ""):
        return False
    try:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            return False
    except (AttributeError, ValueError):
        return False
    for arg in argv:
        if arg == "--":
            break
        if arg in ("-p", "--print", "-r", "--resume", "--mode") or arg.startswith("--mode="):
            return False
        long = arg.split("=", 1)[0]
        if len(long) > 2 and any(name.startswith(long) for name in _PRINTS_HELP):
            return False  # argparse takes a prefix for the whole option
        if arg.startswith("-") and not arg.startswith("--") and "h" in arg:
            return False  # -h, or -h among short flags
    return True


class EarlyEditor:
    def __init__(self, input_fd: int, output_fd: int) -> None:
        self._in = input_fd
        self._out = output_fd
        self._saved = termios.tcgetattr(input_fd)
        self._columns = os.get_terminal_size(output_fd).columns
        self._text = ""
        self._cells = len(_PROMPT)
        self._held = bytearray()
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._pending = b""  # bytes of a character not complete yet
        self._wake_read, self._wake_write = os.pipe()
        self._thread = threading.Thread(target=self._read, name="pith-early-editor", daemon=True)
        self._typed: EarlyTyping | None = None
        self._stderr = sys.stderr
        self._errors = _HeldStream(sys.stderr)
        color = "NO_COLOR" not in os.environ
        self._rule_style, self._prompt_style, self._reset = (
            ("\x1b[90m", "\x1b[35;1m", "\x1b[0m") if color else ("", "", "")
        )

    def start(self) -> None:
        # No echo, a key at a time, bytes as typed (Enter stays \r, Ctrl+S/Ctrl+Q are keys);
        # Ctrl+C still interrupts, as it does while pith starts without this.
        mode = termios.tcgetattr(self._in)
        mode[tty.IFLAG] &= ~(termios.ICRNL | termios.INLCR | termios.IGNCR | termios.IXON)
        mode[tty.LFLAG] &= ~(termios.ECHO | termios.ICANON)
        mode[tty.CC][termios.VMIN] = 1
        mode[tty.CC][termios.VTIME] = 0
        termios.tcsetattr(self._in, termios.TCSANOW, mode)
        rule = "─" * max(1, self._columns - 1)
        self._write(f"\r{self._rule_style}{rule}{self._reset}\r\n{self._prompt_style}{_PROMPT}")
        self._write(self._reset)
        sys.stderr = self._errors
        self._thread.start()

    def stop(self) -> EarlyTyping:
        """Stop reading, take the drawing away, give the terminal back as it was and write
        what start-up sent to standard error meanwhile; what was typed. Safe to call again."""
        if self._typed is not None:
            return self._typed
        os.write(self._wake_write, b"x")
        self._thread.join()
        os.close(self._wake_read)
        os.close(self._wake_write)
        with contextlib.suppress(OSError):
            self._write("\r\x1b[1A\x1b[J")  # to the rule's row, and clear from there down
        with contextlib.suppress(termios.error):
            termios.tcsetattr(self._in, termios.TCSANOW, self._saved)
        sys.stderr = self._stderr
        self._errors.release()
        self._typed = EarlyTyping(self._text, bytes(self._held) + self._pending)
        return self._typed

    def typed(self) -> tuple[str, bytes]:
        """`stop`, for the terminal UI: the text, then the held keys."""
        typing = self.stop()
        return typing.text, typing.held

    # --- the reading thread -------------------------------------------------------------------

    def _read(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self._in, self._wake_read], [], [])
                if self._wake_read in ready:
                    return
                data = os.read(self._in, 4096)
            except OSError:
                return
            if not data:
                return
            self._take(data)

    def _take(self, data: bytes) -> None:
        if self._held:
            self._held += data
            return
        shown = ""
        for index in range(len(data)):
            byte = data[index : index + 1]
            char = self._decoder.decode(byte)
            self._pending += byte
            if not char:
                continue  # more bytes of this character to come
            width = 2 if unicodedata.east_asian_width(char) in "WF" else 1
            if not char.isprintable() or self._cells + width >= self._columns:
                self._held += self._pending + data[index + 1 :]
                self._pending = b""
                break
            self._pending = b""
            self._cells += width
            self._text += char
            shown += char
        if shown:
            with contextlib.suppress(OSError):
                self._write(shown)

    def _write(self, text: str) -> None:
        os.write(self._out, text.encode("utf-8"))


class _HeldStream(io.StringIO):
    """Standard error while the early editor is drawn: written out once it is gone."""

    def __init__(self, real: TextIO) -> None:
        super().__init__()
        self._real = real

    def isatty(self) -> bool:
        return self._real.isatty()

    def fileno(self) -> int:
        return self._real.fileno()

    def release(self) -> None:
        held = self.getvalue()
        self.seek(0)
        self.truncate()
        if held:
            self._real.write(held)
            with contextlib.suppress(Exception):
                self._real.flush()
