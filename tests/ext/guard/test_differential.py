"""The guard against real bash: every command of the corpus (corpus.py) runs twice, side by side,
each time in a fresh copy of the same fixture directory —

- as `bash -c COMMAND`, stdout and stderr merged into one stream (as the bash tool merges them),
  stdin from /dev/null;
- as a model's `bash` call with the guard on: `pith.app.run_tool` with the extensions loaded the
  way `pith tool --yes` loads them (the guard and the permission system are built-ins),
  in-process so the corpus stays fast; `test_cli_matches_bash` runs a few of the issue's own
  examples through the real `python -m pith tool bash … --json` to show the CLI takes the same
  path —

and the output text, the exit status and the files left in the directory must be identical.

"Text" allows for what is documented (docs/guard.md, "Documented deviations") and for the bash
tool's own presentation: its `Command exited with code N` line is the status; `(no output)`
is empty output; trailing whitespace is trimmed on both sides; output over the tool's caps
(2000 lines / 50 KB) is compared through `details.fullOutputPath` for untouched commands (the
whole output) and, for a projection over the caps, as its tail cut the way the tool cuts; a
slow command's readback notice is pith's own line. A case whose output the guard changes on
purpose runs its `reference` command on the bash side instead (corpus.py names the
deviation); a case with `known_bug` is a strict xfail.

The last section pins what the corpus found beyond what a plain `pith tool` run can show
(a shell command prefix, a temp folder whose name has a quote, cut output staying readable).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pith.agent import AbortController
from pith.ai import UNSET, TextContent, to_builtins
from pith.app import load_extension_runner, run_tool
from pith.ext.guard._plan import plan_command
from pith.ext.guard._project import in_process_view
from pith.ext.guard._tools import GuardedTool, GuardSettings
from pith.resources import load_settings
from pith.testing import subprocess_env
from pith.tools._bash import BashTool
from pith.tools._truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, truncate_tail
from tests.ext.guard.corpus import _ISSUE, CORPUS, Case, build_fixture

_BIN = os.path.dirname(sys.executable)  # the venv's rg
_ENV = {"PATH": f"{_BIN}:/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C.UTF-8", "TZ": "UTC"}
_PERMISSIONS = {"*": "allow", "external_directory": "allow"}
_STATUS = re.compile(r"(?:\A|\n\n)Command exited with code (\d+)\Z")
_SLOW_NOTICE = re.compile(
    r"\n\n\[This command took [\d.]+ s\. Its full output is saved in (.+?): read it from there "
    r"\(the read tool with offset/limit\) instead of running the command again\.\]\Z"
)
_PROJECTION_BANNER = re.compile(
    r"\n\n\[Showing the last \d+ of \d+ lines of the projection \([^)]*\)\.[^\]]*\]\Z"
)
_FULL_OUTPUT_BANNER = re.compile(r"\n\n\[Showing the last \d+ lines\.[^\]]*\]\Z")
_BASH_BANNER = re.compile(r"\n\n\[Showing (?:lines|last) [^\]]*Full output: [^\]]*\]\Z")
_NAMED_FILE = re.compile(r"Full output: ([^\]\s]+)\]")
MIN_STRIPPED_SHARE = 0.4
_CLI_COMMANDS = {
    "seq 1 5 | head -n2",
    "yes | head -5",
    "echo start && cd missing-dir && echo never && seq 3 | tail -1",
    "cat logs/build.log | tail -5 > out.txt",
}
"""Through the real `python -m pith tool` (~0.5 s each): one of each kind is enough."""


@dataclass
class Outcome:
    text: str
    status: int
    files: dict[str, bytes | None]
    guard: Mapping[str, object] | None = None


def _snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and directory (None) under `root`."""
    return {
        str(path.relative_to(root)): None if path.is_dir() else path.read_bytes()
        for path in sorted(root.rglob("*"))
    }


def _status(code: int) -> int:
    return 128 - code if code < 0 else code


