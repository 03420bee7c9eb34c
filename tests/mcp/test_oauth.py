"""Signing in to an OAuth-protected MCP server, and a session using and refreshing its tokens.

Every test runs a real authorization server and MCP server (tests/mcp/servers/oauth_server.py)
on 127.0.0.1 and plays the browser itself; nothing leaves the machine.
"""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from pith.mcp import McpManager, OAuthConfig, ServerConfig
from pith.mcp._oauth_callback import SignInError
from pith.mcp._oauth_login import sign_in
from pith.mcp._oauth_store import McpAuthFileError, auth_path, read_record, remove_record
from tests.mcp.helpers import WAIT, with_manager
from tests.mcp.oauth_helpers import AuthServer, Browser, auth_server, free_port


@pytest.fixture
def server(tmp_path: Path) -> AuthServer:
    with auth_server(tmp_path) as running:
        yield running  # type: ignore[misc]


def remote(server: AuthServer, name: str = "guarded", **fields: object) -> ServerConfig:
    return ServerConfig(name=name, transport="http", source=None, url=server.url, **fields)  # type: ignore[arg-type]


def login(config: ServerConfig, agent: Path, browser: Browser) -> str:
    return asyncio.run(asyncio.wait_for(sign_in(config, agent, browser), WAIT))


def whoami(config: ServerConfig, tmp_path: Path) -> str:
    async def body(manager: McpManager) -> str:
        [state] = manager.states()
        assert state.status == "connected", state
        result = await manager.call_tool("mcp__guarded__whoami", {})
        assert not result.is_error, result.text()
        return result.text()

    return with_manager([config], tmp_path, body)


def stored_token(agent: Path, config: ServerConfig) -> str:
    assert config.url is not None
    record = read_record(agent, config.name, config.url)
    assert record is not None
    token: str = record["tokens"]["access_token"]
    return token


def test_login_through_the_loopback_then_a_tool_call_sends_the_token(
    tmp_path: Path, server: AuthServer
) -> None:
    agent = tmp_path / "agent"
    config = remote(server)
    browser = Browser()
    assert login(config, agent, browser) == "signed-in"

    [url] = browser.shown
    query = parse_qs(urlsplit(url).query)
    assert query["code_challenge_method"] == ["S256"]
    assert query["redirect_uri"][0].startswith("http://127.0.0.1:")
    assert query["redirect_uri"][0].endswith("/callback")
    assert query["scope"] == ["mcp:tools"]  # what the server advertises
    state = server.state()
    assert state["registrations"] == 1  # dynamic client registration
    assert state["exchanges"] == 1

    path = auth_path(agent)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    record = json.loads(path.read_text())[f"mcp__guarded|{server.url}"]
    assert record["tokens"]["refresh_token"]
    assert record["token_endpoint"] == f"{server.base}/token"
    assert record["client"]["client_id"] in state["clients"]  # type: ignore[operator]

    assert whoami(config, tmp_path) == stored_token(agent, config)


def test_login_with_a_pasted_redirect_url(tmp_path: Path, server: AuthServer) -> None:
    agent = tmp_path / "agent"
    config = remote(server)
    assert login(config, agent, Browser(paste=True)) == "signed-in"
    assert whoami(config, tmp_path) == stored_token(agent, config)


def test_a_configured_client_is_used_instead_of_registering(tmp_path: Path) -> None:
    port = free_port()
    redirect = f"http://127.0.0.1:{port}/callback"
    args = ("--client-id", "known", "--client-secret", "s3cret", "--redirect", redirect)
    with auth_server(tmp_path, *args) as server:
        agent = tmp_path / "agent"
        oauth = OAuthConfig(
            client_id="known", client_secret="s3cret", callback_port=port, scope="extra"
        )
        config = remote(server, oauth=oauth)
        assert login(config, agent, Browser()) == "signed-in"
        state = server.state()
        assert state["registrations"] == 0
        assert state["authorize"]["client_id"] == "known"  # type: ignore[index]
        assert state["authorize"]["scopes"] == ["extra", "mcp:tools"]  # type: ignore[index]
        assert state["authorize"]["redirect_uri"] == redirect  # type: ignore[index]
        record = read_record(agent, "guarded", server.url)
        assert record is not None
        assert "client_secret" not in record["client"]  # the configuration keeps the secret
        # A refresh authenticates with the configured secret.
        server.control("expire")
        assert whoami(config, tmp_path) == stored_token(agent, config)
        assert server.state()["refreshes"] == 1


