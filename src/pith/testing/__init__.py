"""Test helpers that exercise pith over real HTTP: the scripted fake model server.

`FakeServer` runs it in-process; `FakeServer.subprocess(...)` (a `FakeServerProcess`) or
`python -m pith.testing.fake_server --script FILE` runs it as a process. The script format is
documented in `pith.testing.fake_server`. `configure_agent_dir` points a provider at it;
`subprocess_env` is the environment of a `pith` subprocess using that agent dir.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pith.testing._agent_dir import configure_agent_dir, subprocess_env

if TYPE_CHECKING:
    from pith.testing.fake_server import FakeServer, FakeServerProcess, ScriptError

__all__ = [
    "FakeServer",
    "FakeServerProcess",
    "ScriptError",
    "configure_agent_dir",
    "subprocess_env",
]
_LAZY = ("FakeServer", "FakeServerProcess", "ScriptError")


def __getattr__(name: str) -> object:
    # Imported lazily so that `python -m pith.testing.fake_server` does not find the module
    # already imported by its package (runpy warns, and the module would exist twice).
    if name in _LAZY:
        from pith.testing import fake_server

        return getattr(fake_server, name)
    raise AttributeError(f"module 'pith.testing' has no attribute {name!r}")
