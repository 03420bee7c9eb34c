"""Configuration layers, last-match-wins, and paths judged in every form (as written and
resolved, `@` dropped, dangling links by their target), as docs/permissions.md describes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pith.ext.permissions import PermissionConfigError, PermissionLayer, Rule, Ruleset, build_rules
from pith.ext.permissions._paths import path_forms

HOME = "/home/ann"


def ruleset(*sections: object) -> Ruleset:
    layers = [PermissionLayer(f"layer{i}.json", section) for i, section in enumerate(sections)]
    return Ruleset(build_rules(layers), HOME)


def listed(rules: Ruleset, surface: str) -> list[tuple[str, str, str]]:
    return [(r.pattern, r.state, r.origin) for r in rules.rules if r.surface == surface]


def test_nothing_configured_allows_everything_but_asks_outside() -> None:
    rules = ruleset()
    assert [(r.surface, r.pattern, r.state) for r in rules.rules] == [
        ("*", "*", "allow"),
        ("external_directory", "*", "ask"),
    ]


def test_a_plain_state_is_a_pattern_map_of_star() -> None:
    assert listed(ruleset({"bash": "ask"}), "bash") == [("*", "ask", "layer0.json")]


def test_maps_merge_and_keep_the_position_of_a_redefined_pattern() -> None:
    rules = ruleset(
        {"bash": {"*": "allow", "git push *": "deny", "npm *": "ask"}},
        {"bash": {"git push *": "ask", "rm *": "deny"}},
    )
    assert listed(rules, "bash") == [
        ("*", "allow", "layer0.json"),
        ("git push *", "ask", "layer1.json"),
        ("npm *", "ask", "layer0.json"),
        ("rm *", "deny", "layer1.json"),
    ]


def test_a_state_over_a_map_replaces_it_and_a_map_over_a_state_keeps_it_as_star() -> None:
    assert listed(ruleset({"read": {"*.env": "deny"}}, {"read": "ask"}), "read") == [
        ("*", "ask", "layer1.json")
    ]
    assert listed(ruleset({"read": "ask"}, {"read": {"*.env": "deny"}}), "read") == [
        ("*", "ask", "layer0.json"),
        ("*.env", "deny", "layer1.json"),
    ]


def test_a_map_with_its_own_star_replaces_a_state_keeping_its_order() -> None:
    rules = ruleset({"external_directory": {"~/lib/*": "allow", "*": "deny"}})
    assert listed(rules, "external_directory") == [
        ("~/lib/*", "allow", "layer0.json"),
        ("*", "deny", "layer0.json"),
    ]


def test_the_external_ask_survives_an_unrelated_config() -> None:
    rules = ruleset({"*": "allow", "read": {"*.env": "deny"}})
    assert listed(rules, "external_directory") == [("*", "ask", "default")]
    narrowed = ruleset({"external_directory": {"~/lib/*": "allow"}})
    assert listed(narrowed, "external_directory") == [
        ("*", "ask", "default"),
        ("~/lib/*", "allow", "layer0.json"),
    ]


def test_a_missing_section_contributes_nothing() -> None:
    def shape(rules: Ruleset) -> list[tuple[str, str, str]]:
        return [(r.surface, r.pattern, r.state) for r in rules.rules]

    assert shape(ruleset(None, {"bash": "ask"}, None)) == shape(ruleset({"bash": "ask"}))


def test_deny_reasons_are_kept() -> None:
    rules = ruleset({"bash": {"npm *": {"action": "deny", "reason": "Use pnpm instead."}}})
    verdict = rules.command("bash", "npm install")
    assert verdict is not None
    assert verdict.state == "deny"
    assert verdict.rule.reason == "Use pnpm instead."


@pytest.mark.parametrize(
    ("section", "message"),
    [
        (["bash"], "layer0.json:1: permission: must be an object of surfaces, not a list"),
        ({"bash": "maybe"}, """permission["bash"]: 'maybe' is not a state"""),
        ({"bash": 3}, 'permission["bash"]: must be "allow", "ask", "deny" or'),
        ({"bash": {"rm *": True}}, 'permission["bash"]["rm *"]: must be'),
        ({"bash": {"rm *": {"action": "allow", "reason": "x"}}}, "only a deny carries a reason"),
        ({"bash": {"": "deny"}}, "a pattern must be non-empty text"),
    ],
)
def test_a_section_of_the_wrong_shape_is_a_clear_error(section: object, message: str) -> None:
    with pytest.raises(PermissionConfigError, match=None) as raised:
        ruleset(section)
    assert message in str(raised.value)


def test_the_error_names_the_line_of_the_key(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(
        '{\n  "theme": "dark",\n  "permission": {\n    "bash": "sometimes"\n  }\n}\n'
    )
    with pytest.raises(PermissionConfigError) as raised:
        build_rules([PermissionLayer(str(settings), {"bash": "sometimes"})])
    assert str(raised.value).startswith(f'{settings}:4: permission["bash"]')


# --- last match wins ---------------------------------------------------------------------------


def test_the_last_matching_pattern_wins() -> None:
    first = ruleset({"bash": {"*.env": "deny", "*": "allow"}})
    assert first.state_of("bash", "cat .env") == "allow"
    last = ruleset({"bash": {"*": "allow", "*.env": "deny"}})
    assert last.state_of("bash", "cat .env") == "deny"


def test_a_reason_is_carried_only_when_its_deny_wins() -> None:
    rules = ruleset({"bash": {"rm *": {"action": "deny", "reason": "no"}, "rm -i *": "allow"}})
    verdict = rules.command("bash", "rm -i x")
    assert verdict is not None
    assert verdict.rule.reason is None


def test_star_is_the_fallback_of_tool_surfaces_only() -> None:
    rules = ruleset({"*": "deny", "read": "allow"})
    assert rules.state_of("read", "*") == "allow"
    assert rules.state_of("write", "*") == "deny"
    assert rules.state_of("my_extension_tool", "*") == "deny"
    # a tool's own rule beats the fallback wherever it is written
    later = ruleset({"read": {"*.env": "deny"}, "*": "ask"})
    forms = path_forms(".env", "/repo", HOME)
    verdict = later.path("read", forms)
    assert verdict is not None
    assert verdict.state == "deny"


def test_path_surfaces_never_fall_back_to_star() -> None:
    rules = ruleset({"*": "deny"})
    forms = path_forms("src/a.py", "/repo", HOME)
    assert rules.path("path", forms, fallback=True) is None


def test_tool_availability_looks_at_the_tool_not_its_paths() -> None:
    rules = ruleset({"read": {"*": "allow", "*.env": "deny"}, "write": "deny"})
    assert rules.tool_state("read") == "allow"
    assert rules.tool_state("write") == "deny"


# --- paths in every form -----------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("x")
    (root / ".env").write_text("SECRET=1")
    return root


def judge(rules: Ruleset, surface: str, path: str, cwd: Path) -> str | None:
    verdict = rules.path(surface, path_forms(path, str(cwd), HOME))
    return verdict.state if verdict is not None else None


def test_the_same_path_written_three_ways_gets_one_answer(project: Path) -> None:
    rules = ruleset({"read": {"*": "deny", "src/*": "allow"}})
    for path in ("src/a.py", "./src/a.py", str(project / "src" / "a.py"), "src/../src/a.py"):
        assert judge(rules, "read", path, project) == "allow", path
    assert judge(rules, "read", "../project/.env", project) == "deny"


def test_a_later_relative_rule_beats_an_absolute_catch_all(project: Path) -> None:
    rules = ruleset({"read": {f"{project}/*": "allow", "*.env": "deny"}})
    assert judge(rules, "read", ".env", project) == "deny"
    assert judge(rules, "read", "src/a.py", project) == "allow"


def test_a_link_is_judged_by_what_it_points_to_as_well(project: Path) -> None:
    os.symlink(".env", project / "notes.txt")
    os.symlink("src", project / "docs")
    rules = ruleset({"read": {"*.env": "deny"}, "write": {"src/*": "deny"}})
    assert judge(rules, "read", "notes.txt", project) == "deny"
    assert judge(rules, "write", "docs/new.py", project) == "deny"  # docs -> src
    # between the forms of one path the most restrictive answer wins
    mixed = ruleset({"write": {"*": "deny", "src/*": "allow"}})
    assert judge(mixed, "write", "src/new.py", project) == "allow"
    assert judge(mixed, "write", "docs/new.py", project) == "deny"


def test_a_link_out_of_the_project_is_outside_and_shows_its_target(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / ".env").write_text("x")
    os.symlink(outside, project / "vendor")
    forms = path_forms("vendor/.env", str(project), HOME)
    assert forms.outside
    assert forms.resolved_relative == "../outside/.env"
    assert str(outside / ".env") in forms.shown
    assert ruleset({"read": {"*.env": "deny"}}).path("read", forms) is not None


def test_dangling_links_and_loops(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    os.symlink(project / "not-yet", project / "inside")
    os.symlink(tmp_path / "elsewhere", project / "away")
    os.symlink(project / "loop", project / "loop")
    assert not path_forms("inside", str(project), HOME).outside
    assert path_forms("away", str(project), HOME).outside
    looping = path_forms("loop/x", str(project), HOME)
    assert looping.outside
    assert looping.resolved is None


def test_devices_are_never_outside(tmp_path: Path) -> None:
    for device in ("/dev/null", "/dev/stderr", "/dev/fd/3", "/dev/tty"):
        assert not path_forms(device, str(tmp_path), HOME).outside, device
    assert path_forms("/dev/sda", str(tmp_path), HOME).outside


def test_at_prefix_and_home_are_resolved(tmp_path: Path) -> None:
    assert path_forms("@src/a.py", str(tmp_path), HOME).absolute == f"{tmp_path}/src/a.py"
    assert path_forms("~/x", str(tmp_path), HOME).absolute == "/home/ann/x"


def test_rules_keep_their_origin_for_messages() -> None:
    rule = Rule("read", "*.env", "deny", "/home/ann/.pith/agent/settings.json")
    assert rule.describe() == 'read["*.env"]=deny (/home/ann/.pith/agent/settings.json)'
