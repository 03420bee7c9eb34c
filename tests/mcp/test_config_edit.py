"""Editing `mcp.json`: one server added, removed or switched, everything else kept — and the
same bytes Pi 1.6 writes for the same change (files recorded from `pi mcp add` / `remove`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pith.mcp._config import load_mcp_config
from pith.mcp._config_edit import McpFileError, add_server, remove_server, set_server_fields

PI_FILES = Path(__file__).parent / "pi_files"


def pi_file(name: str) -> str:
    return (PI_FILES / name).read_text(encoding="utf-8")


FS = {
    "command": "npx",
    "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
    "env": {"A": "1"},
    "cwd": "sub",
    "exposure": "direct",
    "description": "files",
}
DOCS = {
    "url": "https://example.com/mcp",
    "headers": {"X-A": "b", "Authorization": "Bearer ${DOCS_TOKEN}"},
}


def test_adding_to_a_missing_file_creates_it_and_its_folder(tmp_path: Path) -> None:
    path = tmp_path / "agent" / "deep" / "mcp.json"
    assert add_server(path, "fs", FS) is False
    assert path.read_text() == pi_file("add_stdio.json")


def test_the_same_changes_give_the_bytes_pi_writes(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    add_server(path, "fs", FS)
    add_server(path, "docs", DOCS)
    assert path.read_text() == pi_file("add_http.json")
    assert add_server(path, "fs", {"command": "uvx", "args": ["other-mcp", "--port", "3"]})
    assert path.read_text() == pi_file("replace_stdio.json")
    assert remove_server(path, "docs") is True
    assert path.read_text() == pi_file("remove_http.json")


def test_other_keys_unknown_fields_and_tab_indentation_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(pi_file("tabs_before.json"))
    add_server(path, "new", {"command": "cmd", "description": "ünï"})
    assert path.read_text(encoding="utf-8") == pi_file("tabs_after_add.json")
    oauth = {
        "clientId": "cid",
        "clientSecret": "${S}",
        "callbackPort": 8765,
        "clientName": "Claude Code",
        "clientRegistration": "dcr",
    }
    add_server(path, "o", {"url": "https://x.test/mcp", "oauth": oauth, "exposure": "hidden"})
    assert path.read_text(encoding="utf-8") == pi_file("tabs_after_oauth.json")


def test_files_pi_wrote_are_read_by_pith(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "mcp.json").write_text(pi_file("tabs_after_oauth.json"), encoding="utf-8")
    environ = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "S": "secret"}
    config = load_mcp_config(agent, tmp_path, trusted=False, environ=environ)
    assert config.problems == ()
    assert list(config.servers) == ["keep", "new", "o"]
    oauth = config.servers["o"].oauth
    assert oauth is not None
    assert (oauth.client_id, oauth.client_secret, oauth.callback_port) == ("cid", "secret", 8765)
    assert config.servers["o"].exposure == "hidden"
    (agent / "mcp.json").write_text(pi_file("add_http.json"))
    config = load_mcp_config(agent, tmp_path, trusted=False, environ={**environ, "DOCS_TOKEN": "t"})
    assert config.servers["docs"].headers == {"X-A": "b", "Authorization": "Bearer t"}
    assert config.servers["fs"].cwd == tmp_path / "sub"


def test_four_space_indentation_and_a_bom_survive_a_removal(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    data = {"other": True, "mcpServers": {"a": {"command": "a"}, "b": {"command": "b", "x": None}}}
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(data, indent=4).encode())
    assert remove_server(path, "a")
    del data["mcpServers"]["a"]  # type: ignore[attr-defined]
    assert path.read_text() == json.dumps(data, indent=4) + "\n"


def test_removing_what_is_not_there_leaves_the_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    assert remove_server(path, "a") is False
    assert not path.exists()
    path.write_text('{"mcpServers":{"b":{"command":"b"}}}')
    assert remove_server(path, "a") is False
    assert path.read_text() == '{"mcpServers":{"b":{"command":"b"}}}'


def test_enabling_and_exposure(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    add_server(path, "a", {"command": "a", "enabled": False})
    set_server_fields(path, "a", enabled=True, exposure="deferred")
    assert json.loads(path.read_text())["mcpServers"]["a"] == {
        "command": "a",
        "exposure": "deferred",
    }
    set_server_fields(path, "a", enabled=False)
    assert json.loads(path.read_text())["mcpServers"]["a"]["enabled"] is False


def test_an_override_entry_keeps_enabled_true(tmp_path: Path) -> None:
    path = tmp_path / ".pith" / "mcp.json"
    set_server_fields(path, "gh", enabled=True, override=True)
    assert json.loads(path.read_text()) == {"mcpServers": {"gh": {"enabled": True}}}
    set_server_fields(path, "gh", exposure="hidden")
    assert json.loads(path.read_text()) == {
        "mcpServers": {"gh": {"enabled": True, "exposure": "hidden"}}
    }


def test_setting_a_field_of_a_missing_server_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    with pytest.raises(McpFileError, match="has no MCP server 'a'"):
        set_server_fields(path, "a", enabled=False)
    assert not path.exists()


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"mcpServers": {', "line 1, column 17: not valid JSON"),
        ("[]", "must hold a JSON object"),
        ('{"mcpServers": 3}', "mcpServers must be an object"),
        ('{"a": 1, "a": 2}', 'the key "a" appears twice'),
    ],
)
def test_a_file_pith_cannot_read_is_never_overwritten(
    tmp_path: Path, text: str, words: str
) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(text)
    with pytest.raises(McpFileError, match="it was not changed") as raised:
        add_server(path, "x", {"command": "x"})
    assert words in str(raised.value)
    assert "\n" not in str(raised.value)
    assert path.read_text() == text


def test_a_write_keeps_the_file_mode(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text("{}")
    path.chmod(0o600)
    add_server(path, "x", {"command": "x"})
    assert path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["mcp.json"]
