"""tool_search's ranking over a realistic set of 119 tools on seven servers: the query a person
(or a model) would type finds the obvious tool first."""

from __future__ import annotations

import random

import pytest

from pith.mcp import (
    DEFAULT_SEARCH_LIMIT,
    MAX_SEARCH_LIMIT,
    TOOL_SEARCH_PARAMETERS,
    McpTool,
    SearchHit,
    ToolIndex,
    rank_tools,
    search_limit,
    search_result_text,
    search_terms,
)
from tests.mcp.tool_corpus import corpus

TOOLS, SUMMARIES = corpus()
INDEX = ToolIndex(TOOLS, SUMMARIES)

OBVIOUS = [
    ("create a github issue", "mcp__github__create_issue"),
    ("add a comment to an issue", "mcp__github__add_issue_comment"),
    ("open a pull request", "mcp__github__create_pull_request"),
    ("create pr", "mcp__github__create_pull_request"),
    ("merge pull request", "mcp__github__merge_pull_request"),
    ("pull request diff", "mcp__github__get_pull_request_diff"),
    ("check status of pr", "mcp__github__get_pull_request_status"),
    ("failed ci job logs", "mcp__github__get_job_logs"),
    ("rerun failed jobs", "mcp__github__rerun_failed_jobs"),
    ("trigger workflow", "mcp__github__run_workflow"),
    ("dependabot vulnerable dependencies", "mcp__github__list_dependabot_alerts"),
    ("search code", "mcp__github__search_code"),
    ("star repo", "mcp__github__star_repository"),
    ("latest release", "mcp__github__get_latest_release"),
    ("details of the authenticated user", "mcp__github__get_me"),
    ("remove file", "mcp__github__delete_file"),
    ("git status", "mcp__git__git_status"),
    ("commit changes", "mcp__git__git_commit"),
    ("show commit log history", "mcp__git__git_log"),
    ("switch branch", "mcp__git__git_checkout"),
    ("stage files", "mcp__git__git_add"),
    ("unstage changes", "mcp__git__git_reset"),
    ("diff between branches", "mcp__git__git_diff"),
    ("current time in tokyo timezone", "mcp__time__get_current_time"),
    ("convert time between timezones", "mcp__time__convert_time"),
    ("fetch a web page", "mcp__fetch__fetch"),
    ("download url as markdown", "mcp__fetch__fetch"),
    ("read a text file", "mcp__filesystem__read_text_file"),
    ("read image", "mcp__filesystem__read_media_file"),
    ("write file", "mcp__filesystem__write_file"),
    ("edit file", "mcp__filesystem__edit_file"),
    ("rename file", "mcp__filesystem__move_file"),
    ("make a directory", "mcp__filesystem__create_directory"),
    ("list files in folder", "mcp__filesystem__list_directory"),
    ("directory tree", "mcp__filesystem__directory_tree"),
    ("find files matching glob", "mcp__filesystem__search_files"),
    ("file size and permissions", "mcp__filesystem__get_file_info"),
    ("run sql query", "mcp__postgres__query"),
    ("list postgres tables", "mcp__postgres__list_tables"),
    ("table columns", "mcp__postgres__describe_table"),
    ("sentry stack trace", "mcp__sentry__get_issue_details"),
    ("root cause of error", "mcp__sentry__analyze_issue_with_seer"),
    ("resolve sentry issue", "mcp__sentry__update_issue"),
]


def names(hits: list[SearchHit]) -> list[str]:
    return [hit.tool.full_name for hit in hits]


@pytest.mark.parametrize(("query", "expected"), OBVIOUS)
def test_the_obvious_tool_ranks_first(query: str, expected: str) -> None:
    assert names(INDEX.rank(query))[0] == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("mcp__git__git_diff", "mcp__git__git_diff"),
        ("git_diff", "mcp__git__git_diff"),
        ("git:git_diff", "mcp__git__git_diff"),
        ("github:listIssues", "mcp__github__list_issues"),
        ("list-issues", "mcp__github__list_issues"),
        # One-word names that many descriptions also mention.
        ("fetch", "mcp__fetch__fetch"),
        ("query", "mcp__postgres__query"),
    ],
)
def test_a_tool_named_exactly_ranks_first(query: str, expected: str) -> None:
    assert names(INDEX.rank(query))[0] == expected


def test_the_same_name_on_two_servers_both_rank_first_by_name() -> None:
    assert names(INDEX.rank("search_issues", 2)) == [
        "mcp__github__search_issues",
        "mcp__sentry__search_issues",
    ]
    assert names(INDEX.rank("update_issue", 2)) == [
        "mcp__github__update_issue",
        "mcp__sentry__update_issue",
    ]


def test_a_namespace_keeps_the_search_to_one_server() -> None:
    assert names(INDEX.rank("sentry: search issues"))[0] == "mcp__sentry__search_issues"
    assert names(INDEX.rank("github: search issues"))[0] == "mcp__github__search_issues"
    hits = INDEX.rank("mcp__sentry issue", 20)
    assert hits
    assert {hit.tool.server for hit in hits} == {"sentry"}
    assert all(hit.tool.server == "git" for hit in INDEX.rank("git: branch", 20))


