"""Values in `mcp.json` that are filled in when the file is read: `env`, `headers` and
`oauth.clientSecret` (the places secrets go, so they need not be written in the file).

- `${NAME}` and `$NAME` are replaced by the environment variable `NAME`; an unset or empty
  variable is an error naming it. `$$` stands for `$` and `$!` for `!`; any other `$` is kept.
- A value that starts with `!` is a command: the rest runs through `bash -c` in the session's
  folder, and its output (trimmed) is the value. It fails when it exits with a non-zero status,
  prints nothing, or runs longer than `COMMAND_TIMEOUT` seconds.

Both rules are the ones Pi applies to the same fields, so one file serves both agents.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
from collections.abc import Mapping, MutableMapping
from pathlib import Path

__all__ = ["COMMAND_TIMEOUT", "ValueExpansionError", "expand_value"]

COMMAND_TIMEOUT = 10.0
"""Seconds a `!command` value may run."""

_REFERENCE = re.compile(r"\$(?:(\$)|(!)|\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


class ValueExpansionError(Exception):
    """A value that could not be filled in; the message says why and what to do."""

    def __init__(self, message: str, missing: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.missing = missing
        """The environment variables that were unset or empty."""


def expand_value(
    text: str,
    environ: Mapping[str, str],
    cwd: Path,
    cache: MutableMapping[str, str],
    *,
    timeout: float = COMMAND_TIMEOUT,
) -> str:
    """`text` with its references filled in from `environ`, or a `!command`'s output. `cache`
    holds the outputs of commands already run during this read, so each runs once."""
    if text.startswith("!"):
        if text not in cache:
            cache[text] = _run(text[1:], environ, cwd, timeout)
        return cache[text]
    missing: list[str] = []

    def replace(match: re.Match[str]) -> str:
        dollar, bang, braced, bare = match.groups()
        if dollar or bang:
            return str(dollar or bang)
        name = str(braced or bare)
        value = environ.get(name, "")
        if not value and name not in missing:
            missing.append(name)
        return value

    result = _REFERENCE.sub(replace, text)
    if missing:
        names = ", ".join(missing)
        noun = "variable" if len(missing) == 1 else "variables"
        raise ValueExpansionError(
            f"environment {noun} {names} not set (or empty); set it before starting pith",
            tuple(missing),
        )
    return result


def _run(command: str, environ: Mapping[str, str], cwd: Path, timeout: float) -> str:
    shown = command if len(command) <= 60 else command[:57] + "..."
    try:
        process = subprocess.Popen(
            ["bash", "-c", command],
            cwd=cwd,
            env=dict(environ),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as error:
        raise ValueExpansionError(
            f"command {shown!r} could not start ({error.strerror or error})"
        ) from None
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        # The whole group: a pipeline's other commands would keep the output pipe open.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise ValueExpansionError(
            f"command {shown!r} did not finish within {timeout:g} seconds; make it faster "
            "or put the value in an environment variable"
        ) from None
    if process.returncode != 0:
        raise ValueExpansionError(
            f"command {shown!r} exited with status {process.returncode}; run it in a shell "
            "to see why"
        )
    value = output.decode("utf-8", "replace").strip()
    if not value:
        raise ValueExpansionError(f"command {shown!r} printed nothing; it must print the value")
    return value
