"""`pith --list-models`, and the command line's wording of the SDK's model choice (the choice
itself, local servers included, is `pith.sdk.choose_model`'s, shared with
`pith.create_session`)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from pith.ai import ModelChoice, ModelRegistry
    from pith.resources import Settings

__all__ = ["choose_model", "list_models"]


async def choose_model(
    registry: ModelRegistry,
    model: str | None,
    provider: str | None,
    settings: Settings,
    *,
    api_key: str | None,
    agent_dir: Path,
) -> ModelChoice:
    """The model of a run (see `pith.sdk.choose_model`): warnings on standard error as
    `pith: warning: ...`, the local server found as `pith: ...`, messages naming the
    command's options."""
    from pith.sdk import COMMAND_LINE
    from pith.sdk import choose_model as settle

    return await settle(
        registry,
        model,
        provider,
        settings,
        api_key=api_key,
        agent_dir=agent_dir,
        warn=lambda message: print(f"pith: warning: {message}", file=sys.stderr),
        tell=lambda message: print(f"pith: {message}", file=sys.stderr),
        wording=COMMAND_LINE,
    )


async def list_models(registry: ModelRegistry) -> int:
    """`pith --list-models`: `*` usable, `?` usable but its key variable is unset (sent
    without a key), blank when a key it needs is missing; one warning per provider whose
    apiKey does not resolve. With nothing configured, a local server's models are listed."""
    from pith.sdk import add_local_models

    await add_local_models(registry, None, os.environ)
    usable = {model.key for model in registry.available()}
    unresolved: dict[str, str] = {}
    for model in registry.models:
        if model.provider not in unresolved and registry.api_key(model) is None:
            reason = registry.unresolved_key(model)
            if reason is not None:
                unresolved[model.provider] = reason
    for reason in unresolved.values():
        print(f"pith: warning: {reason}", file=sys.stderr)
    for model in sorted(registry.models, key=lambda m: m.key):
        mark = " "
        if model.key in usable:
            mark = "?" if model.provider in unresolved else "*"
        print(f"{mark} {model.key:<45} ctx {model.context_window:>9,}  out {model.max_tokens:>7,}")
    legend = "\n* = credentials found (or none needed)"
    if unresolved:
        legend += "; ? = its apiKey variable is unset, requests go without a key"
    print(legend, file=sys.stderr)
    return 0
