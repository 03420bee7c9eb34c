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


async def list_models(registry: ModelRegistry, search: str = "") -> int:
    """`pith --list-models [search]`: a table of the models `search` names (all without one;
    see `matching_models`), marked `*` usable, `?` usable but its key variable is unset (sent
    without a key), blank when a key it needs is missing; one warning per provider whose
    apiKey does not resolve. With nothing configured, a local server's models are listed. Exit
    status 1 when `search` names no model (scripts can test for a model that way)."""
    from pith.cli._model_table import matching_models, model_table
    from pith.sdk import add_local_models

    await add_local_models(registry, None, os.environ)
    models = matching_models(sorted(registry.models, key=lambda m: m.key), search)
    if not models:
        print(
            f"pith: no model matches {search!r}; `pith --list-models` lists them all",
            file=sys.stderr,
        )
        return 1
    usable = {model.key for model in registry.available()}
    unresolved: dict[str, str] = {}
    for model in models:
        if model.provider not in unresolved and registry.api_key(model) is None:
            reason = registry.unresolved_key(model)
            if reason is not None:
                unresolved[model.provider] = reason
    for reason in unresolved.values():
        print(f"pith: warning: {reason}", file=sys.stderr)
    rows = []
    for model in models:
        mark = " "
        if model.key in usable:
            mark = "?" if model.provider in unresolved else "*"
        rows.append((mark, model, registry.origin(model)))
    for line in model_table(rows):
        print(line)
    legend = "\n* = credentials found (or none needed)"
    if unresolved:
        legend += "; ? = its apiKey variable is unset, requests go without a key"
    print(f"{legend}; prices in US dollars per million tokens", file=sys.stderr)
    return 0
