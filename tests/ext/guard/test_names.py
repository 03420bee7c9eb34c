"""Tool-Name Repair: only to a declared tool, within one MCP family, by a small edit distance
(docs/guard.md, "Tool names")."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pith.ext.guard._names import repair_notice, repair_tool_name, unknown_tool_message

BUILTINS = ["read", "bash", "edit", "write", "grep", "find", "ls"]


# --- within and outside the budget ------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("reed", "read"),  # substitution
        ("writes", "write"),  # insertion
        ("bsh", "bash"),  # deletion: the *target* must have 4 characters, not the name
        ("fnd", "find"),
        ("grepp", "grep"),
        ("raed", "read"),  # adjacent transposition: one edit
        ("wirte", "write"),
        ("gerp", "grep"),
    ],
)
def test_one_edit_from_a_declared_tool_is_repaired(name: str, expected: str) -> None:
    assert repair_tool_name(name, BUILTINS) == expected


def test_two_edits_are_refused_for_a_name_shorter_than_8() -> None:
    assert repair_tool_name("wrota", BUILTINS) is None  # write, 2 substitutions
    assert repair_tool_name("cdemoe", ["codemode"]) is None  # 2 deletions


def test_two_edits_keeping_first_and_last_character_are_repaired_from_8_characters() -> None:
    # Two edits, same first and last character, long enough.
    assert repair_tool_name("codememode", ["read", "codemode"]) == "codemode"
    assert repair_tool_name("cadamode", ["codemode"]) == "codemode"


def test_two_edits_that_change_the_first_character_are_refused() -> None:
    assert repair_tool_name("xodemide", ["codemode"]) is None


def test_two_edits_that_change_the_last_character_are_refused() -> None:
    assert repair_tool_name("codemidx", ["codemode"]) is None


def test_first_and_last_character_are_compared_ignoring_case() -> None:
    assert repair_tool_name("CadamodE", ["codemode"]) == "codemode"


def test_three_edits_are_refused_however_long_the_name() -> None:
    assert repair_tool_name("cadamodaxe", ["codemode"]) is None
    assert repair_tool_name("create_pull_reqeust_nwo", ["create_pull_request_now"]) is None


def test_a_far_name_is_not_repaired() -> None:
    assert repair_tool_name("search_web", BUILTINS) is None


# --- ties -------------------------------------------------------------------------------------


def test_two_declared_tools_equally_close_are_a_tie_and_refused() -> None:
    assert repair_tool_name("reax", ["read", "reap"]) is None
    assert repair_tool_name("reax", ["reap", "read"]) is None


def test_the_closest_wins_over_a_farther_one_within_the_budget() -> None:
    assert repair_tool_name("codemodes", ["codxmodxs", "codemode"]) == "codemode"


def test_a_tie_with_a_target_outside_the_budget_still_refuses() -> None:
    # codemode is 2 edits away keeping c…e; badamodx is as close, so the model may have meant it.
    assert repair_tool_name("cadamode", ["codemode", "badamodx"]) is None


def test_a_tie_with_a_target_too_short_still_refuses() -> None:
    assert repair_tool_name("lsx", ["ls", "lsxy"]) is None


def test_a_name_declared_twice_is_not_a_tie() -> None:
    assert repair_tool_name("raed", ["read", "read"]) == "read"


# --- case -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [("Bash", "bash"), ("READ", "read"), ("Edit", "edit"), ("wRITE", "write"), ("Raed", "read")],
)
def test_a_case_only_difference_costs_nothing(name: str, expected: str) -> None:
    assert repair_tool_name(name, BUILTINS) == expected


def test_case_is_free_on_long_names_too() -> None:
    assert repair_tool_name("CODEMEMODE", ["codemode"]) == "codemode"


def test_case_variants_of_one_name_both_declared_are_a_tie() -> None:
    assert repair_tool_name("READ", ["read", "Read"]) is None


def test_a_declared_name_needs_no_repair() -> None:
    assert repair_tool_name("read", BUILTINS) is None
    assert repair_tool_name("Read", ["Read", "read"]) is None


# --- length -----------------------------------------------------------------------------------


def test_a_target_shorter_than_4_characters_is_never_chosen() -> None:
    assert repair_tool_name("lss", BUILTINS) is None
    assert repair_tool_name("l", BUILTINS) is None
    assert repair_tool_name("LS", BUILTINS) is None  # even case-only: `ls` has 2 characters


def test_a_name_shorter_than_4_characters_may_reach_a_4_character_target() -> None:
    assert repair_tool_name("bsh", BUILTINS) == "bash"
    assert repair_tool_name("ed", BUILTINS) is None  # edit is 2 away


def test_an_empty_name_or_declared_set_repairs_nothing() -> None:
    assert repair_tool_name("", BUILTINS) is None
    assert repair_tool_name("raed", []) is None
    assert repair_tool_name("raed", ()) is None


def test_a_huge_name_is_refused_quickly() -> None:
    assert repair_tool_name("r" * 1_000_000, BUILTINS) is None


# --- MCP families -----------------------------------------------------------------------------

MCP = [
    "read",
    "mcp__jira__create_issue",
    "mcp__jira__search",
    "mcp__linear__create_issue",
    "mcp__fs__rm",
    "mcp__fs__mv",
]


def test_a_typo_inside_a_family_is_repaired() -> None:
    assert repair_tool_name("mcp__jira__create_isue", MCP) == "mcp__jira__create_issue"
    assert repair_tool_name("mcp__jira__serch", MCP) == "mcp__jira__search"
    assert repair_tool_name("mcp__linear__craete_issue", MCP) == "mcp__linear__create_issue"


def test_a_typo_in_the_family_is_not_repaired() -> None:
    assert repair_tool_name("mcp__jora__create_issue", MCP) is None
    assert repair_tool_name("mcp__jira2__search", MCP) is None


def test_a_repair_never_crosses_to_another_family() -> None:
    # One edit from mcp__jira__create_issue's own part, but only linear declares it.
    assert repair_tool_name("mcp__jira__create_issue", ["mcp__linear__create_issue"]) is None


def test_a_repair_never_drops_a_family() -> None:
    assert repair_tool_name("mcp__fs__read", MCP) is None
    assert repair_tool_name("mcp__jira__raed", ["read"]) is None


def test_a_repair_never_adds_a_family() -> None:
    assert repair_tool_name("create_issue", MCP) is None
    assert repair_tool_name("serch", MCP) is None


def test_a_mangled_separator_is_a_different_family() -> None:
    assert repair_tool_name("mcp_jira__create_issue", MCP) is None
    assert repair_tool_name("mcp__jira_create_issue", MCP) is None


def test_the_family_is_compared_ignoring_case() -> None:
    assert repair_tool_name("MCP__Jira__create_issue", MCP) == "mcp__jira__create_issue"


def test_the_same_tool_in_another_family_is_no_competitor() -> None:
    declared = ["mcp__jira__create_issue", "mcp__linear__create_issue"]
    assert repair_tool_name("mcp__jira__create_isue", declared) == "mcp__jira__create_issue"


def test_inside_a_family_the_target_length_is_that_of_the_tool_part() -> None:
    # `rm` is two characters: mcp__fs__rn must not become a delete.
    assert repair_tool_name("mcp__fs__rn", MCP) is None


def test_inside_a_family_the_wide_budget_needs_a_tool_part_of_8_characters() -> None:
    # 2 edits keeping s…h, but `sxarxh` is 6 characters (the whole name has 17).
    assert repair_tool_name("mcp__jira__sxarxh", MCP) is None
    # 2 edits keeping c…e in an 11-character part: allowed.
    assert repair_tool_name("mcp__jira__craete_isue", MCP) == "mcp__jira__create_issue"


# --- what the model and the user are told ----------------------------------------------------


def test_the_unknown_tool_message_names_the_tool_and_lists_the_declared_ones() -> None:
    assert unknown_tool_message("codemod", ["read", "bash", "edit", "write"]) == (
        "Tool codemod not found. Available tools: read, bash, edit, write. "
        "Call one of them by its exact name."
    )


def test_the_unknown_tool_message_lists_each_tool_once_in_declared_order() -> None:
    assert unknown_tool_message("x_y", ["write", "read", "write"]) == (
        "Tool x_y not found. Available tools: write, read. Call one of them by its exact name."
    )


def test_the_unknown_tool_message_with_no_tools_says_so() -> None:
    assert unknown_tool_message("read", []) == "Tool read not found. No tools are available."


@pytest.mark.parametrize(
    ("name", "shown"),
    [("", '""'), ("read file", '"read file"'), ("a\nb", '"a\\nb"'), ("ïnfo", "ïnfo")],
)
def test_an_odd_tool_name_is_quoted(name: str, shown: str) -> None:
    assert unknown_tool_message(name, ["read"]).startswith(f"Tool {shown} not found.")


def test_a_huge_tool_name_is_cut_in_the_message() -> None:
    message = unknown_tool_message("x" * 10_000, ["read"])
    assert message == f"Tool {'x' * 200}… not found. Available tools: read. " + (
        "Call one of them by its exact name."
    )


def test_the_repair_notice_names_both_tools() -> None:
    assert repair_notice("codememode", "codemode") == "tool name repaired: codememode → codemode"


# --- properties -------------------------------------------------------------------------------

_NAMES = st.text(alphabet="abcdeRS_", min_size=0, max_size=12)


def _family(name: str) -> str | None:
    family, separator, _ = name.rpartition("__")
    return family.lower() if separator else None


@given(_NAMES, st.lists(_NAMES, max_size=6))
def test_a_repair_is_a_declared_name_of_the_same_family(name: str, declared: list[str]) -> None:
    repaired = repair_tool_name(name, declared)
    if repaired is not None:
        assert repaired in declared
        assert repaired != name
        assert name not in declared
        assert _family(repaired) == _family(name)
        assert len(repaired.rpartition("__")[2]) >= 4


@given(st.text(alphabet="abcdefgh", min_size=4, max_size=12), st.lists(_NAMES, max_size=5))
def test_a_case_variant_of_a_lone_declared_name_is_repaired_to_it(
    target: str, others: list[str]
) -> None:
    declared = [other for other in others if other.lower() != target] + [target]
    name = target.upper()
    assert repair_tool_name(name, declared) == target


@given(_NAMES, st.lists(_NAMES, max_size=6))
def test_the_declared_order_does_not_change_the_repair(name: str, declared: list[str]) -> None:
    assume(len(set(declared)) == len(declared))
    assert repair_tool_name(name, declared) == repair_tool_name(name, declared[::-1])
