"""Protection (docs/pruning.md): which calls the pruner never touches. Pure."""

from __future__ import annotations

import os.path
from collections.abc import Mapping

from pith.ext.prune._config import ALWAYS_PROTECTED, PruneConfig
from pith.glob import segment_glob_match

__all__ = ["is_protected"]


def is_protected(tool_name: str, args: object, config: PruneConfig, cwd: str = "") -> bool:
    """True when `tool_name` is in `protectedTools`, or `args["path"]` is a string matching a
    `protectedPaths` glob, `**/AGENTS.md`, `**/CLAUDE.md`, or names a loaded context file
    (resolved against `cwd`). A missing or non-string path is not protected by path."""
    if tool_name in config.protected_tools:
        return True
    if not isinstance(args, Mapping):
        return False
    path = args.get("path")
    if not isinstance(path, str) or not path:
        return False
    for pattern in (*config.protected_paths, *ALWAYS_PROTECTED):
        if segment_glob_match(pattern, path):
            return True
    if config.context_files:
        resolved = os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))
        return resolved in config.context_files
    return False
