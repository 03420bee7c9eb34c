"""`pith [options] [@file ...] [message ...]`: run the agent (print and JSON modes)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import uuid
from datetime import UTC, datetime
from typing import TYPE_CHECKING, NoReturn

from pith.errors import InputError

if TYPE_CHECKING:  # imported lazily at run time: `pith --version` stays fast
    from pith.agent import Tool
    from pith.ai import Model, ModelChoice, ModelRegistry

__all__ = ["parser", "run"]

_PREFERRED = (
    "anthropic/claude-sonnet-4-5",
    "openai/gpt-5",
    "openai/gpt-4.1",
    "openrouter/anthropic/claude-sonnet-4.5",
)


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
    p.add_argument("--mode", choices=("text", "json"), default="text", help="output format")
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
    p.add_argument("--tools", "-t", help="tools: a,b replaces the default; +x adds; -y removes")
    p.add_argument("--no-tools", "-nt", action="store_true", help="no tools at all")
    p.add_argument("--system-prompt", help="replace the system prompt (text or a file path)")
    p.add_argument("--list-models", action="store_true", help="list models and exit")
    p.add_argument("--cwd", help=argparse.SUPPRESS)
    return p


def run(argv: list[str]) -> int:
    options = parser().parse_args(argv)
    from pith.ai import ModelRegistry
    from pith.resources import agent_dir

    registry = ModelRegistry.load(agent_dir())
    for warning in registry.warnings:
        print(f"pith: warning: {warning}", file=sys.stderr)
    if options.list_models:
        return _list_models(registry)
    cwd = os.path.abspath(options.cwd or os.getcwd())
    files = [arg[1:] for arg in options.messages if arg.startswith("@") and len(arg) > 1]
    messages = [arg for arg in options.messages if not (arg.startswith("@") and len(arg) > 1)]
    interactive = (
        not options.print and options.mode == "text" and sys.stdin.isatty() and sys.stdout.isatty()
    )
    if interactive and not messages and not files:
        raise InputError(
            "the interactive terminal mode is not available in this version; "
            'run `pith -p "your request"` (or pipe a request into pith)'
        )
    from pith.app import AgentSession, build_prompts, read_piped_stdin, run_print_mode

    stdin_text = read_piped_stdin()
    prompts = build_prompts(messages, files, stdin_text, cwd)
    if prompts.first is None:
        raise InputError(
            'no request given: pass one as an argument, e.g. pith -p "fix the failing test"'
        )
    choice = _choose_model(registry, options.model, options.provider)
    model = choice.model
    thinking = options.thinking or choice.thinking or ("medium" if model.reasoning else "off")
    if registry.api_key(model, options.api_key) is None and _needs_key(registry, model):
        raise InputError(_missing_key_message(registry, model))
    tools = _tools(options, cwd)
    system_prompt = _read_text_or_file(options.system_prompt) if options.system_prompt else None
    session = AgentSession(
        cwd=cwd,
        model=model,
        registry=registry,
        tools=tools,
        thinking=thinking,
        api_key=options.api_key,
        system_prompt=system_prompt,
    )
    header = {
        "type": "session",
        "version": 3,
        "id": str(uuid.uuid4()),
        "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "cwd": cwd,
    }
    return asyncio.run(run_print_mode(session, prompts, options.mode, header))


def _choose_model(
    registry: ModelRegistry, pattern: str | None, provider: str | None
) -> ModelChoice:
    from pith.ai import ModelChoice

    if pattern:
        return registry.find(pattern, provider)
    available = registry.available()
    if provider is not None:
        for model in available:
            if model.provider == provider:
                return ModelChoice(model, None)
        for model in registry.models:
            if model.provider == provider:
                return ModelChoice(model, None)
        _no_model(provider)
    for key in _PREFERRED:
        for model in available:
            if model.key == key:
                return ModelChoice(model, None)
    if available:
        return ModelChoice(available[0], None)
    raise InputError(
        "no model configured: pass --model provider/id and an API key (OPENAI_API_KEY, "
        "ANTHROPIC_API_KEY, --api-key), or add a provider to models.json (see docs/providers.md)"
    )


def _no_model(provider: str) -> NoReturn:
    raise InputError(
        f"provider {provider!r} has no models; pass --model or add models to models.json"
    )


def _needs_key(registry: ModelRegistry, model: Model) -> bool:
    config = registry.providers.get(model.provider)
    return config.needs_key if config is not None else True


def _missing_key_message(registry: ModelRegistry, model: Model) -> str:
    config = registry.providers.get(model.provider)
    names = ", ".join(config.env_keys) if config and config.env_keys else "an apiKey in models.json"
    return f"no API key for {model.key}: set {names}, or pass --api-key"


def _tools(options: argparse.Namespace, cwd: str) -> dict[str, Tool]:
    from pith.app._tool_selection import select_tool_names
    from pith.tools import DEFAULT_TOOL_NAMES, builtin_tools

    everything = builtin_tools(cwd)
    names = select_tool_names(
        options.tools, DEFAULT_TOOL_NAMES, list(everything), no_tools=options.no_tools
    )
    return {name: everything[name] for name in names}


def _read_text_or_file(value: str) -> str:
    """A value that names an existing file means its contents; anything else is the text."""
    if os.path.isfile(value):
        try:
            with open(value, encoding="utf-8") as handle:
                return handle.read()
        except (OSError, UnicodeDecodeError) as error:
            raise InputError(f"cannot read {value}: {error}") from None
    return value


def _list_models(registry: ModelRegistry) -> int:
    usable = {model.key for model in registry.available()}
    for model in sorted(registry.models, key=lambda m: m.key):
        mark = "*" if model.key in usable else " "
        print(f"{mark} {model.key:<45} ctx {model.context_window:>9,}  out {model.max_tokens:>7,}")
    print("\n* = credentials found", file=sys.stderr)
    return 0
