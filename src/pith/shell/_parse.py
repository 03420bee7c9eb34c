"""Parsing bash with mvdan/sh's parser (`shfmt --to-json -ln bash`) into a `ShellTree`.

Parsing is a subprocess (~2 ms), so a command made only of plain words and the operators
`|`, `&&`, `||`, `;` is tokenized in Python instead (`_fast_parse`), producing the same tree
minus the position-only keys `Line`, `Col`, `ValuePos`, `ValueEnd`, `Position`, `OpPos` and
`Semicolon`, which nothing reads. Everything else goes to shfmt. Results are cached by command
text: the permission system and the guard parse the same command in one tool call.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import sysconfig
import threading
from dataclasses import dataclass

import msgspec

from pith.shell._fast_parse import fast_parse
from pith.shell._tree import Node, children

__all__ = [
    "SHFMT_ENV",
    "ShellSyntaxError",
    "ShellTree",
    "clear_cache",
    "find_shfmt",
    "parse_bash",
    "takes_fast_path",
]

SHFMT_ENV = "PITH_SHFMT"
"""Environment variable naming the shfmt binary to use instead of the one in the venv."""

_TIMEOUT = 10.0


class ShellSyntaxError(ValueError):
    """The command cannot be parsed (or the parser cannot run); `str()` is one line, such as
    shfmt's `1:6: reached EOF without closing quote '`."""


@dataclass(frozen=True)
class ShellTree:
    """A parsed command."""

    source: str
    """The command as given."""
    data: bytes
    """`source` encoded as UTF-8: node offsets index into these bytes."""
    root: Node
    """shfmt's `File` node: `Stmts` (the statements) and `Last` (trailing comments)."""

    @property
    def stmts(self) -> list[Node]:
        """The top-level statements."""
        return children(self.root, "Stmts")


def find_shfmt() -> str | None:
    """Path of the shfmt executable: `$PITH_SHFMT`, the venv's scripts dir, then PATH."""
    configured = os.environ.get(SHFMT_ENV)
    if configured:
        return configured
    return _installed_shfmt()


@functools.cache
def _installed_shfmt() -> str | None:
    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        candidate = os.path.join(folder, "shfmt")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("shfmt")


def clear_cache() -> None:
    """Forget every parse (benchmarks measure the parse itself this way)."""
    _parse_cached.cache_clear()


def takes_fast_path(command: str) -> bool:
    """Whether `command` is plain enough to be parsed without shfmt."""
    return fast_parse(command) is not None


def parse_bash(command: str) -> ShellTree:
    """The syntax tree of `command`; raises `ShellSyntaxError` when it does not parse."""
    result = _parse_cached(command)
    if isinstance(result, str):
        raise ShellSyntaxError(result)
    return result


@functools.lru_cache(maxsize=256)
def _parse_cached(command: str) -> ShellTree | str:
    data = command.encode("utf-8", "surrogateescape")
    root = fast_parse(command)
    if root is None:
        outcome = _run_shfmt(data)
        if isinstance(outcome, str):
            return outcome
        root = outcome
    return ShellTree(command, data, root)


def _run_shfmt(data: bytes) -> Node | str:
    binary = find_shfmt()
    if binary is None:
        return "the bash parser (shfmt, from the shfmt-py package) is not installed"
    try:
        process = subprocess.Popen(
            [binary, "--to-json", "-ln", "bash"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except OSError as error:
        return f"the bash parser could not run: {error}"
    # A watchdog instead of `communicate(timeout=)`, whose wait polls in growing sleeps and
    # adds ~0.5 ms to every parse; here the wait blocks until shfmt exits.
    watchdog = threading.Timer(_TIMEOUT, process.kill)
    watchdog.start()
    try:
        stdout, stderr = process.communicate(data)
    finally:
        watchdog.cancel()
    if process.returncode < 0:
        return f"the bash parser took longer than {_TIMEOUT:g} s"
    if process.returncode != 0:
        lines = stderr.decode("utf-8", "replace").strip().splitlines()
        return lines[0] if lines else f"the bash parser failed (exit {process.returncode})"
    try:
        root = msgspec.json.decode(stdout)
    except msgspec.DecodeError as error:
        return f"the bash parser printed something that is not JSON: {error}"
    except RecursionError:
        return "the command is nested too deeply to be analyzed"
    if not isinstance(root, dict):
        return "the bash parser printed an unexpected tree"
    return root
