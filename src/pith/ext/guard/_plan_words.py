"""Names the guard's planner reads commands by: which program a literal command word runs, and
word tables.

Reading words themselves (quote removal, what counts as literal) is `pith.shell`'s.
"""

from __future__ import annotations

import posixpath

__all__ = ["STANDARD_BIN_DIRS", "program_name", "word_set"]

STANDARD_BIN_DIRS = frozenset(
    {"/bin", "/usr/bin", "/usr/local/bin", "/opt/homebrew/bin", "/usr/gnu/bin", "/sbin"}
)
"""Directories whose `head` is the `head` (`/usr/bin/head` is `head`; `./head` is not)."""


def word_set(text: str) -> frozenset[str]:
    """The blank-separated words of `text` (for option and name tables)."""
    return frozenset(text.split())


def program_name(word: str, *, strict: bool) -> str:
    """The program a literal command word runs: its basename. With `strict`, a path counts
    only when it is in a standard bin directory (`/usr/bin/head`), so `./head` stays
    `./head`."""
    if "/" not in word:
        return word
    directory, base = posixpath.split(word)
    if not strict or posixpath.normpath(directory) in STANDARD_BIN_DIRS:
        return base
    return word