def test_a_namespace_alone_lists_the_server_by_name() -> None:
    hits = INDEX.rank("postgres:", 20)
    assert names(hits) == [
        "mcp__postgres__describe_table",
        "mcp__postgres__list_tables",
        "mcp__postgres__query",
    ]
    assert len(INDEX.rank("github:", 7)) == 7
    assert len(INDEX.rank("mcp__github", MAX_SEARCH_LIMIT)) == MAX_SEARCH_LIMIT


def test_an_unknown_namespace_is_read_as_words() -> None:
    assert names(INDEX.rank("postgress: list tables"))[0] == "mcp__postgres__list_tables"


def test_the_server_summary_and_the_schema_are_searched() -> None:
    # "monitoring" is only in the Sentry server's summary.
    assert {hit.tool.server for hit in INDEX.rank("error monitoring", 8)} == {"sentry"}
    scheduled = McpTool(
        server="cron",
        name="add",
        full_name="mcp__cron__add",
        description="Adds an entry.",
        input_schema={
            "type": "object",
            "properties": {
                "job": {
                    "type": "object",
                    "properties": {"schedule": {"type": "string", "description": "A crontab line"}},
                }
            },
        },
        exposure="deferred",
    )
    assert names(rank_tools("crontab", [*TOOLS, scheduled])) == ["mcp__cron__add"]
    assert names(rank_tools("schedule job", [*TOOLS, scheduled]))[0] == "mcp__cron__add"


def test_words_in_the_name_outweigh_the_description() -> None:
    named = tool("a", "archive_logs", "Packs old entries.")
    described = tool("b", "pack", "Archive the logs of old runs into one file.")
    assert names(rank_tools("archive logs", [described, named])) == [
        named.full_name,
        described.full_name,
    ]


def test_more_matched_words_win_over_a_higher_score() -> None:
    both = tool("a", "snapshot", "Take a screenshot of one window.")
    one = tool("b", "window", "Window window window.")
    assert names(rank_tools("screenshot window", [one, both]))[0] == both.full_name


def test_ties_break_by_name_and_input_order_does_not_matter() -> None:
    twins = [tool(server, "ping", "Check the server answers.") for server in "cab"]
    assert names(rank_tools("ping", twins)) == ["mcp__a__ping", "mcp__b__ping", "mcp__c__ping"]
    shuffled = TOOLS[:]
    random.Random(7).shuffle(shuffled)
    again = ToolIndex(shuffled, SUMMARIES)
    for query, _ in OBVIOUS[:10]:
        assert again.rank(query, 10) == INDEX.rank(query, 10)


def test_nothing_matches() -> None:
    assert INDEX.rank("quantum teleportation") == []
    assert INDEX.rank("") == []
    assert INDEX.rank("the of and") == []
    assert INDEX.rank("issue", 0) == []
    assert rank_tools("issue", []) == []


def test_limit_and_scores() -> None:
    hits = INDEX.rank("issue")
    assert len(hits) == DEFAULT_SEARCH_LIMIT
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    assert all(hit.score > 0 for hit in hits)


def test_terms() -> None:
    assert search_terms("listPullRequests") == ["list", "pull", "request"]
    assert search_terms("get-HTTPResponse_codes") == ["get", "http", "response", "code"]
    assert search_terms("Searches the directories for entries") == ["search", "directory", "entry"]
    assert search_terms("status class analysis") == ["status", "class", "analysis"]


def test_search_limit() -> None:
    assert search_limit(None) == DEFAULT_SEARCH_LIMIT
    assert search_limit(3) == 3
    assert search_limit(20.0) == 20
    for bad in (0, 21, 2.5, "5", True):
        with pytest.raises(ValueError, match="limit: give a whole number from 1 to 20"):
            search_limit(bad)
    limit = TOOL_SEARCH_PARAMETERS["properties"]["limit"]  # type: ignore[index]
    assert limit["maximum"] == MAX_SEARCH_LIMIT


def test_result_text() -> None:
    hits = INDEX.rank("git status", 2)
    text = search_result_text("git status", hits)
    lines = text.splitlines()
    assert lines[0] == "mcp__git__git_status — Shows the working tree status of the repository"
    assert lines[1].startswith(hits[1].tool.full_name + " — ")
    assert lines[-1] == "The 2 tools are declared from your next request on; call by name."
    one = search_result_text("x", [SearchHit(tool("s", "t", "\n  First line\nsecond"), 1.0)])
    assert one.splitlines()[0] == "mcp__s__t — First line"
    assert "The tool is declared" in one
    none = search_result_text(" teleport ", [])
    assert none.startswith("No undeclared tool matches 'teleport'.")


def tool(server: str, name: str, description: str) -> McpTool:
    return McpTool(
        server=server,
        name=name,
        full_name=f"mcp__{server}__{name}",
        description=description,
        input_schema={"type": "object", "properties": {}},
        exposure="deferred",
    )
