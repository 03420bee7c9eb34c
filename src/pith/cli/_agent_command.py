"""`pith [options] [@file ...] [message ...]`: run the agent (print and JSON modes)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING

from pith.cli._model_choice import choose_model, list_models
from pith.cli._startup import (
    add_extension_options,
    add_resource_options,
    add_trust_options,
    prepare_run,
    resource_choice,
    warn,
)
from pith.errors import InputError

if TYPE_CHECKING:  # imported lazily at run time: `pith --version` stays fast
    from pathlib import Path

    from pith.ai import ModelChoice, ModelRegistry
    from pith.app import RpcConnection
    from pith.cli._early_editor import EarlyEditor
    from pith.cli._startup import PreparedRun
    from pith.extensions import ExtensionUI
    from pith.resources import TrustChoice, TrustQuestion
    from pith.sdk import AskTrust
    from pith.session import SessionStore

__all__ = ["parser", "run"]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pith",
        description=(
            "A terminal coding agent. Give a request as arguments; @path attaches a file; "
            "piped standard input is prepended to the first message."
        ),
        epilog="Other commands: pith tool --help. Docs: docs/providers.md, docs/tools.md.",
    )
    p.add_argument(
        "messages", nargs="*", help="the request; each further one is sent after the first"
    )
    p.add_argument("-p", "--print", action="store_true", help="answer once and exit (print mode)")
    p.add_argument(
        "--mode",
        choices=("text", "json", "rpc"),
        default="text",
        help="output format; rpc: JSON-lines commands on stdin (docs/rpc.md)",
    )
    p.add_argument(
        "--provider", help="provider id (openai, anthropic, ollama, or one from models.json)"
    )
    p.add_argument("--model", help="model: id, provider/id, or provider/id:thinking")
    p.add_argument("--api-key", help="API key for this run (overrides models.json and environment)")
    p.add_argument(
        "--thinking",
        choices=("off", "minimal", "low", "medium", "high", "xhigh", "max"),
        help="thinking level for reasoning models",
    )
    p.add_argument(
        "--tools",
        "-t",
        help=(
            "tools: a,b replaces the default; +x adds; -y removes; MCP tools stay unless an "
            "entry starts with mcp__ ('mcp__git__*' keeps only those, -mcp__git__* drops them)"
        ),
    )
    p.add_argument("--no-tools", "-nt", action="store_true", help="no tools at all")
    p.add_argument(
        "--system-prompt",
        help="your own system prompt in place of pith's preamble, tools and rules (text, or a "
        "file that exists); replaces SYSTEM.md",
    )
    sessions = p.add_argument_group("sessions")
    sessions.add_argument(
        "-c",
        "--continue",
        dest="continue_latest",
        action="store_true",
        help="continue the latest session of this directory",
    )
    sessions.add_argument(
        "-r",
        "--resume",
        action="store_true",
        help="choose a session to resume (lists them without a terminal)",
    )
    sessions.add_argument("--session", help="a session file, or the id of one")
    sessions.add_argument("--fork", help="start a new session from a copy of this one (file or id)")
    sessions.add_argument(
        "--session-dir", help="where sessions are kept (default ~/.pith/agent/sessions/--cwd--)"
    )
    sessions.add_argument("--session-id", help="id for a new session")
    sessions.add_argument("--no-session", action="store_true", help="keep nothing on disk")
    sessions.add_argument("-n", "--name", help="name the session")
    add_resource_options(p)
    add_trust_options(p)
    add_extension_options(p)
    p.add_argument(
        "--list-models",
        nargs="?",
        const="",
        metavar="SEARCH",
        help="list models (those SEARCH names: provider, id or name) and exit",
    )
    p.add_argument("--cwd", help=argparse.SUPPRESS)
    return p


def run(argv: list[str]) -> int:
    import gc

    early = None
    if sys.platform != "win32":  # it reads the terminal through termios
        from pith.cli._early_editor import start_early_editor

        early = start_early_editor(argv)
    # Start-up builds what lives for the whole run (modules, classes, the session), and the
    # collector would only walk it again and again; it is back on once the session is
    # assembled (`_collect_from_here`), with what start-up built frozen out of its way.
    gc.disable()
    try:
        return asyncio.run(_main(argv, early))
    finally:
        gc.enable()
        if early is not None:
            early.stop()


def _collect_from_here() -> None:
    import gc

    gc.freeze()
    gc.enable()


async def _main(argv: list[str], early: EarlyEditor | None = None) -> int:
    from pith.ai import ModelRegistry

    parsed = await prepare_run(argv, parser, ask=_trust_asker(argv, early))
    options, settings, home, cwd = parsed.options, parsed.settings, parsed.agent_dir, parsed.cwd
    registry = ModelRegistry.load(home)
    for warning in registry.warnings:
        print(f"pith: warning: {warning}", file=sys.stderr)
    if options.list_models is not None:
        # `pith --list-models claude sonnet`: the words after the first are part of the search.
        search = " ".join([options.list_models, *options.messages])
        return await list_models(registry, search)
    files = [arg[1:] for arg in options.messages if arg.startswith("@") and len(arg) > 1]
    messages = [arg for arg in options.messages if not (arg.startswith("@") and len(arg) > 1)]
    interactive = _is_interactive(options.print, options.mode)
    values = settings.values
    choice = await choose_model(
        registry,
        options.model,
        options.provider,
        settings,
        api_key=options.api_key,
        agent_dir=home,
    )
    from pith.app.session import SessionChoice, open_store

    if options.resume and interactive and not _combined_with_resume(options):
        if early is not None:
            early.stop()
        picked = await _pick_session(cwd, home, options.session_dir, values.session_dir)
        if picked is None:
            return 0
        options.resume, options.session = False, picked
    store = open_store(
        SessionChoice(
            continue_latest=options.continue_latest,
            resume=options.resume,
            session=options.session,
            fork=options.fork,
            no_session=options.no_session,
            session_dir=options.session_dir,
            session_id=options.session_id,
            name=options.name,
        ),
        cwd,
        home,
        values.session_dir,
    )
    if store is None:
        return 0
    try:
        return await _run_in(
            store,
            options,
            registry,
            choice,
            messages,
            files,
            parsed,
            interactive=interactive,
            early=early,
        )
    finally:
        store.close()


async def _run_in(
    store: SessionStore,
    options: argparse.Namespace,
    registry: ModelRegistry,
    choice: ModelChoice,
    messages: list[str],
    files: list[str],
    parsed: PreparedRun,
    *,
    interactive: bool = False,
    early: EarlyEditor | None = None,
) -> int:
    from pith.app import SessionOptions, build_prompts, read_piped_stdin
    from pith.session import encode_entry

    cwd, settings = parsed.cwd, parsed.settings
    for warning in store.warnings:
        print(f"pith: warning: {warning}", file=sys.stderr)
    rpc = _rpc_connection(options, messages, files)
    prompts = None if rpc else build_prompts(messages, files, read_piped_stdin(), cwd)
    if prompts is not None and prompts.first is None and not interactive:
        raise InputError(
            'no request given: pass one as an argument, e.g. pith -p "fix the failing test"'
        )
    from pith.sdk import SessionSetup, assemble_session, choose_thinking

    model = choice.model
    # Only a level the user gave for this run is warned about: a default in settings applies
    # to any model.
    thinking, problem = choose_thinking(
        options.thinking or choice.thinking,
        store,
        model,
        settings.values.default_thinking_level,
    )
    if problem is not None:
        warn(problem)
    session = await assemble_session(
        SessionSetup(
            project=parsed.project,
            registry=registry,
            model=model,
            store=store,
            thinking=thinking,
            tools=SessionOptions(
                tools=options.tools,
                no_tools=options.no_tools,
                api_key=options.api_key,
            ),
            resources=resource_choice(options),
            mode="rpc"
            if rpc
            else "interactive"
            if interactive
            else "json"
            if options.mode == "json"
            else "print",
            ui=rpc.ui if rpc else _terminal_ui() if interactive else None,
        ),
        warn,
    )
    _collect_from_here()
    if rpc is not None or prompts is None:
        assert rpc is not None
        return await rpc.serve(session)  # starts and shuts down the session itself
    if interactive and prompts is not None:
        from pith.app.modes.interactive import run_interactive

        await session.start()
        try:
            return await run_interactive(
                session,
                agent_dir=parsed.agent_dir,
                first=prompts.first,
                rest=prompts.rest,
                typed=early.typed if early is not None else None,
            )
        finally:
            await session.shutdown()
    from pith.app import run_print_mode  # not before: the terminal UI never loads it

    header = json.loads(encode_entry(store.header))
    await session.start()
    try:
        return await run_print_mode(session, prompts, options.mode, header)
    finally:
        await session.shutdown()


def _combined_with_resume(options: argparse.Namespace) -> bool:
    """Another session flag beside --resume (open_store refuses the combination)."""
    return bool(options.continue_latest or options.session or options.fork or options.no_session)


async def _pick_session(
    cwd: str, home: Path, explicit: str | None, configured: str | None
) -> str | None:
    """`pith -r` in a terminal: choose the session in a list; None when cancelled."""
    from pith.app.modes.interactive import choose_one
    from pith.app.session import format_session_list, session_dir_for
    from pith.session import list_sessions

    directory = session_dir_for(cwd, home, explicit, configured)
    sessions = list_sessions(directory)
    if not sessions:
        raise InputError(f"no sessions to resume in {directory}")
    rows = [row.strip() for row in format_session_list(sessions).split("\n")]
    index = await choose_one("Resume which session?", rows)
    return str(sessions[index].path) if index is not None else None


def _is_interactive(print_mode: bool, mode: str) -> bool:
    """The terminal mode: no -p, no --mode json/rpc, and a terminal on both ends."""
    return not print_mode and mode == "text" and sys.stdin.isatty() and sys.stdout.isatty()


def _trust_asker(argv: list[str], early: EarlyEditor | None = None) -> AskTrust | None:
    """Who answers the project-trust question: the terminal in the interactive mode (read
    from `argv` before it is fully parsed), else nobody (an undecided project is untrusted).
    The early editor goes before the question is put."""
    scripted = any(arg in ("-p", "--print", "--mode") or arg.startswith("--mode=") for arg in argv)
    if scripted or not _is_interactive(False, "text"):
        return None
    from pith.app.modes.interactive import ask_trust

    if early is None:
        return ask_trust

    async def ask(question: TrustQuestion) -> TrustChoice | None:
        assert early is not None
        early.stop()
        return await ask_trust(question)

    return ask


def _terminal_ui() -> ExtensionUI:
    from pith.app.modes.interactive import PlainUI, TerminalUI, is_plain_terminal

    return PlainUI() if is_plain_terminal() else TerminalUI()


def _rpc_connection(
    options: argparse.Namespace, messages: list[str], files: list[str]
) -> RpcConnection | None:
    """In `--mode rpc`, the client on standard input and output (prompts come from it)."""
    if options.mode != "rpc":
        return None
    if messages or files:
        raise InputError(
            "--mode rpc takes its prompts on standard input as prompt commands; "
            "drop the message and @file arguments (docs/rpc.md)"
        )
    from pith.app import RpcConnection

    return RpcConnection.open()
