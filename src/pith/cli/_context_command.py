"""`pith context [--session FILE|ID] [--json]`: show what the next request would contain."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from pith.cli._startup import (
    add_extension_options,
    add_resource_options,
    add_trust_options,
    prepare_run,
)
from pith.errors import InputError

__all__ = ["run"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pith context",
        description=(
            "Show what the next model request of a session would contain: the system prompt, "
            "the tools and their schemas, every message, with a token estimate for each and "
            "the total against the model's window. Default: the latest session here."
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
    from pith.app._compaction import compaction_rules
    from pith.app._context_report import build_report, render_report, report_to_json
    from pith.app._factory import SessionOptions, build_agent_session
    from pith.app._stores import session_dir_for
    from pith.cli._startup import load_run_resources
    from pith.session import SessionStore, find_latest_session, resolve_session_arg

    parsed = await prepare_run(argv, _parser)
    options, home, cwd = parsed.options, parsed.agent_dir, parsed.cwd
    directory = session_dir_for(cwd, home, options.session_dir, parsed.settings.values.session_dir)
    if options.session:
        path = resolve_session_arg(options.session, directory, home)
    else:
        latest = find_latest_session(directory, cwd)
        if latest is None:
            raise InputError(
                f"no session in {directory} yet; run pith here first, or pass --session FILE"
            )
        path = latest
    registry = ModelRegistry.load(home)
    with SessionStore.open(path, lock=False) as stored:
        # Work on an in-memory copy: looking must never write to the session.
        store = SessionStore(
            stored.header, list(stored.entries), None, persisted=False, warnings=stored.warnings
        )
    projection = store.projection()
    pattern = options.model or (
        f"{projection.model[0]}/{projection.model[1]}" if projection.model else None
    )
    if pattern is None:
        raise InputError("the session names no model yet; pass --model provider/id")
    choice = registry.find(pattern)
    runner, settings = parsed.runner, parsed.settings
    session = build_agent_session(
        cwd=store.cwd or cwd,
        store=store,
        registry=registry,
        model=choice.model,
        thinking=as_thinking_level(projection.thinking_level),
        options=SessionOptions(tools=options.tools, no_tools=options.no_tools),
        extensions=runner,
        settings=settings,
        resources=await load_run_resources(parsed, options),
    )
    await session.start()
    try:
        history = list(session.agent.messages)  # before the context hooks: to show stubs
        context = await session.agent.next_context()
    finally:
        await session.shutdown()
    report = build_report(
        choice.model,
        store,
        context,
        str(path),
        session.prompt_sections(),
        [f"/{template.name}" for template in session.resources.prompt_templates],
        compaction_rules(session),
        history,
    )
    if options.json:
        json.dump(report_to_json(report), sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print(render_report(report))
    return 0
