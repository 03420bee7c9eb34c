"""`pith auth login|list|logout`: the API keys saved in `<agent dir>/auth.json`.

`login PROVIDER` asks for the key without echoing it (on a terminal; otherwise it reads one
line from standard input, so scripts can pipe it in) and saves it. `list` says, for every
provider with a key anywhere, where the key a run would send comes from — never the key, nor
any part of it. `logout PROVIDER` removes the saved entry and leaves the others as they are.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from pathlib import Path

from pith.ai import AuthEntries, AuthFile, KeySource, ModelRegistry
from pith.errors import InputError

__all__ = ["run"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pith auth",
        description=(
            "Save, list and remove the API keys pith keeps in <agent dir>/auth.json "
            "(docs/providers.md, Keys). --api-key, the provider's environment variable and a "
            "models.json apiKey all win over a saved key."
        ),
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    login = commands.add_parser(
        "login",
        help="save a provider's API key (asked for without echo, or one line of stdin)",
        description=(
            "Save PROVIDER's API key in auth.json (mode 0600). On a terminal the key is asked "
            "for without being shown; otherwise the first line of standard input is the key."
        ),
    )
    login.add_argument("provider", help="a built-in provider or one from models.json")
    commands.add_parser("list", help="where each provider's key comes from (never the key)")
    logout = commands.add_parser("logout", help="remove a provider's saved key")
    logout.add_argument("provider")
    return parser


def run(argv: list[str]) -> int:
    options = _parser().parse_args(argv)
    from pith.resources import agent_dir

    home = agent_dir()
    if options.command == "login":
        return _login(home, options.provider)
    if options.command == "logout":
        return _logout(home, options.provider)
    return _list(home)


def _login(home: Path, provider: str) -> int:
    registry = ModelRegistry.load(home, stored_keys=False)
    if provider not in registry.providers:
        known = ", ".join(sorted(registry.providers))
        raise InputError(
            f"unknown provider {provider!r}; known providers: {known} "
            f"(add others in {home / 'models.json'})"
        )
    key = _read_key(provider).strip()
    if not key:
        raise InputError(f"no key given for {provider}; nothing was saved")
    auth = AuthFile(home)
    auth.save_key(provider, key)
    print(f"Saved the API key for {provider} in {auth.path}.")
    source = registry.key_source(provider)
    if source is not None and source.kind != "auth.json":
        print(
            f"pith: note: {_describe(source)} gives {provider} a key now, and wins over the "
            "saved one while it does",
            file=sys.stderr,
        )
    return 0


def _read_key(provider: str) -> str:
    if sys.stdin.isatty():
        try:
            return getpass.getpass(f"API key for {provider} (not shown): ")
        except EOFError:
            return ""
    return sys.stdin.readline()


def _logout(home: Path, provider: str) -> int:
    auth = AuthFile(home)
    if not auth.remove(provider):
        print(f"pith: no saved key for {provider} in {auth.path}; nothing removed", file=sys.stderr)
        return 1
    print(f"Removed the saved key for {provider} from {auth.path}.")
    registry = ModelRegistry.load(home)
    source = registry.key_source(provider)
    if source is not None:
        print(f"pith: note: {provider} still has a key from {_describe(source)}", file=sys.stderr)
    return 0


def _list(home: Path) -> int:
    registry = ModelRegistry.load(home)
    for warning in registry.warnings:
        print(f"pith: warning: {warning}", file=sys.stderr)
    auth = AuthFile(home)
    entries = auth.entries()
    rows: list[tuple[str, str, str]] = []
    for provider in sorted({*registry.providers, *entries.keys, *entries.other}):
        source = registry.key_source(provider)
        saved = _saved(provider, registry, entries, source)
        if source is not None or saved != "no":
            rows.append((provider, _where(registry, provider, source, home), saved))
    if not rows:
        print(
            f"No API keys: none saved in {auth.path}, none in the environment or models.json. "
            "Save one with `pith auth login PROVIDER`."
        )
        return 0
    header = ("provider", "key from", "saved in auth.json")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(2)]
    for row in [header, *rows]:
        print(f"{row[0].ljust(widths[0])}  {row[1].ljust(widths[1])}  {row[2]}".rstrip())
    print(f"(files in {home}; --api-key, when given, wins over all of these)")
    return 0


def _saved(
    provider: str, registry: ModelRegistry, entries: AuthEntries, source: KeySource | None
) -> str:
    """What auth.json holds for `provider`, and whether a run uses it."""
    if provider in entries.other:
        return f"{entries.other[provider]} (not used by pith)"
    if provider not in entries.keys:
        return "no"
    if provider not in registry.providers:
        return "yes (no such provider now: not used)"
    return "yes" if source is not None and source.kind == "auth.json" else "yes (not used)"


def _where(registry: ModelRegistry, provider: str, source: KeySource | None, home: Path) -> str:
    """The source of `provider`'s key in words, with what a `$NAME` or `!command` reads."""
    if source is None:
        return "none"
    config = registry.providers[provider]
    spec = None
    if source.kind == "models.json":
        spec = config.api_key
    elif source.kind == "auth.json" and config.stored_key is not None:
        spec = config.stored_key.key
    return _describe(source).replace(str(home) + os.sep, "") + _spec_hint(spec)


def _describe(source: KeySource) -> str:
    """Where a key comes from, in words; never the key."""
    if source.kind == "environment":
        return f"environment variable {source.name}"
    if source.kind == "models.json":
        return source.name
    return source.kind


def _spec_hint(spec: str | None) -> str:
    """What a `$NAME` or `!command` value reads from (a literal key is never shown)."""
    if spec is None or spec.startswith(("$$", "$!")):
        return ""
    if spec.startswith("!"):
        return " (a command's output)"
    if spec.startswith("$") and len(spec) > 1:
        name = spec[2:-1] if spec.startswith("${") else spec[1:]
        return f" (${name})" if os.environ.get(name) else f" (${name}, which is not set)"
    return ""
