"""The one exception type users see.

A `PithError` carries a message that says what happened, where (file, line, field) and what to
do. The CLI prints the message without a traceback and exits with `exit_code`: 2 for bad input or
configuration, 1 for a failure at run time.
"""

from __future__ import annotations

__all__ = ["ConfigError", "InputError", "PithError"]


class PithError(Exception):
    """A failure a user can act on; `str(error)` is the one-line message."""

    exit_code: int = 1


class InputError(PithError):
    """Bad input on the command line or in a file the user gave us."""

    exit_code = 2


class ConfigError(PithError):
    """A configuration file that cannot be used as it is."""

    exit_code = 2
