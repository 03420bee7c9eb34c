"""`/copy`: text to the system clipboard — through the terminal itself (OSC 52, which works
over SSH and in tmux with `set-clipboard on`), and through a clipboard program when there is
one (`pbcopy`, `wl-copy`, `xclip`, `xsel`)."""

from __future__ import annotations

import base64
import shutil
import subprocess
from collections.abc import Callable

__all__ = ["copy_text", "osc52"]

_PROGRAMS = (
    ("pbcopy",),
    ("wl-copy",),
    ("xclip", "-selection", "clipboard"),
    ("xsel", "--clipboard", "--input"),
)


def osc52(text: str) -> str:
    """The escape sequence that asks the terminal to put `text` on the clipboard."""
    payload = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return f"\x1b]52;c;{payload}\x07"


def copy_text(text: str, write_raw: Callable[[str], None]) -> str | None:
    """Copy `text`; the clipboard program used, if any (the terminal is always asked)."""
    write_raw(osc52(text))
    for program in _PROGRAMS:
        if shutil.which(program[0]) is None:
            continue
        try:
            subprocess.run(
                program, input=text.encode("utf-8"), check=True, timeout=5, capture_output=True
            )
        except (OSError, subprocess.SubprocessError):
            continue
        return program[0]
    return None