async def run_bash(command: str, cwd: Path) -> Outcome:
    process = await asyncio.create_subprocess_exec(
        "/bin/bash",
        "-c",
        command,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    async with asyncio.timeout(60):
        output, _ = await process.communicate()
    assert process.returncode is not None
    return Outcome(output.decode("utf-8", "replace"), _status(process.returncode), _snapshot(cwd))


async def guarded_call(command: str, cwd: Path, agent: Path) -> tuple[str, bool, object]:
    """`pith tool bash '{"command": …}' --yes --json`, in-process."""
    settings = load_settings(agent)
    runner = await load_extension_runner(str(cwd), agent, settings)
    runner.flag_values["yes"] = True  # as `--yes` does: wrappers like `timeout` would ask
    outcome = await run_tool(
        "bash",
        {"command": command},
        str(cwd),
        extensions=runner,
        settings=settings.data,
        layers=settings.layers,
    )
    result = outcome.result
    text = "".join(block.text for block in result.content if isinstance(block, TextContent))
    details = None if result.details is UNSET else to_builtins(result.details)
    return text, result.is_error, details


def tool_outcome(text: str, is_error: bool, details: object, cwd: Path) -> Outcome:
    """What the model got, as comparable output: status line and readback notice removed,
    the caps of an untouched command undone (its whole output is on disk)."""
    for path in _NAMED_FILE.findall(text):
        assert Path(path).is_file(), f"the output names {path}, which does not exist"
    status = 0
    match = _STATUS.search(text)
    if is_error:
        assert match is not None, f"an error without an exit status: {text[-300:]!r}"
        status = int(match.group(1))
        text = text[: match.start()]
    details = details if isinstance(details, Mapping) else {}
    guard = details.get("guard")
    guard = guard if isinstance(guard, Mapping) else None
    notice = _SLOW_NOTICE.search(text)
    if guard is not None and notice is not None:
        assert Path(notice.group(1)).is_file()
        text = text[: notice.start()]
    if guard is None and "truncation" in details:
        shown = _BASH_BANNER.split(text)[0]
        path = details.get("fullOutputPath")
        assert isinstance(path, str), details
        full = Path(path).read_bytes().decode("utf-8", "replace")
        assert full.rstrip().endswith(shown.rstrip()), "the tail shown is not the output's end"
        text = full
    return Outcome(text, status, _snapshot(cwd), guard)


def _cut(text: str) -> str:
    return truncate_tail(text, max_lines=DEFAULT_MAX_LINES, max_bytes=DEFAULT_MAX_BYTES).content


def assert_same(case: Case, bash: Outcome, guarded: Outcome) -> None:
    guard, shown, expected = guarded.guard, guarded.text, bash.text
    if guard is not None and guard.get("capped"):
        # A projection over the caps: its tail, as the bash tool would have cut bash's output.
        assert _PROJECTION_BANNER.search(shown), (
            f"no banner on a capped projection: {shown[-300:]!r}"
        )
        shown, expected = _PROJECTION_BANNER.split(shown)[0], _cut(expected.rstrip())
    elif guard is not None and _FULL_OUTPUT_BANNER.search(shown):
        # A prefix stopped the command and what ran was over the caps.
        shown, expected = _FULL_OUTPUT_BANNER.split(shown)[0], _cut(expected)
    shown, expected = shown.rstrip(), expected.rstrip()
    if shown == "(no output)" and not expected:
        shown = ""  # the bash tool's words for no output at all
    assert (shown, guarded.status) == (expected, bash.status), case.command
    assert guarded.files == bash.files, f"files written differ for {case.command!r}"
    if case.expect is not None:
        assert shown == case.expect


def _params(cases: list[Case]) -> list[object]:
    return [
        pytest.param(
            case,
            id=case.id,
            marks=[pytest.mark.xfail(strict=True, reason=case.known_bug)] if case.known_bug else [],
        )
        for case in cases
    ]


# --- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus") / "project"
    build_fixture(root)
    return root


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The same environment on both sides; the tool's temp files (full outputs, side
    channels) go under tmp_path. Returns the agent dir (settings: allow everything)."""
    for key, value in _ENV.items():
        monkeypatch.setenv(key, value)
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text(json.dumps({"permission": _PERMISSIONS}))
    return agent


def _copies(template: Path, tmp_path: Path) -> tuple[Path, Path]:
    sides = (tmp_path / "bash" / "project", tmp_path / "guard" / "project")
    for side in sides:
        shutil.copytree(template, side, symlinks=True)
    return sides


def _differential(case: Case, template: Path, agent: Path, tmp_path: Path) -> Outcome:
    bash_dir, guard_dir = _copies(template, tmp_path)

    async def both() -> tuple[Outcome, tuple[str, bool, object]]:
        # Side by side, each in its own directory: the corpus's slow commands cost once.
        return await asyncio.gather(
            run_bash(case.reference or case.command, bash_dir),
            guarded_call(case.command, guard_dir, agent),
        )

    bash, (text, is_error, details) = asyncio.run(both())
    guarded = tool_outcome(text, is_error, details, guard_dir)
    # The corpus says whether the guard strips this command: keep it honest.
    assert (guarded.guard is not None) == case.stripped, (
        f"{case.command!r}: expected {'stripped' if case.stripped else 'untouched'}, "
        f"the plan says: {plan_command(case.command).reason}"
    )
    if guarded.guard is not None:
        assert guarded.guard.get("originalCommand") == case.command
    assert_same(case, bash, guarded)
    return guarded


# --- the corpus -------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _params(CORPUS))
def test_guarded_bash_matches_bash(case: Case, template: Path, env: Path, tmp_path: Path) -> None:
    _differential(case, template, env, tmp_path)


_SLOW_SAMPLE = [case for case in CORPUS if case.stripped][::8]


@pytest.mark.parametrize("case", _params(_SLOW_SAMPLE))
def test_slow_commands_match_bash_too(
    case: Case, template: Path, env: Path, tmp_path: Path
) -> None:
    # Every command counts as slow: the full output is kept, the readback notice added.
    (env / "settings.json").write_text(
        json.dumps({"permission": _PERMISSIONS, "guard": {"fastThresholdMs": 0}})
    )
    guarded = _differential(case, template, env, tmp_path)
    if guarded.guard is not None and guarded.guard.get("outcome") == "projection-applied":
        path = guarded.guard.get("fullOutputPath")
        assert isinstance(path, str)
        assert Path(path).is_file()


def test_corpus_is_large_and_mostly_stripped() -> None:
    commands = [case.command for case in CORPUS]
    assert len(commands) >= 200
    assert len(set(commands)) == len(commands), "a command appears twice"
    stripped = sum(case.stripped for case in CORPUS)
    assert stripped / len(CORPUS) >= MIN_STRIPPED_SHARE, f"{stripped} of {len(CORPUS)}"
    assert {case.command for case in _CLI_CASES} == _CLI_COMMANDS


def test_corpus_marks_agree_with_the_planner() -> None:
    # (each run checks details.guard too; this names every disagreement at once)
    disagree = [c.command for c in CORPUS if plan_command(c.command).changed != c.stripped]
    assert disagree == []


def test_the_fixture_exercises_the_full_output_file(template: Path) -> None:
    sizes = [
        (path.read_bytes().count(b"\n"), path.stat().st_size)
        for path in template.rglob("*")
        if path.is_file()
    ]
    assert any(lines > DEFAULT_MAX_LINES and size > DEFAULT_MAX_BYTES for lines, size in sizes)
    assert any(lines < DEFAULT_MAX_LINES and size > DEFAULT_MAX_BYTES for lines, size in sizes)


# --- the real CLI -----------------------------------------------------------------------------


_CLI_CASES = [case for case in _ISSUE if case.command in _CLI_COMMANDS]


@pytest.mark.parametrize("case", _params(_CLI_CASES))
def test_cli_matches_bash(case: Case, template: Path, env: Path, tmp_path: Path) -> None:
    bash_dir, guard_dir = _copies(template, tmp_path)
    bash = asyncio.run(run_bash(case.reference or case.command, bash_dir))
    done = subprocess.run(
        [sys.executable, "-m", "pith", "tool", "bash", json.dumps({"command": case.command}),
         "--json", "--yes", "--cwd", str(guard_dir)],
        env=subprocess_env(env, TMPDIR=str(tmp_path / "tmp")),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    payload = json.loads(done.stdout)
    text = "".join(block["text"] for block in payload["content"] if block["type"] == "text")
    guarded = tool_outcome(text, payload["isError"], payload["details"], guard_dir)
    assert (guarded.guard is not None) == case.stripped
    assert done.returncode == (1 if payload["isError"] else 0)
    assert_same(case, bash, guarded)


# --- what the corpus found beyond `pith tool` -------------------------------------------------


def _bash_tool_call(tool: BashTool, command: str) -> tuple[str, object]:
    guarded = GuardedTool(tool, GuardSettings, lambda message: None)
    result = asyncio.run(
        guarded.execute("c1", {"command": command}, AbortController().signal, None)
    )
    text = "".join(block.text for block in result.content if isinstance(block, TextContent))
    return text, result.details


def test_a_prefix_that_sets_pipefail_leaves_the_pipeline_alone(tmp_path: Path) -> None:
    # The bash tool runs `shellCommandPrefix` first: `false | head -1` then fails in bash.
    text, details = _bash_tool_call(
        BashTool(str(tmp_path), command_prefix="set -o pipefail"), "false | head -1"
    )
    assert text == "(no output)\n\nCommand exited with code 1"
    assert "guard" not in (details if isinstance(details, Mapping) else {})


def test_a_printing_prefix_stays_out_of_the_view(tmp_path: Path) -> None:
    tool = BashTool(str(tmp_path), command_prefix="echo from-prefix; echo more")
    text, details = _bash_tool_call(tool, "seq 3 | tail -1")
    assert text == "from-prefix\nmore\n3\n"
    assert "guard" not in (details if isinstance(details, Mapping) else {})


def test_a_silent_prefix_keeps_the_guard(tmp_path: Path) -> None:
    text, details = _bash_tool_call(
        BashTool(str(tmp_path), command_prefix="X=1"), "seq 3 | tail -1"
    )
    assert text == "3"
    assert isinstance(details, Mapping)
    assert "guard" in details


def test_a_temp_folder_with_a_quote_runs_the_command_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The side-channel paths are quoted with ' in the command: such a folder cannot be used.
    quoted = tmp_path / "it's"
    quoted.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(quoted))
    text, details = _bash_tool_call(BashTool(str(tmp_path)), "echo hi; seq 3 | head -1")
    assert text == "hi\n1\n"  # untouched, not an error
    assert "guard" not in (details if isinstance(details, Mapping) else {})


@pytest.mark.parametrize(
    ("command", "whole"),
    [
        ("cat logs/build.log; seq 3 | head -1", "{log}1\n2\n3\n"),
        ("cat logs/build.log && false && seq 3 | head -1", "{log}"),
    ],
)
def test_a_side_channel_over_the_caps_stays_readable(
    command: str, whole: str, template: Path, env: Path, tmp_path: Path
) -> None:
    _, project = _copies(template, tmp_path)
    text, details = _bash_tool_call(BashTool(str(project)), command)
    assert isinstance(details, Mapping)
    path = details["fullOutputPath"]
    assert isinstance(path, str)
    assert f"Full output: {path}]" in text
    log = (template / "logs" / "build.log").read_text()
    assert Path(path).read_text() == whole.format(log=log)


@pytest.mark.parametrize(
    ("command", "runs"),
    [
        ("{ cd sub; ls; } | head -1; [ -f a.txt ]", "( { cd sub; ls; } ); [ -f a.txt ]"),
        ("exit 3 | head -1; true", "( exit 3 ); true"),
        ("X=1 | head -1; true", "( X=1 ); true"),
        ("make | tail -3; true", "make; true"),  # another process: nothing to isolate
        ("printf 'a\\n' | head -1; true", "printf 'a\\n'; true"),  # only prints
        ("(exit 3) | head -1; true", "(exit 3); true"),  # a subshell already
        ("cd sub | head -1", "cd sub"),  # nothing after it to notice
    ],
)
def test_a_lone_stage_that_could_change_the_shell_keeps_its_subshell(
    command: str, runs: str
) -> None:
    assert plan_command(command).render() == runs


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("{ (sleep 1; echo late) & echo now; } | tail -2", "in the background"),
        ("{ sleep 1; echo late; } > >(cat) | tail -2", "in the background"),
        ("seq 3 | tail -1 > t.txt; [ -s t.txt ]", "a test follows"),
        ("seq 3 | grep 2 >> t.txt; test -f t.txt", "a test follows"),
    ],
)
def test_what_a_real_pipe_would_wait_for_is_left_alone(command: str, rule: str) -> None:
    plan = plan_command(command)
    assert not plan.changed
    assert rule in plan.reason


def test_a_view_written_file_with_a_plain_statement_after_is_still_stripped() -> None:
    assert plan_command("seq 3 | tail -1 > t.txt; true").changed


def test_in_process_tail_cuts_lines_at_newlines_only() -> None:
    # bytes.splitlines would also cut at the \r of a progress bar
    view = plan_command("x | tail -1").views[0]
    assert in_process_view(view, b"10%\r50%\r100%\ndone\r\n") == b"done\r\n"
    assert in_process_view(view, b"a\rb\n") == b"a\rb\n"


@settings(max_examples=60, deadline=None)
@given(
    data=st.lists(st.sampled_from([b"a", b"\n", b"\r", b"\xc3\xa9"]), max_size=12).map(b"".join),
    view=st.sampled_from(["head -n", "tail -n", "tail -n +"]),
    count=st.integers(min_value=0, max_value=6),
)
def test_in_process_head_and_tail_print_what_the_tools_print(
    data: bytes, view: str, count: int
) -> None:
    text = f"{view}{count}" if view.endswith("+") else f"{view} {count}"
    plan_view = plan_command(f"x | {text}").views[0]
    assert plan_view.simple is not None
    done = subprocess.run(["bash", "-c", text], input=data, capture_output=True, check=True)
    assert in_process_view(plan_view, data) == done.stdout