def test_a_wrong_state_is_refused_with_one_line(tmp_path: Path, server: AuthServer) -> None:
    agent = tmp_path / "agent"
    browser = Browser(tamper=lambda url: url.replace("state=", "state=x"))
    with pytest.raises(SignInError) as caught:
        login(remote(server), agent, browser)
    message = str(caught.value)
    assert "\n" not in message
    assert "state does not match" in message
    assert "pith mcp login guarded" in message
    assert server.state()["exchanges"] == 0
    record = read_record(agent, "guarded", server.url)
    assert record is None or "tokens" not in record


def test_a_wrong_iss_is_refused(tmp_path: Path, server: AuthServer) -> None:
    server.control("iss", value="http://127.0.0.1:1/elsewhere")
    with pytest.raises(SignInError) as caught:
        login(remote(server), tmp_path / "agent", Browser())
    assert "iss" in str(caught.value)
    assert server.state()["exchanges"] == 0


def test_a_refused_token_is_refreshed_on_the_401(tmp_path: Path, server: AuthServer) -> None:
    agent = tmp_path / "agent"
    config = remote(server)
    login(config, agent, Browser())
    first = stored_token(agent, config)
    server.control("expire")
    token = whoami(config, tmp_path)
    assert token != first
    assert token == stored_token(agent, config)
    assert server.state()["refreshes"] == 1


def test_an_expired_token_is_refreshed_before_it_is_sent(
    tmp_path: Path, server: AuthServer
) -> None:
    agent = tmp_path / "agent"
    config = remote(server)
    login(config, agent, Browser())
    server.control("next-lifetime", seconds="0")  # the next token says it is over at once
    server.control("expire")
    rejected = server.state()["rejected"]
    token = whoami(config, tmp_path)
    state = server.state()
    # One refresh on the 401 brings the short-lived token; the next request refreshes it
    # before sending it, so the server refuses nothing more.
    assert state["refreshes"] == 2
    assert state["rejected"] == rejected + 1  # type: ignore[operator]
    assert token == stored_token(agent, config)


def test_without_a_sign_in_the_server_needs_auth_and_says_how(
    tmp_path: Path, server: AuthServer
) -> None:
    async def body(manager: McpManager) -> None:
        [state] = manager.states()
        assert state.status == "needs-auth", state
        assert state.error is not None
        assert "run `pith mcp login guarded`" in state.error

    with_manager([remote(server)], tmp_path, body)


def test_after_logout_the_server_needs_auth_again(tmp_path: Path, server: AuthServer) -> None:
    agent = tmp_path / "agent"
    config = remote(server)
    login(config, agent, Browser())
    assert remove_record(agent, "guarded", server.url)
    assert not remove_record(agent, "guarded", server.url)

    async def body(manager: McpManager) -> None:
        [state] = manager.states()
        assert state.status == "needs-auth", state

    with_manager([config], tmp_path, body)


def test_a_refused_refresh_token_means_signing_in_again(tmp_path: Path, server: AuthServer) -> None:
    agent = tmp_path / "agent"
    config = remote(server)
    login(config, agent, Browser())
    server.control("expire")
    record_path = auth_path(agent)
    records = json.loads(record_path.read_text())
    records[f"mcp__guarded|{server.url}"]["tokens"]["refresh_token"] = "not-issued"
    record_path.write_text(json.dumps(records))

    async def body(manager: McpManager) -> None:
        [state] = manager.states()
        assert state.status == "needs-auth", state

    with_manager([config], tmp_path, body)
    record = read_record(agent, "guarded", server.url)
    assert record is not None
    assert "tokens" not in record
    assert "client" in record  # the registration stays for the next sign-in


def test_names_sign_in_separately_for_one_url(tmp_path: Path, server: AuthServer) -> None:
    agent = tmp_path / "agent"
    login(remote(server, name="work"), agent, Browser())
    assert read_record(agent, "work", server.url) is not None
    assert read_record(agent, "home", server.url) is None


def test_a_header_authorization_turns_oauth_off(tmp_path: Path, server: AuthServer) -> None:
    config = remote(server, headers={"Authorization": "Bearer mine"})
    with pytest.raises(SignInError, match="Authorization header"):
        login(config, tmp_path / "agent", Browser())


def test_a_broken_auth_file_is_one_line(tmp_path: Path, server: AuthServer) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    auth_path(agent).write_text("{not json")
    with pytest.raises(McpAuthFileError) as caught:
        read_record(agent, "guarded", server.url)
    message = str(caught.value)
    assert str(auth_path(agent)) in message
    assert "pith mcp login" in message
    assert "\n" not in message
