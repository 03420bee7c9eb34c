"""How long the extension waits for servers (hang guards, never measures)."""

from __future__ import annotations

__all__ = ["DIRECT_WAIT"]

DIRECT_WAIT = 10.0
"""Seconds a request (or a command) waits for the servers it needs to finish connecting."""
