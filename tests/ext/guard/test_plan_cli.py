"""`pith guard plan 'COMMAND' [--json]`: explains the plan without running anything."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pith.cli._guard_command import run


def pith(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pith", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_json_shows_the_command_the_guard_runs_with_placeholders(tmp_path: Path) -> None:
    result = pith(
        "guard", "plan", "--json", 'cd app && echo "== build ==" && npm test | tail -12',
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "changed": True,
        "cleaned": "{ cd app && echo \"== build ==\"; } >> '<sink>' 2>&1 && "
        "{ npm test; } 9>'<marker>' 9>&-",
        "views": ["tail -12"],
        "reason": "strips the trailing view `tail -12`; hoists 1 statement before it into "
        "the side channel",
    }


def test_json_for_an_untouched_command_names_the_rule(tmp_path: Path) -> None:
    result = pith("guard", "plan", "--json", "yes | head -5", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["changed"] is False
    assert payload["cleaned"] == "yes | head -5"
    assert payload["views"] == []
    assert "unbounded producer" in payload["reason"]


def test_plain_output_explains_the_decision(tmp_path: Path) -> None:
    result = pith("guard", "plan", "make 2>&1 | grep -v ok | tail -3; true", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("changed: strips the trailing views `grep -v ok | tail -3`")
    assert "  runs:    make 2>&1; true" in lines
    assert "  view:    tail -3  (in-process tail)" in lines
    assert "  view:    grep -v ok  (through bash, fed on stdin)" in lines


def test_a_missing_command_is_a_usage_error(tmp_path: Path) -> None:
    result = pith("guard", "plan", cwd=tmp_path)
    assert result.returncode == 2
    assert "COMMAND" in result.stderr


# The same through `run` directly (these pass before `guard` is wired into `pith`).


def test_run_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["plan", "--json", "seq 5 | tail -n2"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "changed": True,
        "cleaned": "seq 5",
        "views": ["tail -n2"],
        "reason": "strips the trailing view `tail -n2`",
    }


def test_run_prints_why_a_command_is_untouched(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["plan", 'printf "a\\n" | grep nomatch; echo "R=$?"']) == 0
    assert capsys.readouterr().out.startswith("unchanged: a statement after the pipeline reads $?")


def test_run_shows_hoisted_statements_and_the_marker(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["plan", "echo hi && make | head -2"]) == 0
    out = capsys.readouterr().out
    assert "  hoisted: echo hi  (output kept in <sink>, shown before the view)" in out
    assert "  marker:  <marker> exists only if the pipeline ran" in out


def test_run_shows_the_after_channel_and_where_the_views_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(["plan", "cd logs && cat app.log | grep -f ../p.txt; cd .."]) == 0
    out = capsys.readouterr().out
    assert "  runs:    { cd logs; } >> '<sink>' 2>&1 && { cat app.log; } 9>'<marker>' 9>&-; " in out
    assert "{ cd ..; } >> '<after>' 2>&1" in out
    assert "  after:   <after> holds what the cd after the pipeline prints" in out
    assert "  views run in: logs (where the shell is when the pipeline starts)" in out
    assert run(["plan", "--json", "cd logs && cat app.log | grep -f ../p.txt"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["directory"] == "logs"
    assert run(["plan", "--json", "seq 5 | tail -n2; cd src"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["cleaned"] == "seq 5; { cd src; } >> '<after>' 2>&1"
    assert "directory" not in payload
