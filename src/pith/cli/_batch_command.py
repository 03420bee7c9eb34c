"""`pith batch TASKS.jsonl --out DIR [...]`: run a tasks file (docs/batch.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pith.errors import InputError

__all__ = ["run", "split_arguments"]

# Agent options a batch sets itself for every task; given on the command line they are refused.
# Compared with the agent parser's own defaults, so a changed default cannot make one look set.
_FORBIDDEN = (
    "mode",
    "continue_latest",
    "resume",
    "session",
    "fork",
    "session_dir",
    "session_id",
    "no_session",
    "name",
    "list_models",
    "cwd",
)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pith batch",
        allow_abbrev=False,
        description=(
            "Run every task of a JSON-lines tasks file with `pith -p`, each in its own copy of "
            "its folder under DIR/<id>/workspace; rows go to DIR/results.jsonl. Any agent option "
            "(--provider, --model, --thinking, --tools, -e, --approve ...) applies to every task; "
            "write an extension's own flags as --flag=value. Docs: docs/batch.md."
        ),
    )
    p.add_argument("tasks", metavar="TASKS.jsonl", help="the tasks file: one JSON object a line")
    p.add_argument(
        "--out", required=True, metavar="DIR", help="the output folder (a re-run resumes it)"
    )
    p.add_argument(
        "--workers", type=_positive_int, metavar="N", help="tasks at once (default: the cores)"
    )
    p.add_argument("--ray", metavar="ADDRESS", help="run on this Ray cluster (host:port, auto)")
    p.add_argument(
        "--cpus-per-task",
        type=_positive_float,
        metavar="C",
        help="with --ray: CPUs a task takes (default 1)",
    )
    p.add_argument(
        "--timeout", type=_positive_float, metavar="S", help="seconds per task (setup+agent+check)"
    )
    p.add_argument(
        "--max-cost",
        type=_positive_float,
        metavar="USD",
        help="start no task once the batch cost this ($)",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    return p


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def split_arguments(
    argv: list[str], batch: argparse.ArgumentParser, agent: argparse.ArgumentParser
) -> tuple[list[str], list[str]]:
    """Separate `pith batch`'s own arguments from the agent options for every task. An
    option either parser knows takes its value with it; an unknown one (an extension's flag)
    goes to the agent as written."""
    own, passed = _takes_value(batch), _takes_value(agent)
    mine: list[str] = []
    theirs: list[str] = []
    args = iter(argv)
    for arg in args:
        name = arg.split("=", 1)[0]
        if arg == "--":
            mine.extend(args)
            break
        if name in own:
            mine.append(arg)
            if own[name] and "=" not in arg:
                mine.append(next(args, ""))
        elif arg.startswith("-") and arg != "-":
            theirs.append(arg)
            if passed.get(name) and "=" not in arg:
                theirs.append(next(args, ""))
        else:
            mine.append(arg)
    return mine, theirs


def _takes_value(p: argparse.ArgumentParser) -> dict[str, bool]:
    return {option: action.nargs != 0 for action in p._actions for option in action.option_strings}


def _check_agent_options(agent_args: list[str]) -> None:
    from pith.cli._agent_command import parser as agent_parser

    p = agent_parser()
    p.exit_on_error = False
    try:
        options, _unknown = p.parse_known_args(agent_args)
    except argparse.ArgumentError as error:
        raise InputError(f"batch: {error}") from None
    defaults, _ = p.parse_known_args([])
    for name in _FORBIDDEN:
        if getattr(options, name) != getattr(defaults, name):
            flag = "--" + name.replace("_", "-")
            raise InputError(
                f"batch: {flag} does not apply to a batch (each task gets its own session in "
                "DIR/<id>/session.jsonl and runs in print mode)"
            )


def run(argv: list[str]) -> int:
    from pith.cli._agent_command import parser as agent_parser

    batch = parser()
    mine, agent_args = split_arguments(argv, batch, agent_parser())
    options = batch.parse_args(mine)
    agent_args = [a for a in agent_args if a not in ("-p", "--print")]
    _check_agent_options(agent_args)
    if options.cpus_per_task is not None and options.ray is None:
        raise InputError(
            "batch: --cpus-per-task goes with --ray (locally, --workers says how many tasks "
            "run at once)"
        )
    from pith.batch import BatchConfig, RunSpec, format_summary, run_batch, summary_json

    config = BatchConfig(
        tasks_file=Path(options.tasks),
        out=Path(options.out).absolute(),
        spec=RunSpec(
            pith=(sys.executable, "-m", "pith"),
            agent_args=tuple(agent_args),
            timeout=options.timeout,
        ),
        workers=options.workers,
        ray_address=options.ray,
        cpus_per_task=options.cpus_per_task or 1.0,
        max_cost=options.max_cost,
    )
    outcome = run_batch(config)
    if options.json:
        summary = summary_json(outcome.rows, outcome.tally, outcome.stopped)
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        print(format_summary(outcome.rows, outcome.tally, outcome.stopped), end="")
    return outcome.exit_code
