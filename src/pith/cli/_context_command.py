"""`pith context [--session FILE|ID] [--json]`: show what the next request would contain."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from pith.ai import Model
from pith.cli._startup import (
    add_extension_options,
    add_resource_options,
    add_trust_options,
    prepare_run,
    resource_choice,
    warn,
)

__all__ = ["run"]

_NO_MODEL = Model(id="none", provider="none", api="faux", context_window=0)
"""Stands in for the model when none is configured: the request is built without one (its
window is not compared with)."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pith context",
        description=(
            "Show what the next model request of a session would contain: the system prompt, "
            "the tools and their schemas, every message, with a token estimate for each and "
            "the total against the model's window. Default: the latest session here, or the "
            "first request of a new session when there is none yet."
        ),
    )
    parser.add_argument("--session", help="a session file or id (default: the latest here)")
    parser.add_argument("--session-dir", help="where to look for sessions")
    parser.add_argument("--model", help="the model whose window to compare with")
    parser.add_argument("--tools", "-t", help="tools as for the agent (a,b,+x,-y)")
    parser.add_argument("--no-tools", action="store_true")
    parser.add_argument("--json", action="store_true", help="everything as one JSON object")
    parser.add_argument("--system-prompt", help="as for the agent: your own system prompt")
    add_resource_options(parser)
    add_trust_options(parser)
    add_extension_options(parser)
    return parser


def run(argv: list[str]) -> int:
    return asyncio.run(_run(argv))


async def _run(argv: list[str]) -> int:
    from pith.ai import ModelRegistry, as_thinking_level
    from pith.app.session import SessionOptions, render_report, report_to_json, session_dir_for
    from pith.sdk import SessionSetup, assemble_session, context_report, pick_model
    from pith.session import SessionStore, find_latest_session, resolve_session_arg

    parsed = await prepare_run(argv, _parser)
    options, home, cwd = parsed.options, parsed.agent_dir, parsed.cwd
    values = parsed.settings.values
    directory = session_dir_for(cwd, home, options.session_dir, values.session_dir)
    if options.session:
        path: Path | None = resolve_session_arg(options.session, directory, home)
    else:
        # No session here yet: show the first request a new session here would send.
        path = find_latest_session(directory, cwd)
    registry = ModelRegistry.load(home)
    if path is not None:
        with SessionStore.open(path, lock=False) as stored:
            # Work on an in-memory copy: looking must never write to the session.
            store = SessionStore(
                stored.header,
                list(stored.entries),
                None,
                persisted=False,
                warnings=stored.warnings,
            )
    else:
        store = SessionStore.create(cwd, None)
    projection = store.projection()
    pattern = options.model or (
        f"{projection.model[0]}/{projection.model[1]}" if projection.model else None
    )
    # As a run picks its model: the session's, else the settings', else one with credentials.
    choice = (
        registry.find(pattern)
        if pattern
        else pick_model(registry, values.default_model, values.default_provider)
    )
    model = choice.model if choice is not None else _NO_MODEL
    level = projection.thinking_level or (choice.thinking if choice is not None else None)
    session = await assemble_session(
        SessionSetup(
            project=parsed.project,
            registry=registry,
            model=model,
            store=store,
            thinking=as_thinking_level(level or values.default_thinking_level),
            tools=SessionOptions(tools=options.tools, no_tools=options.no_tools),
            resources=resource_choice(options),
        ),
        warn,
        cwd=store.cwd or cwd,
    )
    await session.start()
    try:
        report = await context_report(
            session,
            model=choice.model if choice is not None else None,
            source=str(path) if path is not None else None,
            agent_dir=home,
            fresh=path is None,
        )
    finally:
        await session.shutdown()
    if options.json:
        json.dump(report_to_json(report), sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print(render_report(report))
    return 0
