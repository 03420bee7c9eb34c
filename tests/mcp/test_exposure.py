"""The exposure of one tool: exact `toolExposure` key, first matching pattern, the server's."""

from __future__ import annotations

from pith.mcp import ServerConfig
from pith.mcp._exposure import tool_exposure


def server(*pairs: tuple[str, str], exposure: str = "deferred") -> ServerConfig:
    return ServerConfig(
        name="s",
        transport="stdio",
        source=None,
        command="x",
        exposure=exposure,  # type: ignore[arg-type]
        tool_exposure=pairs,  # type: ignore[arg-type]
    )


def test_without_entries_the_server_exposure_applies() -> None:
    assert tool_exposure(server(exposure="hidden"), "anything") == "hidden"


def test_an_exact_name_wins_over_an_earlier_pattern() -> None:
    config = server(("get_*", "hidden"), ("get_issue", "direct"))
    assert tool_exposure(config, "get_issue") == "direct"
    assert tool_exposure(config, "get_pr") == "hidden"


def test_the_first_matching_pattern_wins() -> None:
    config = server(("*_issue", "direct"), ("get_*", "hidden"))
    assert tool_exposure(config, "get_issue") == "direct"
    assert tool_exposure(config, "get_pr") == "hidden"
    assert tool_exposure(config, "list") == "deferred"


def test_only_the_star_is_special() -> None:
    config = server(("a.b?[c]*", "direct"))
    assert tool_exposure(config, "a.b?[c]d") == "direct"
    assert tool_exposure(config, "axb?[c]d") == "deferred"
    assert tool_exposure(server(("*", "hidden")), "") == "hidden"


def test_a_pattern_must_match_the_whole_name() -> None:
    assert tool_exposure(server(("get", "direct"), ("get*x", "hidden")), "get_y") == "deferred"
