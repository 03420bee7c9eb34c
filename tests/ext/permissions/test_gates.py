"""Decisions for whole tool calls: the gates together, and the bypasses reported against other
agents' permission systems — a rule that denies something must deny it whichever way the call
is phrased, and benign commands must stay allowed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pith.ext.permissions import PermissionLayer, Ruleset, Situation, build_rules, decide

HOME = "/home/ann"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("print(1)\n")
    (root / "sub").mkdir()
    (root / ".env").write_text("SECRET=1\n")
    (root / "README.md").write_text("hi\n")
    return root


def rules(section: object) -> Ruleset:
    return Ruleset(build_rules([PermissionLayer("settings.json", section)]), HOME)


def state(section: object, tool: str, cwd: Path, **arguments: object) -> str:
    decision = decide(rules(section), tool, arguments, Situation(str(cwd), HOME))
    return decision.state


def bash(section: object, command: str, cwd: Path) -> str:
    return state(section, "bash", cwd, command=command)


RM_DENIED = {"bash": {"*": "allow", "rm *": "deny"}}


# --- compound commands and nesting ------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf build",
        "echo ok && rm -rf build",
        "ls; rm -rf build",
        "true || rm -rf build",
        "cat x | rm -rf build",
        "sleep 1 & rm -rf build",
        "(rm -rf build)",
        "{ rm -rf build; }",
        "echo $(rm -rf build)",
        "echo `rm -rf build`",
        "diff <(rm -rf build) x",
        "X=$(rm -rf build) true",
        "if true; then rm -rf build; fi",
        "for f in a; do rm -rf $f; done",
        "f() { rm -rf build; }; f",
        "r''m -rf build",
        "\\rm -rf build",
        '"rm" -rf build',
        "$'\\x72m' -rf build",
        "/bin/rm -rf build",
        "sudo rm -rf build",
        "env rm -rf build",
        "timeout 5 rm -rf build",
        "xargs rm -rf < list",
        "nohup rm -rf build",
    ],
)
def test_a_denied_command_is_denied_however_it_is_written(project: Path, command: str) -> None:
    assert bash(RM_DENIED, command, project) == "deny", command


@pytest.mark.parametrize(
    "command",
    [
        "bash -c 'echo hi'",
        "sh -c 'ls'",
        "eval ls",
        "echo ls | sh",
        "$UNSET_COMMAND arg",
        "$(echo ls)",
        "find . -exec cat {} \\;",
    ],
)
def test_wrappers_and_hidden_commands_are_never_allowed_without_asking(
    project: Path, command: str
) -> None:
    assert bash({"bash": "allow"}, command, project) == "ask", command


def test_an_explicit_deny_on_a_wrapper_stays_a_deny(project: Path) -> None:
    assert bash({"bash": {"*": "allow", "sudo *": "deny"}}, "sudo ls", project) == "deny"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("X=`touch /tmp/p` npm --version", "ask"),
        ("FOO[$(id)]=1 ls", "ask"),
        ("A=1 npm --version", "allow"),
    ],
)
def test_assignment_values_are_judged(project: Path, command: str, expected: str) -> None:
    section = {"bash": {"*": "ask", "npm --version": "allow", "ls": "allow", "ls *": "allow"}}
    assert bash(section, command, project) == expected, command


@pytest.mark.parametrize(
    "command",
    ['echo "rm -rf /"', "grep -r sudo .", "echo 'eval is evil'", "# rm -rf /"],
)
def test_benign_commands_stay_allowed(project: Path, command: str) -> None:
    section = {"bash": {"*": "allow", "rm *": "deny", "sudo *": "deny", "eval *": "deny"}}
    assert bash(section, command, project) == "allow", command


def test_an_unparseable_command_asks(project: Path) -> None:
    assert bash({"bash": "allow"}, "echo 'unterminated", project) == "ask"


# --- file rules reach bash ----------------------------------------------------------------------

ENV_DENIED = {"read": {"*.env": "deny"}}


@pytest.mark.parametrize(
    "command",
    [
        "cat .env",
        "cat < .env",
        "cp .env README.md",
        "head -1 ./.env",
        "cat $PWD/.env",
        "cd sub && cat ../.env",
        "F=.env; cat $F",
        "cat .en?",
        "grep SECRET .env",
        "source .env",
    ],
)
def test_a_read_deny_covers_reading_through_bash(project: Path, command: str) -> None:
    assert bash(ENV_DENIED, command, project) == "deny", command
    assert state(ENV_DENIED, "read", project, path=".env") == "deny"


def test_writing_through_bash_is_judged_by_write_rules(project: Path) -> None:
    section = {"write": {"*.lock": "deny"}, "edit": {"*.lock": "deny"}}
    for command in ("echo x > poetry.lock", "tee poetry.lock < x", "cp a poetry.lock"):
        assert bash(section, command, project) == "deny", command
    assert bash(section, "cat poetry.lock", project) == "allow"


def test_a_redirect_to_a_denied_path_is_denied(project: Path) -> None:
    assert bash({"path": {"*.env": "deny"}}, "echo test > .env", project) == "deny"


def test_the_global_fallback_does_not_make_every_cat_ask(project: Path) -> None:
    assert bash({"*": "ask", "bash": "allow"}, "cat README.md", project) == "allow"


def test_a_path_only_known_at_run_time_asks_only_when_paths_have_rules(project: Path) -> None:
    assert bash(ENV_DENIED, "cat $SOMEFILE", project) == "ask"
    assert bash({}, "cat $SOMEFILE", project) == "allow"


def test_prefixing_cd_or_a_subshell_never_weakens_a_decision(project: Path) -> None:
    sections = [RM_DENIED, ENV_DENIED, {"bash": {"*": "ask", "ls *": "allow"}}]
    commands = ["rm -rf x", "cat .env", "ls", "ls src", "echo hi"]
    order = {"allow": 0, "ask": 1, "deny": 2}
    for section in sections:
        for command in commands:
            plain = bash(section, command, project)
            for variant in (f"cd sub && {command}", f"( {command} )", f"cd . && ( {command} )"):
                changed = bash(section, variant, project)
                assert order[changed] >= order[plain], (section, command, variant)


# --- outside the working directory --------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "echo hi > /tmp/out",
        "env >> ~/.ssh/authorized_keys",
        "cat ../../etc/passwd",
        "cd /etc && cat passwd",
        "ls /",
    ],
)
def test_bash_paths_outside_ask(project: Path, command: str) -> None:
    assert bash({"bash": "allow"}, command, project) == "ask", command


def test_an_allowed_command_pattern_does_not_skip_the_outside_gate(project: Path) -> None:
    assert bash({"bash": {"ls*": "allow"}}, "ls /etc", project) == "ask"


def test_dev_null_is_not_outside(project: Path) -> None:
    assert bash({"bash": "allow"}, "make 2>/dev/null", project) == "allow"


def test_a_symlink_escape_is_outside_and_shows_the_target(tmp_path: Path, project: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("x")
    os.symlink(outside, project / "vendor")
    decision = decide(
        rules({}), "read", {"path": "vendor/notes.txt"}, Situation(str(project), HOME)
    )
    assert decision.state == "ask"
    assert decision.finding is not None
    assert decision.finding.gate == "external_directory"
    assert str(outside / "notes.txt") in (decision.finding.note or "")


def test_dotdot_escapes_are_outside(project: Path) -> None:
    assert state({}, "read", project, path="src/../../x") == "ask"
    assert state({}, "read", project, path="src/../README.md") == "allow"


def test_outside_reads_can_be_allowed_by_folder(project: Path, tmp_path: Path) -> None:
    section = {"external_directory": {f"{tmp_path}/lib/*": "allow"}}
    assert state(section, "read", project, path=str(tmp_path / "lib" / "x.py")) == "allow"
    assert state(section, "read", project, path=str(tmp_path / "other.py")) == "ask"


def test_reads_of_pith_s_own_folders_are_not_outside(project: Path, tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    situation = Situation(str(project), HOME, (str(agent),))
    read = decide(rules({}), "read", {"path": str(agent / "skills" / "x.md")}, situation)
    write = decide(rules({}), "write", {"path": str(agent / "skills" / "x.md")}, situation)
    assert read.state == "allow"
    assert write.state == "ask"


# --- per-tool path patterns ---------------------------------------------------------------------


def test_reading_src_under_a_deny_everything_rule(project: Path) -> None:
    section = {"read": {"*": "deny", "src/*": "allow"}}
    assert state(section, "read", project, path="src/a.py") == "allow"
    assert state(section, "read", project, path="./src/a.py") == "allow"
    assert state(section, "read", project, path=str(project / "src" / "a.py")) == "allow"
    assert state(section, "read", project, path="README.md") == "deny"


def test_a_path_deny_cannot_be_overridden_by_a_tool_allow(project: Path) -> None:
    section = {"path": {"*.env": "deny"}, "read": "allow"}
    assert state(section, "read", project, path=".env") == "deny"


def test_a_tool_without_a_path_is_judged_on_star(project: Path) -> None:
    assert state({"grep": {"*": "ask"}}, "grep", project, pattern="x") == "ask"
    assert state({"my_tool": "deny"}, "my_tool", project) == "deny"


def test_skills_can_be_denied(project: Path, tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "deploy"
    situation = Situation(str(project), HOME, (str(tmp_path / "skills"),), {"deploy": str(skill)})
    decision = decide(
        rules({"skill": {"deploy": "deny"}}), "read", {"path": str(skill / "SKILL.md")}, situation
    )
    assert decision.state == "deny"
    assert decision.finding is not None
    assert decision.finding.gate == "skill"


def test_the_deciding_rule_and_its_reason_are_reported(project: Path) -> None:
    section = {"bash": {"npm *": {"action": "deny", "reason": "Use pnpm instead."}}}
    decision = decide(
        rules(section), "bash", {"command": "npm install"}, Situation(str(project), HOME)
    )
    assert decision.finding is not None
    assert decision.finding.rule is not None
    assert decision.finding.rule.reason == "Use pnpm instead."
    assert decision.finding.to_json()["reason"] == "Use pnpm instead."


@pytest.mark.parametrize("command", ["timeout 60 pytest", "env CI=1 make", "nice -n 5 ls"])
def test_visible_wrappers_are_allowed_when_bash_is_not_restricted(
    project: Path, command: str
) -> None:
    assert bash({}, command, project) == "allow"
    assert bash({"bash": "allow"}, command, project) == "ask"


def test_hidden_commands_ask_even_when_nothing_is_restricted(project: Path) -> None:
    assert bash({}, "eval ls", project) == "ask"
    assert bash({}, 'bash -c "$SCRIPT"', project) == "ask"
