from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pith.testing import FakeServer, configure_agent_dir
from tests.app.rpc.client import RpcClient

Start = Callable[..., tuple[RpcClient, FakeServer]]


@pytest.fixture
def rpc(tmp_path: Path) -> Iterator[Start]:
    """`rpc(script, *args)`: the fake model server with `script`, and `pith --mode rpc` on it
    (in `tmp_path/work`, agent dir `tmp_path/agent`)."""
    (tmp_path / "work").mkdir()
    started: list[tuple[RpcClient, FakeServer]] = []

    def start(script: dict[str, object], *args: str) -> tuple[RpcClient, FakeServer]:
        server = FakeServer(script).__enter__()
        configure_agent_dir(tmp_path / "agent", server)
        client = RpcClient(tmp_path / "work", tmp_path / "agent", *args)
        started.append((client, server))
        return client, server

    yield start
    for client, server in started:
        client.kill()
        server.__exit__(None, None, None)
