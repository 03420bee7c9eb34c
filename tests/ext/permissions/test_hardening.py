"""Decisions found wrong by an outside attack on the permission system, each pinned: control
paths, pith's own CLI, scripts, privilege, layers that narrow, approvals and run-time paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pith.ext.permissions import (
    PermissionLayer,
    Situation,
    build_ruleset,
    decide,
)
from pith.ext.permissions._bash_argv import Unknown
from pith.ext.permissions._bash_controls import pith_arguments, pith_changes_controls
from pith.ext.permissions._control import control_area, names_area
from pith.ext.permissions._paths import path_forms

HOME = "/home/ann"
DENY_RM = {"*": "allow", "bash": {"*": "allow", "rm *": "deny"}}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "x").write_text("keep\n")
    return root


def decide_in(
    project: Path, user: object, tool: str, project_rules: object = None, **arguments: object
) -> tuple[str, str]:
    layers = [PermissionLayer("user.json", user)]
    if project_rules is not None:
        layers.append(PermissionLayer("project.json", project_rules, project=True))
    situation = Situation(str(project), HOME, agent_dir=f"{HOME}/.pith/agent")
    decision = decide(build_ruleset(layers, HOME), tool, arguments, situation)
    note = decision.finding.note if decision.finding and decision.finding.note else ""
    return decision.state, note


def bash(project: Path, user: object, command: str, project_rules: object = None) -> str:
    return decide_in(project, user, "bash", project_rules, command=command)[0]


# --- control paths ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "area"),
    [
        (".pith/settings.json", ".pith"),
        ("sub/.pith/extensions/a.py", ".pith"),
        (".git/hooks/pre-push", ".git/hooks"),
        (".git/config", ".git/config"),
        (".envrc", ".envrc"),
        (".vscode/tasks.json", ".vscode"),
        (f"{HOME}/.pith/agent/trust.json", "agent dir"),
        # start-up caches whose contents pith runs or loads: compiled code, entry points
        (f"{HOME}/.pith/agent/cache/dataclass-code.cpython-311.marshal", "agent dir"),
        (f"{HOME}/.pith/agent/cache/entry-points.json", "agent dir"),
        (f"{HOME}/.gitconfig", "~/.gitconfig"),
    ],
)
def test_control_areas_are_found(project: Path, path: str, area: str) -> None:
    forms = path_forms(path, str(project), HOME)
    found = control_area(forms, home=HOME, agent_dir=f"{HOME}/.pith/agent")
    assert found is not None
    assert found.key == area


@pytest.mark.parametrize("path", ["AGENTS.md", "CLAUDE.md", "src/.envrc.example", "git/config"])
def test_ordinary_files_are_not_control_paths(project: Path, path: str) -> None:
    forms = path_forms(path, str(project), HOME)
    assert control_area(forms, home=HOME, agent_dir=f"{HOME}/.pith/agent") is None


def test_a_link_to_a_control_path_is_one(project: Path) -> None:
    (project / ".pith").mkdir()
    (project / "innocent.json").symlink_to(project / ".pith" / "settings.json")
    forms = path_forms("innocent.json", str(project), HOME)
    assert control_area(forms, home=HOME) is not None
    assert decide_in(project, DENY_RM, "write", path="innocent.json", content="{}")[0] == "ask"


@pytest.mark.parametrize(
    ("pattern", "named"),
    [("*", False), ("**", False), ("src/*", False), (".pith/settings.json", True),
     ("**/.envrc", False), (".git/hooks/*", True)],
)  # fmt: skip
def test_only_a_pattern_that_names_the_area_unlocks_it(
    project: Path, pattern: str, named: bool
) -> None:
    forms = path_forms(".pith/settings.json", str(project), HOME)
    area = control_area(forms, home=HOME)
    assert area is not None
    if pattern.startswith(".git"):
        forms = path_forms(".git/hooks/pre-commit", str(project), HOME)
        area = control_area(forms, home=HOME)
        assert area is not None
    assert names_area(pattern, area, cwd=str(project), home=HOME) is named


def test_write_allow_does_not_unlock_but_a_named_rule_does(project: Path) -> None:
    broad = {"*": "allow", "write": "allow"}
    assert decide_in(project, broad, "write", path=".pith/x.py", content="")[0] == "ask"
    named = {"*": "allow", "write": {".pith/x.py": "allow"}}
    assert decide_in(project, named, "write", path=".pith/x.py", content="")[0] == "allow"


def test_a_project_rule_never_unlocks_a_control_path(project: Path) -> None:
    rules = {"write": {".pith/settings.json": "allow"}}
    state, _ = decide_in(project, DENY_RM, "write", rules, path=".pith/settings.json", content="{}")
    assert state == "ask"


def test_a_deny_on_a_control_path_stays_a_deny(project: Path) -> None:
    rules = {"*": "allow", "write": {".pith/*": "deny"}}
    assert decide_in(project, rules, "write", path=".pith/a", content="")[0] == "deny"


def test_reading_a_control_path_is_not_asked(project: Path) -> None:
    assert decide_in(project, DENY_RM, "read", path=".pith/settings.json")[0] == "allow"
    assert bash(project, DENY_RM, "cat .git/config") == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "echo x > .pith/settings.json",
        "sed -i s/a/b/ .git/config",
        "mv hook .git/hooks/pre-commit",
        "rm -rf .pith",
        "git config core.fsmonitor 'rm x'",
        "git -C sub config core.hooksPath /tmp/h",
        "git config --global core.pager 'sh -c x'",
        "git -c core.fsmonitor=x status",
        "git -c alias.x='!rm y' x",
    ],
)
def test_bash_changes_to_controls_ask(project: Path, command: str) -> None:
    assert bash(project, DENY_RM, command) in ("ask", "deny")


@pytest.mark.parametrize(
    "command",
    ["git config user.name", "git config --get core.editor", "git config -l", "git status"],
)
def test_git_reads_stay_allowed(project: Path, command: str) -> None:
    assert bash(project, DENY_RM, command) == "allow"


# --- pith's own CLI --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "own"),
    [
        (["pith", "trust"], ["trust"]),
        (["/v/bin/pith", "-p", "x"], ["-p", "x"]),
        (["python3", "-m", "pith", "trust"], ["trust"]),
        (["python3.11", "-mpith", "tool"], ["tool"]),
        (["uv", "run", "pith", "trust"], ["trust"]),
        (["python", "-c", "print(1)"], None),
        (["python", "-c", "import pith"], [Unknown("<python -c>")]),
        (["pithy"], None),
    ],
)
def test_pith_is_recognized_however_it_is_run(argv: list[str], own: list[str] | None) -> None:
    assert pith_arguments(argv) == own


@pytest.mark.parametrize(
    ("arguments", "changes"),
    [
        (["trust"], False),
        (["trust", "--yes"], True),
        (["trust", "--forget"], True),
        (["sessions"], False),
        (["permissions", "check", "--tool", "read"], False),
        (["context", "-e", "x.py"], True),
        (["--version"], False),
        (["tool", "read", "{}"], True),
        (["-p", "hello"], True),
        (["-a", "sessions"], True),
    ],
)
def test_which_pith_commands_change_controls(arguments: list[str], changes: bool) -> None:
    assert (pith_changes_controls(arguments) is not None) is changes


def test_a_rule_naming_pith_allows_it(project: Path) -> None:
    rules = {"*": "allow", "bash": {"*": "allow", "pith trust *": "allow"}}
    assert bash(project, rules, "pith trust --yes") == "allow"
    assert bash(project, DENY_RM, "pith trust --yes") == "ask"


# --- scripts ---------------------------------------------------------------------------------


def test_a_script_file_that_cannot_be_read_asks(project: Path) -> None:
    assert bash(project, DENY_RM, "bash missing.sh") == "ask"
    (project / "bin.sh").write_bytes(b"\x00\x01binary")
    assert bash(project, DENY_RM, "sh bin.sh") == "ask"


def test_a_script_runs_in_the_folder_it_is_called_from(project: Path) -> None:
    (project / "sub").mkdir()
    (project / "sub" / "s.sh").write_text("rm x\n")
    assert bash(project, DENY_RM, "bash sub/s.sh") == "deny"
    assert bash(project, DENY_RM, "cd sub && bash s.sh") == "deny"


def test_a_nested_script_is_judged_too(project: Path) -> None:
    (project / "a.sh").write_text("bash b.sh\n")
    (project / "b.sh").write_text("rm x\n")
    assert bash(project, DENY_RM, "bash a.sh") == "deny"


def test_a_program_for_another_interpreter_is_a_plain_command(project: Path) -> None:
    script = project / "tool.py"
    script.write_text("#!/usr/bin/env python3\nprint('rm x')\n")
    os.chmod(script, 0o755)
    assert bash(project, DENY_RM, "./tool.py") == "allow"


# --- privilege -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    ["sudo apt-get install -y jq", "doas ls", "su -c 'ls'", "pkexec ls", "runuser -u a ls"],
)
def test_privilege_asks_under_the_default_config(project: Path, command: str) -> None:
    assert bash(project, {}, command) == "ask"


def test_privilege_denied_inside_stays_denied(project: Path) -> None:
    assert bash(project, DENY_RM, "sudo rm -rf /x") == "deny"


# --- layers narrow, never widen --------------------------------------------------------------


def test_a_project_allow_does_not_weaken_a_user_deny(project: Path) -> None:
    assert bash(project, DENY_RM, "rm x", {"bash": {"rm *": "allow"}}) == "deny"
    assert bash(project, DENY_RM, "rm -rf x", {"bash": {"rm -rf *": "allow"}}) == "deny"
    assert bash(project, DENY_RM, "rm x", {"bash": "allow"}) == "deny"


def test_a_project_allow_does_not_weaken_a_user_ask(project: Path) -> None:
    user = {"*": "allow", "bash": {"*": "allow", "git push *": "ask"}}
    assert bash(project, user, "git push", {"bash": {"git push *": "allow"}}) == "ask"


def test_a_project_may_narrow_and_allow_what_only_defaults_ask(project: Path) -> None:
    assert bash(project, DENY_RM, "npm i", {"bash": {"npm *": "deny"}}) == "deny"
    outside = str(project.parent / "lib" / "a")
    rules = {"external_directory": {f"{project.parent}/lib/*": "allow"}}
    assert decide_in(project, {}, "read", rules, path=outside)[0] == "allow"


# --- approvals and paths known at run time ---------------------------------------------------


def test_a_trailing_slash_approves_that_folder(project: Path) -> None:
    layers = [PermissionLayer("user.json", {})]
    situation = Situation(str(project), HOME)
    decision = decide(build_ruleset(layers, HOME), "ls", {"path": "/other/project/src/"}, situation)
    approve = {pattern for finding in decision.asks for _, pattern in finding.approve}
    assert approve == {"/other/project/src/*"}


@pytest.mark.parametrize("command", ["cat $(echo /etc/hosts)", 'cd "$DIR" && cat ../x'])
def test_run_time_paths_ask_under_an_outside_deny(project: Path, command: str) -> None:
    assert bash(project, {"external_directory": "deny"}, command) == "ask"
    assert bash(project, {"external_directory": {"/etc/*": "deny"}}, command) == "ask"
    assert bash(project, {}, command) == "allow"


def test_a_run_time_read_is_judged_on_read_rules_only(project: Path) -> None:
    rules = {"*": "allow", "bash": "allow", "write": {"*": "allow", "*.lock": "deny"}}
    assert bash(project, rules, 'cat "$F"') == "allow"
    assert bash(project, rules, 'echo x > "$F"') == "ask"
    assert bash(project, {**rules, "read": {"*.env": "deny"}}, 'cat "$F"') == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "cp -r evil/.pith .",
        "cp evil/settings.json .pith/",
        "mv evil/.envrc .",
        "rsync -a evil/ .",
        "cp -r evil/. .",
        "cd .git/hooks && cp /dev/null pre-commit",
        "ln -s .pith/settings.json innocent.json",
        "echo x > .PITH/settings.json",
    ],
)
def test_copies_into_a_folder_reach_control_paths(project: Path, command: str) -> None:
    evil = project / "evil"
    (evil / ".pith").mkdir(parents=True)
    (evil / "settings.json").write_text("{}")
    (evil / ".envrc").write_text("rm x")
    (project / ".pith").mkdir()
    (project / ".git" / "hooks").mkdir(parents=True)
    assert bash(project, DENY_RM, command) == "ask"


def test_python_code_that_imports_pith_asks(project: Path) -> None:
    command = "python3 -c 'from pith.cli import main; main()' trust --yes"
    assert bash(project, DENY_RM, command) == "ask"
    assert bash(project, DENY_RM, "python3 -c 'print(1)'") == "allow"
