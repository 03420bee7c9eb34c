"""Where pith keeps its files: the one rule, importable before anything else loads."""

import os
from pathlib import Path

__all__ = ["AGENT_DIR_ENV", "agent_dir"]

AGENT_DIR_ENV = "PITH_AGENT_DIR"


def agent_dir() -> Path:
    """`$PITH_AGENT_DIR`, else `~/.pith/agent` (settings, models.json, sessions, skills...)."""
    configured = os.environ.get(AGENT_DIR_ENV)
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".pith" / "agent"
