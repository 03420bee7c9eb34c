"""`pith guard plan 'COMMAND' [--json]`: what the tool guard would do with a bash command,
without running it.

The plain output says whether the guard strips views from the command and why (or which rule
leaves it untouched), then the command it would run, the views it would apply afterwards and
the statements it would hoist into the side channel. `--json` prints one object:
`{"changed", "cleaned", "views", "reason"}`, where `cleaned` is the command the guard runs,
with the placeholders `<sink>`, `<marker>` and `<after>` standing for its temporary files,
plus `"directory"` when the views run elsewhere than the command (after a `cd`).
"""

from __future__ import annotations

import argparse
import json
import os

__all__ = ["run"]

SINK_PLACEHOLDER = "<sink>"
MARKER_PLACEHOLDER = "<marker>"
AFTER_PLACEHOLDER = "<after>"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pith guard",
        description="See what the tool guard does with a bash command (docs/guard.md).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    plan = commands.add_parser(
        "plan", help="the views the guard would strip from a bash command, and why"
    )
    plan.add_argument("bash_command", metavar="COMMAND", help="the bash command, quoted")
    plan.add_argument("--json", action="store_true", help="the plan as one JSON object")
    return parser


def run(argv: list[str]) -> int:
    """Run `pith guard …`; returns the exit code."""
    options = _parser().parse_args(argv)
    from pith.ext.guard import plan_command

    plan = plan_command(options.bash_command, cwd=os.getcwd())
    cleaned = plan.render(
        SINK_PLACEHOLDER if plan.needs_sink else None,
        MARKER_PLACEHOLDER if plan.needs_marker else None,
        AFTER_PLACEHOLDER if plan.needs_after else None,
    )
    if options.json:
        payload: dict[str, object] = {
            "changed": plan.changed,
            "cleaned": cleaned,
            "views": [view.text for view in plan.views],
            "reason": plan.reason,
        }
        if plan.directory is not None:
            payload["directory"] = plan.directory
        print(json.dumps(payload, ensure_ascii=False))
        return 0
    if not plan.changed:
        print(f"unchanged: {plan.reason}")
        return 0
    print(f"changed: {plan.reason}")
    print(f"  runs:    {cleaned}")
    for view in plan.views:
        how = f"in-process {view.simple}" if view.simple else "through bash, fed on stdin"
        print(f"  view:    {view.text}  ({how})")
    for text in plan.hoisted:
        print(f"  hoisted: {text}  (output kept in {SINK_PLACEHOLDER}, shown before the view)")
    if plan.directory is not None:
        print(f"  views run in: {plan.directory} (where the shell is when the pipeline starts)")
    if plan.needs_marker:
        print(f"  marker:  {MARKER_PLACEHOLDER} exists only if the pipeline ran")
    if plan.needs_after:
        print(
            f"  after:   {AFTER_PLACEHOLDER} holds what the cd after the pipeline prints "
            "(shown after the view)"
        )
    if plan.has_following_statement:
        print("  status:  the command's own (a statement follows the pipeline)")
    else:
        print("  status:  the last view's when the pipeline ran, as bash reports a pipeline's")
    return 0
