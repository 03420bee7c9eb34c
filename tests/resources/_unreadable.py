"""A file that exists but cannot be read, for root and non-root test runs alike."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def make_unreadable(path: Path) -> None:
    """`path` becomes a regular file whose read fails: mode 000 for an ordinary user; as root
    (who ignores permissions) a link to /proc/self/mem, whose first page is unmapped (EIO)."""
    if os.geteuid() != 0:
        path.write_text("secret\n", encoding="utf-8")
        path.chmod(0)
        return
    if not os.path.isfile("/proc/self/mem"):
        pytest.fail("running as root without /proc/self/mem: no way to make an unreadable file")
    path.symlink_to("/proc/self/mem")
