"""MCP tools (`mcp__<server>__<tool>`) in the permission system: their own surface, the `mcp`
surface on `server:tool` and `server`, `*` — the most specific rule speaks — and the paths
their arguments name, judged like a file tool's, pith's control files included."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pith.ext.permissions import (
    Decision,
    PermissionLayer,
    Ruleset,
    Situation,
    build_rules,
    build_ruleset,
    decide,
    describe_decision,
)
from pith.ext.permissions._path_arguments import path_arguments

HOME = "/home/ann"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("print(1)\n")
    (root / "build").mkdir()
    return root


def rules(section: object) -> Ruleset:
    return Ruleset(build_rules([PermissionLayer("settings.json", section)]), HOME)


def judge(
    section: object,
    tool: str,
    cwd: Path | str = "/work/p",
    agent_dir: str | None = None,
    /,
    **args: object,
) -> Decision:
    situation = Situation(str(cwd), HOME, agent_dir=agent_dir)
    return decide(rules(section), tool, args, situation)


def state(section: object, tool: str, **args: object) -> str:
    return judge(section, tool, **args).state


# --- which rule speaks ----------------------------------------------------------------------


def test_a_tools_full_name_is_a_surface() -> None:
    section = {"mcp__git__git_commit": "deny"}
    assert state(section, "mcp__git__git_commit") == "deny"
    assert state(section, "mcp__git__git_status") == "allow"


def test_the_mcp_surface_judges_server_and_tool() -> None:
    section = {"mcp": {"*": "allow", "git:git_commit*": "ask"}}
    assert state(section, "mcp__git__git_commit") == "ask"
    assert state(section, "mcp__git__git_commit_amend") == "ask"
    assert state(section, "mcp__git__git_status") == "allow"
    assert state(section, "mcp__jira__git_commit") == "allow"


@pytest.mark.parametrize("pattern", ["git", "git:*"])
def test_one_server_denied_entirely(pattern: str) -> None:
    section = {"mcp": {pattern: "deny"}}
    assert state(section, "mcp__git__git_status") == "deny"
    assert state(section, "mcp__git__git_commit") == "deny"
    assert state(section, "mcp__github__get_issue") == "allow"


def test_the_mcp_surface_comes_before_the_star_surface() -> None:
    section = {"*": "ask", "mcp": {"git": "allow"}}
    assert state(section, "mcp__git__git_commit") == "allow"
    assert state(section, "mcp__jira__create_issue") == "ask"


def test_a_tools_own_rule_beats_the_mcp_surface() -> None:
    section = {"mcp": {"git": "deny"}, "mcp__git__git_status": "allow"}
    assert state(section, "mcp__git__git_status") == "allow"
    assert state(section, "mcp__git__git_commit") == "deny"


def test_within_the_mcp_surface_the_last_matching_pattern_wins() -> None:
    section = {"mcp": {"git": "deny", "git:git_status": "allow"}}
    assert state(section, "mcp__git__git_status") == "allow"
    assert state(section, "mcp__git__git_log") == "deny"
    section = {"mcp": {"git:git_status": "allow", "git": "deny"}}
    assert state(section, "mcp__git__git_status") == "deny"


def test_configured_names_match_the_model_facing_ones() -> None:
    # `my-server`'s `get.item` reaches the model as mcp__my_server__get_item.
    section = {"mcp": {"my-server:get.item": "deny"}}
    assert state(section, "mcp__my_server__get_item") == "deny"
    assert state({"mcp": {"my-server": "ask"}}, "mcp__my_server__get_item") == "ask"


def test_the_decision_names_the_mcp_rule() -> None:
    decision = judge({"mcp": {"*": "allow", "git:git_commit*": "ask"}}, "mcp__git__git_commit")
    assert decision.finding is not None
    assert decision.finding.surface == "mcp"
    assert decision.finding.value == "git:git_commit"
    text = describe_decision(decision)
    assert text.startswith("ask: the MCP tool 'git:git_commit'")
    assert 'mcp["git:git_commit*"]=ask' in text
    # Allowing it again is allowing the tool itself: the most specific surface.
    assert decision.finding.approve == (("mcp__git__git_commit", "*"),)


def test_names_that_are_not_mcp_tools_are_plain_tools() -> None:
    section = {"mcp": {"*": "deny"}}
    assert state(section, "mcp__nothing") == "allow"
    assert state(section, "mcp____x") == "allow"
    # A tool named `mcp` itself is judged on its own surface, as any tool.
    assert state(section, "mcp") == "deny"


def test_a_server_denied_outright_leaves_the_tool_list() -> None:
    ruleset = rules({"mcp": {"git": "deny", "git:git_status": "allow"}})
    assert ruleset.tool_state("mcp__git__git_commit") == "deny"
    assert ruleset.tool_state("mcp__git__git_status") == "allow"
    assert rules({"mcp": {"git:git_push": "ask"}}).tool_state("mcp__git__git_push") == "ask"


def layered(user: object, project: object) -> Ruleset:
    return build_ruleset(
        [
            PermissionLayer("user.json", user),
            PermissionLayer("project.json", project, project=True),
        ],
        HOME,
    )


def project_state(user: object, project: object, tool: str) -> str:
    return decide(layered(user, project), tool, {}, Situation("/work/p", HOME)).state


def test_a_project_cannot_widen_the_users_mcp_rules() -> None:
    # The project's more specific allow does not undo the user's deny of the server.
    user = {"mcp": {"git": "deny"}}
    assert project_state(user, {"mcp__git__git_status": "allow"}, "mcp__git__git_status") == "deny"
    assert project_state({"*": "ask"}, {"mcp": {"*": "allow"}}, "mcp__git__x") == "ask"
    assert project_state({"mcp": {"git:x": "ask"}}, {"mcp": "allow"}, "mcp__git__x") == "ask"


def test_a_project_may_narrow_the_users_mcp_rules() -> None:
    user = {"mcp": {"git": "allow"}}
    assert project_state(user, {"mcp": {"git:git_push": "deny"}}, "mcp__git__git_push") == "deny"
    assert project_state(user, {"mcp": {"git:git_push": "deny"}}, "mcp__git__git_log") == "allow"


# --- paths in the arguments -----------------------------------------------------------------


def test_an_outside_path_argument_asks(project: Path) -> None:
    decision = judge({}, "mcp__git__git_status", project, repo_path="/etc")
    assert decision.state == "ask"
    assert decision.finding is not None
    assert decision.finding.gate == "external_directory"
    assert "the argument repo_path" in (decision.finding.note or "")
    assert judge({}, "mcp__git__git_status", project, repo_path=str(project)).state == "allow"


def test_an_inside_path_argument_is_allowed(project: Path) -> None:
    assert judge({}, "mcp__fs__read_file", project, path="src/a.py").state == "allow"
    assert judge({}, "mcp__fs__read_file", project, path=str(project / "src")).state == "allow"


def test_outside_rules_allow_path_arguments(project: Path) -> None:
    section = {"external_directory": {"/etc/*": "allow"}}
    assert judge(section, "mcp__fs__read_file", project, path="/etc/hosts").state == "allow"
    assert judge(section, "mcp__fs__read_file", project, path="/var/x").state == "ask"


@pytest.mark.parametrize(
    "args",
    [
        {"path": "/etc/hosts"},
        {"file_path": "/etc/hosts"},
        {"filePath": "/etc/hosts"},
        {"filename": "/etc/hosts"},
        {"file": "../outside.txt"},
        {"directory": "/etc"},
        {"dir": "/etc"},
        {"cwd": "/etc"},
        {"folder": "/etc"},
        {"root": "/etc"},
        {"target": "/etc/hosts"},
        {"output_dir": "/tmp/out"},
        {"config_file": "~/.ssh/config"},
        {"log_directory": "/var/log"},
        {"paths": ["src/a.py", "/etc/hosts"]},
        {"files": [{"path": "/etc/hosts", "content": "x"}]},
        {"uri": "file:///etc/hosts"},
        {"path": "file:///etc/hosts"},
        {"path": "file:/etc/hosts"},
        {"options": {"repo_path": "/etc"}},
    ],
)
def test_path_like_arguments_go_through_the_outside_gate(
    project: Path, args: dict[str, object]
) -> None:
    decision = judge({}, "mcp__fs__tool", project, **args)
    assert decision.state == "ask", args
    assert decision.finding is not None
    assert decision.finding.gate == "external_directory"


@pytest.mark.parametrize(
    "args",
    [
        {"query": "/etc/hosts"},
        {"content": "/etc/hosts"},
        {"url": "https://example.com/etc/hosts"},
        {"path": "https://example.com/etc/hosts"},
        {"target": "production"},
        {"root": "main"},
        {"source": "print(a / b)"},
        {"path": ""},
        {"path": 5},
        {"is_dir": True},
        {"message": "update /etc/hosts"},
    ],
)
def test_other_arguments_are_no_paths(project: Path, args: dict[str, object]) -> None:
    assert judge({}, "mcp__fs__tool", project, **args).state == "allow", args


def test_a_loose_name_names_an_existing_file(project: Path) -> None:
    # `target: build` is a path when `build` exists: judged, and inside.
    decision = judge({"path": {"build": "deny"}}, "mcp__make__run", project, target="build")
    assert decision.state == "deny"
    assert (
        judge({"path": {"deploy": "deny"}}, "mcp__make__run", project, target="deploy").state
        == "allow"
    )


def test_path_rules_judge_path_arguments(project: Path) -> None:
    section = {"path": {"*.env": "deny"}}
    decision = judge(section, "mcp__fs__read_file", project, path="prod.env")
    assert decision.state == "deny"
    assert decision.finding is not None
    assert decision.finding.gate == "path"
    assert judge(section, "mcp__fs__read_file", project, paths=["a.txt", "x/.env"]).state == "deny"


def test_a_path_deny_beats_an_mcp_allow(project: Path) -> None:
    section = {"mcp": {"fs": "allow"}, "path": {"secrets/": "deny"}}
    assert judge(section, "mcp__fs__read_file", project, path="secrets/key").state == "deny"


def test_too_many_paths_ask(project: Path) -> None:
    paths = [f"src/{n}.py" for n in range(300)]
    decision = judge({}, "mcp__fs__read_files", project, paths=paths)
    assert decision.state == "ask"
    assert judge({}, "mcp__fs__read_files", project, paths=paths[:200]).state == "allow"


# --- pith's control files -------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [".pith/settings.json", ".pith/mcp.json", "sub/.pith/extensions/x.py", ".git/hooks/pre-commit"],
)
def test_a_control_path_argument_asks_like_write(project: Path, path: str) -> None:
    section = {"*": "allow", "mcp": {"*": "allow"}}
    as_mcp = judge(section, "mcp__fs__write_file", project, path=path, content="{}")
    as_write = judge(section, "write", project, path=path, content="{}")
    assert as_mcp.state == as_write.state == "ask"
    assert as_mcp.finding is not None
    assert as_write.finding is not None
    assert as_mcp.finding.gate == as_write.finding.gate == "control"
    assert as_mcp.finding.approve == (("write", str(project / path)),)


def test_the_agent_dir_is_a_control_path_for_mcp_tools(project: Path, tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    target = str(agent / "settings.json")
    section = {"*": "allow", "external_directory": "allow"}
    decision = judge(section, "mcp__fs__write_file", project, str(agent), path=target)
    assert decision.state == "ask"
    assert decision.finding is not None
    assert decision.finding.gate == "control"


def test_a_user_rule_naming_the_control_path_allows_it(project: Path) -> None:
    section = {"write": {".pith/settings.json": "allow"}}
    assert (
        judge(section, "mcp__fs__write_file", project, path=".pith/settings.json").state == "allow"
    )
    assert (
        judge({"write": "allow"}, "mcp__fs__write_file", project, path=".pith/settings.json").state
        == "ask"
    )


def test_a_project_rule_never_unlocks_a_control_path(project: Path) -> None:
    ruleset = layered({}, {"write": {".pith/settings.json": "allow"}})
    decision = decide(
        ruleset,
        "mcp__fs__write_file",
        {"path": ".pith/settings.json"},
        Situation(str(project), HOME),
    )
    assert decision.state == "ask"


# --- other extension tools ------------------------------------------------------------------


def test_an_extension_tools_schema_says_which_arguments_count(project: Path) -> None:
    schema = {"type": "object", "properties": {"query": {"type": "string"}}}
    situation = Situation(str(project), HOME)
    # An argument the schema does not declare is not the tool's: not judged.
    assert (
        decide(
            rules({}), "search", {"query": "x", "path": "/etc"}, situation, parameters=schema
        ).state
        == "allow"
    )
    declared = {"type": "object", "properties": {"path": {"type": "string"}}}
    assert (
        decide(rules({}), "search", {"path": "/etc"}, situation, parameters=declared).state == "ask"
    )
    # No schema known (`pith permissions check`): every argument is read.
    assert decide(rules({}), "search", {"path": "/etc"}, situation).state == "ask"
    # An MCP server may read what its schema does not declare: every argument is read.
    assert (
        decide(rules({}), "mcp__s__t", {"path": "/etc"}, situation, parameters=schema).state
        == "ask"
    )


def test_no_path_no_outside_question(project: Path) -> None:
    assert os.path.isdir(project)
    assert (
        judge({}, "mcp__time__get_current_time", project, timezone="Europe/Paris").state == "allow"
    )


# --- the cookbook entries of docs/permissions.md --------------------------------------------


def test_cookbook_allow_one_server_entirely(project: Path) -> None:
    section = {"mcp": {"*": "ask", "github": "allow"}}
    assert judge(section, "mcp__github__create_issue", project, title="x").state == "allow"
    assert judge(section, "mcp__jira__create_issue", project, title="x").state == "ask"
    # The path rules still speak for its path arguments.
    decision = judge(section, "mcp__github__push_files", project, files=[{"path": "/etc/x"}])
    assert decision.state == "ask"


def test_cookbook_ask_before_destructive_tools() -> None:
    section = {
        "mcp": {
            "git": "ask",
            "git:git_status": "allow",
            "git:git_diff*": "allow",
            "git:git_log": "allow",
            "git:git_show": "allow",
        }
    }
    for tool in ("git_status", "git_diff_staged", "git_log", "git_show"):
        assert state(section, f"mcp__git__{tool}") == "allow", tool
    for tool in ("git_commit", "git_reset", "git_checkout", "git_add"):
        assert state(section, f"mcp__git__{tool}") == "ask", tool
    section = {
        "mcp": {
            "git": "allow",
            "git:git_commit": "ask",
            "git:git_reset": "ask",
            "git:git_push*": "deny",
        }
    }
    assert state(section, "mcp__git__git_status") == "allow"
    assert state(section, "mcp__git__git_reset") == "ask"
    assert state(section, "mcp__git__git_push_tags") == "deny"


# --- the argument reader on its own ---------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["path", "paths", "query", "x", "cwd", "uri"]), inner, max_size=4
        )
    ),
    max_leaves=20,
)


def strings_in(value: object) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(strings_in(v) for v in value))
    return set()


@given(st.dictionaries(st.sampled_from(["path", "files", "q", "root"]), JSON, max_size=4))
def test_the_reader_takes_only_strings_it_was_given(arguments: dict[str, object]) -> None:
    found, too_many = path_arguments(arguments, declared=None, exists=lambda _: False)
    assert not too_many
    assert {item.value for item in found} <= strings_in(arguments)
    assert all(item.value.strip() for item in found)


@pytest.mark.parametrize(
    ("name", "counts"),
    [
        ("filePaths", True),
        ("outputDirs", True),
        ("workingDirectory", True),
        ("sourceFiles", True),
        ("file-name", True),
        ("profile", False),
        ("pathological", False),
        ("directive", False),
        ("query", False),
    ],
)
def test_names_in_any_case(name: str, counts: bool) -> None:
    found, _ = path_arguments({name: "/etc/x"}, declared=None, exists=lambda _: False)
    assert bool(found) is counts
