"""Test helpers that exercise pith over real HTTP: the scripted fake model server.

`FakeServer` runs it in-process; `FakeServer.subprocess(...)` (a `FakeServerProcess`) or
`python -m pith.testing.fake_server --script FILE` runs it as a process. The script format is
documented in `pith.testing.fake_server`. `configure_agent_dir` points a provider at it;
`subprocess_env` is the environment of a `pith` subprocess using that agent dir.
`local_ray_cluster` starts a one-machine Ray cluster (with the `ray` extra) for `pith batch --ray`.
"""

from __future__ import annotations

# From the private modules, not from `fake_server`: `python -m pith.testing.fake_server` imports
# this package first, and runpy warns when the module it runs is already imported.
from pith.testing._agent_dir import configure_agent_dir, subprocess_env
from pith.testing._process import FakeServerProcess
from pith.testing._ray_cluster import RAY_LOOPBACK, RayStartError, local_ray_cluster
from pith.testing._script import ScriptError
from pith.testing._server import FakeServer

__all__ = [
    "RAY_LOOPBACK",
    "FakeServer",
    "FakeServerProcess",
    "RayStartError",
    "ScriptError",
    "configure_agent_dir",
    "local_ray_cluster",
    "subprocess_env",
]
