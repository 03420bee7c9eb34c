"""One grep search as ripgrep sees it: the arguments it runs with, and the events it reports.

Both the `rg` run of `grep` and the pure-Python stand-in speak this, so it sits below both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["GrepEvent", "rg_arguments"]


@dataclass(frozen=True)
class GrepEvent:
    """One line ripgrep reports: a match, or a context line around one."""

    is_match: bool
    path: str
    line_number: int
    text: str


def rg_arguments(
    pattern: str,
    target: str,
    *,
    ignore_case: bool,
    literal: bool,
    glob: str | None,
    context: int,
) -> list[str]:
    """ripgrep's arguments for a search (the binary itself not included)."""
    args = ["--no-config", "--json", "--line-number", "--color=never", "--hidden"]
    # Deterministic order (the same call gives the same bytes) and no .git internals.
    args += ["--sort", "path", "--glob", "!.git"]
    if ignore_case:
        args.append("--ignore-case")
    if literal:
        args.append("--fixed-strings")
    if glob:
        # rg never matches a leading "./"; "!" negates.
        args += ["--glob", re.sub(r"^(!?)(?:\./)+", r"\1", glob)]
    if context > 0:
        args += ["--context", str(context)]
    args += ["--", pattern, target]
    return args
