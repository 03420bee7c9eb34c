"""Where pith keeps its files (the rule itself lives in `pith._agent_dir`, which the command line
reads before any layer loads)."""

from __future__ import annotations

from pith._agent_dir import AGENT_DIR_ENV, agent_dir

__all__ = ["AGENT_DIR_ENV", "agent_dir"]
