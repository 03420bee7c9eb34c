"""What the SDK tests share: a project folder and an agent dir whose model is a fake server."""

from __future__ import annotations

from pathlib import Path

from pith.testing import FakeServer, configure_agent_dir

__all__ = ["WAIT_FOR_GO", "Place", "body_text", "place"]

WAIT_FOR_GO = "for i in $(seq 1 1200); do [ -f go ] && break; sleep 0.1; done; echo went"
"""A bash command that runs until the test creates `go` in the project (at most two minutes):
a run the test can act on while it is surely still going."""


class Place:
    """A project folder (`work`) and an agent dir (`agent`) pointing at `server`."""

    def __init__(self, root: Path, server: FakeServer) -> None:
        self.work = root / "work"
        self.work.mkdir()
        (self.work / "notes.txt").write_text("one\ntwo\n")
        self.agent = configure_agent_dir(root / "agent", server)
        self.server = server

    def go(self) -> None:
        """Let a `WAIT_FOR_GO` command finish."""
        (self.work / "go").write_text("")


def place(root: Path, server: FakeServer) -> Place:
    return Place(root, server)


def body_text(request: dict[str, object]) -> str:
    """A logged model request's body, as text to look for substrings in."""
    return str(request["body"])
