"""`pith trust [DIR] [--yes | --no | --parent | --forget]`: see or decide whether pith trusts a
project (its `.pith/` settings, extensions, skills, prompts, SYSTEM.md, and `.agents/skills`).

Without a choice it says what pith decides for the folder and why; in a terminal it then asks.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from pith.errors import InputError

__all__ = ["run"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pith trust",
        description=(
            "Show or change whether pith trusts a project folder. A trusted project may change "
            "pith's settings and give it extensions (code that runs on this machine), skills, "
            "prompt templates and a system prompt. AGENTS.md and CLAUDE.md are read either way."
        ),
    )
    parser.add_argument("folder", nargs="?", help="the project folder (default: here)")
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument("--yes", action="store_true", help="trust it (saved in trust.json)")
    choice.add_argument("--no", action="store_true", help="do not trust it (saved)")
    choice.add_argument("--parent", action="store_true", help="trust the folder above it")
    choice.add_argument("--forget", action="store_true", help="remove the saved decision")
    return parser


def run(argv: list[str]) -> int:
    options = _parser().parse_args(argv)
    from pith.resources import (
        TrustChoice,
        TrustStore,
        agent_dir,
        load_settings,
        resolve_project_trust,
        trust_key,
        trust_options,
        trust_requiring_resources,
    )

    folder = os.path.abspath(options.folder or os.getcwd())
    if not os.path.isdir(folder):
        raise InputError(f"{options.folder}: not a folder")
    home = agent_dir()
    store = TrustStore(home)
    by_choice = {option.choice: option for option in trust_options(folder, session_only=False)}
    wanted = (
        TrustChoice.TRUST
        if options.yes
        else TrustChoice.DISTRUST
        if options.no
        else TrustChoice.TRUST_PARENT
        if options.parent
        else None
    )
    if options.forget:
        own = store.read().get(trust_key(folder))
        if own is None:
            inherited = store.entry(folder)
            also = (
                f"; the decision saved for {inherited.path} still applies"
                if inherited is not None
                else ""
            )
            print(f"no saved decision for {folder}: nothing to forget{also}")
            return 0
        store.save(folder, None)
        print(f"forgot the saved decision for {folder}")
        return 0
    if wanted is not None:
        option = by_choice.get(wanted)
        if option is None:
            raise InputError(f"{folder} has no parent folder to trust")
        store.save_many(option.updates)
        print(f"{option.label}: saved for {option.saved_path}")
        return 0
    settings = load_settings(home)
    resolution = asyncio.run(
        resolve_project_trust(folder, home, default_trust=settings.default_project_trust)
    )
    print(f"{folder}: {resolution.describe()}")
    needing = trust_requiring_resources(folder)
    if needing:
        print("what trust decides about:\n" + "\n".join(f"  {path}" for path in needing))
    else:
        print("nothing here needs trust (no .pith/ resources, no .agents/skills)")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return 0
    options_list = list(by_choice.values())
    for index, option in enumerate(options_list, start=1):
        print(f"  {index}. {option.label}")
    try:
        answer = input("Choose (number, Enter to leave it as it is): ").strip()
    except EOFError:
        return 0
    if not answer:
        return 0
    if not answer.isdigit() or not 1 <= int(answer) <= len(options_list):
        raise InputError(f"{answer!r} is not one of the numbers above")
    chosen = options_list[int(answer) - 1]
    store.save_many(chosen.updates)
    print(f"{chosen.label}: saved for {chosen.saved_path}")
    return 0
