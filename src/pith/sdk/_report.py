"""What the next model request of a session would contain (`pith context`'s data)."""

from __future__ import annotations

from pathlib import Path

from pith.ai import Model
from pith.app.session import (
    AgentSession,
    ContextReport,
    build_report,
    compaction_rules,
    prepare_report,
)
from pith.sdk._models import no_model_hint

__all__ = ["ContextReport", "context_report"]


async def context_report(
    session: AgentSession,
    *,
    model: Model | None,
    source: str | None,
    agent_dir: Path,
    fresh: bool = False,
) -> ContextReport:
    """The next request of `session` as the model would get it (after the extensions' context
    hooks), with a token estimate for each part. `model` is the one whose window to compare
    with (None: no model is configured); `source` names where the session came from."""
    await prepare_report(session.extensions)  # MCP servers get the chance to connect
    history = list(session.agent.messages)  # before the context hooks: to show stubs
    context = await session.agent.next_context()
    return build_report(
        model,
        session.store,
        context,
        source,
        session.prompt_sections(),
        [f"/{template.name}" for template in session.resources.prompt_templates],
        compaction_rules(session),
        history,
        fresh=fresh,
        no_model_hint=no_model_hint(agent_dir),
        extensions=session.extensions,
    )
