"""`pith permissions check --tool NAME --args JSON [--cwd DIR] [--json]` and
`pith permissions show`: debug a permission configuration without running anything.

`check` prints the decision pith would take for that tool call, the gate and the rule that
decided it, and every gate's answer; `show` prints the effective rules with the file each
comes from. Both read the same settings as the agent (the user's, then the project's when
the project is trusted — by `--approve`, or a decision saved with `pith trust`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys

from pith.errors import ConfigError, InputError
from pith.json_input import MAX_ARGUMENT_DEPTH, JsonInputError, parse_json

__all__ = ["run"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pith permissions",
        description="See what the permission rules decide (docs/permissions.md).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser(
        "check", help="the decision for one tool call, and the rule that made it"
    )
    check.add_argument("--tool", required=True, help="the tool's name (read, bash, ...)")
    check.add_argument(
        "--args", default="{}", help="the call's arguments as a JSON object ('-' reads stdin)"
    )
    check.add_argument("--cwd", help="the working directory (default: here)")
    check.add_argument("--json", action="store_true", help="the decision as one JSON object")
    check.add_argument("-a", "--approve", action="store_true", help="trust the project")
    show = commands.add_parser("show", help="the effective rules and where each comes from")
    show.add_argument("--cwd", help="the working directory (default: here)")
    show.add_argument("-a", "--approve", action="store_true", help="trust the project")
    return parser


_BUILT_IN_TOOLS = ("read", "write", "edit", "bash", "grep", "find", "ls")


def _warn_unknown_tool(tool: str) -> None:
    """A tool name that is close to a built-in one is probably a typo: say so (an extension's
    own tool, unknown here, may still be meant)."""
    import difflib

    if tool in _BUILT_IN_TOOLS:
        return
    close = difflib.get_close_matches(tool, _BUILT_IN_TOOLS, n=1, cutoff=0.6)
    if close:
        print(
            f"pith: warning: {tool!r} is not a built-in tool; did you mean {close[0]!r}? "
            "(an extension's tool is judged by its own name and `*`)",
            file=sys.stderr,
        )


def run(argv: list[str]) -> int:
    options = _parser().parse_args(argv)
    return asyncio.run(_run(options))


async def _run(options: argparse.Namespace) -> int:
    from pith.ext.permissions import (
        PermissionConfigError,
        Situation,
        build_ruleset,
        decide,
        describe_decision,
        permission_layers,
        pith_package_dir,
    )
    from pith.resources import agent_dir, load_settings, resolve_project_trust

    cwd = os.path.abspath(options.cwd or os.getcwd())
    if not os.path.isdir(cwd):
        raise InputError(f"--cwd {options.cwd}: not a folder")
    home = agent_dir()
    settings = load_settings(home)
    resolution = await resolve_project_trust(
        cwd,
        home,
        override=True if options.approve else None,
        default_trust=settings.default_project_trust,
    )
    if resolution.trusted:
        settings = settings.with_project(cwd)
    layers = permission_layers(settings.layers, cwd)
    try:
        rules = build_ruleset(layers, os.path.expanduser("~"))
    except PermissionConfigError as error:
        raise ConfigError(str(error)) from None
    if options.command == "show":
        for rule in rules.rules:
            reason = f" ({rule.reason})" if rule.reason else ""
            print(f"{rule.describe()}{reason}")
        project = "trusted" if resolution.trusted else "not trusted: its settings are not used"
        print(f"project {cwd}: {project}")
        return 0
    arguments = _arguments(options.args)
    _warn_unknown_tool(options.tool)
    situation = Situation(
        cwd,
        os.path.expanduser("~"),
        (str(home),),
        agent_dir=str(home),
        package_dir=pith_package_dir(),
    )
    decision = decide(rules, options.tool, arguments, situation)
    if options.json:
        finding = decision.finding
        payload: dict[str, object] = {
            "decision": decision.state,
            "gate": finding.gate if finding else None,
            "rule": finding.to_json()["rule"] if finding else None,
            "message": describe_decision(decision),
            "findings": [item.to_json() for item in decision.findings],
        }
        if finding is not None and finding.rule is not None and finding.rule.reason:
            payload["reason"] = finding.rule.reason
        print(json.dumps(payload, ensure_ascii=False))
        return 0
    print(describe_decision(decision))
    for item in decision.findings:
        source = item.rule.describe() if item.rule else "(pith)"
        note = f" — {item.note}" if item.note else ""
        print(f"  {item.gate:<18} {item.state:<5} {item.value!r} {source}{note}")
    return 0


def _arguments(text: str) -> dict[str, object]:
    raw = sys.stdin.read() if text == "-" else text
    try:
        value = parse_json(raw, "--args", fix="", max_depth=MAX_ARGUMENT_DEPTH)
    except JsonInputError as error:
        raise InputError(
            f"--args is {'refused: ' if error.limit else ''}{error.reason} "
            f"(line {error.line}, column {error.column}); "
            "quote it for the shell, "
            """e.g. --args '{"command": "ls"}'"""
        ) from None
    if not isinstance(value, dict):
        raise InputError("""--args must be a JSON object, e.g. '{"path": "src/a.py"}'""")
    return value
