"""The models pith knows, for a program choosing one."""

from __future__ import annotations

import os
from pathlib import Path

from pith.ai import Model, ModelRegistry
from pith.resources import agent_dir as default_agent_dir

__all__ = ["list_models"]


def list_models(
    *, agent_dir: str | os.PathLike[str] | None = None, usable: bool = False
) -> list[Model]:
    """Every model pith knows (the built-in ones and those of `models.json`), sorted by
    `provider/id`; with `usable=True` only those with credentials (or needing none). Pass one
    (or its `key`) as `model=` to `create_session`."""
    home = Path(agent_dir) if agent_dir is not None else default_agent_dir()
    registry = ModelRegistry.load(home)
    models = registry.available() if usable else registry.models
    return sorted(models, key=lambda model: model.key)
