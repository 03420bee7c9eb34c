"""Reading and merging `mcp.json`: the user's file, a trusted project's, the rules of an entry,
and problems that skip one entry while the others still load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pith.mcp import ConfigProblem, McpConfig, OAuthConfig
from pith.mcp._config import load_mcp_config

ENV = {"PATH": "/usr/bin:/bin", "HOME": "/home/someone"}


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    agent, project = tmp_path / "agent", tmp_path / "project"
    agent.mkdir()
    (project / ".pith").mkdir(parents=True)
    return agent, project


def write(path: Path, servers: object, **top: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers, **top}))
    return path


def load(
    dirs: tuple[Path, Path], *, trusted: bool = True, environ: dict[str, str] | None = None
) -> McpConfig:
    agent, project = dirs
    return load_mcp_config(agent, project, trusted=trusted, environ=environ or ENV)


def only_problem(config: McpConfig) -> ConfigProblem:
    assert len(config.problems) == 1, config.problems
    return config.problems[0]


def test_no_files_no_servers(dirs: tuple[Path, Path]) -> None:
    assert load(dirs) == McpConfig(servers={}, problems=())


def test_a_stdio_server_with_every_field(dirs: tuple[Path, Path]) -> None:
    agent, project = dirs
    user = write(
        agent / "mcp.json",
        {
            "fs": {
                "type": "stdio",
                "command": "~/bin/server",
                "args": ["~/data", "-v", "a~/b"],
                "env": {"TOKEN": "${SECRET}", "PLAIN": "x"},
                "cwd": "sub",
                "timeout": 5,
                "enabled": True,
                "description": "Files",
                "exposure": "direct",
                "toolExposure": {"write_*": "hidden", "read": "deferred"},
                "someOtherClientsField": {"kept": "out"},
            }
        },
    )
    config = load(dirs, environ={**ENV, "SECRET": "s"})
    assert config.problems == ()
    server = config.servers["fs"]
    assert server.transport == "stdio"
    assert server.source == user
    assert server.command == "/home/someone/bin/server"
    assert server.args == ("/home/someone/data", "-v", "a~/b")
    assert server.env == {"TOKEN": "s", "PLAIN": "x"}
    assert server.cwd == project / "sub"
    assert server.timeout == 5.0
    assert server.description == "Files"
    assert server.exposure == "direct"
    assert server.tool_exposure == (("write_*", "hidden"), ("read", "deferred"))


def test_an_absolute_or_home_cwd(dirs: tuple[Path, Path]) -> None:
    agent, _ = dirs
    write(
        agent / "mcp.json",
        {"a": {"command": "x", "cwd": "/srv"}, "b": {"command": "x", "cwd": "~/w"}},
    )
    servers = load(dirs).servers
    assert servers["a"].cwd == Path("/srv")
    assert servers["b"].cwd == Path("/home/someone/w")


def test_an_http_server_with_headers_and_oauth(dirs: tuple[Path, Path]) -> None:
    agent, _ = dirs
    write(
        agent / "mcp.json",
        {
            "docs": {
                "type": "streamable-http",
                "url": "https://example.com/mcp",
                "headers": {"Authorization": "Bearer ${TOKEN}"},
                "oauth": {
                    "clientId": "id",
                    "clientSecret": "!echo from-a-command",
                    "clientName": "Claude Code",
                    "callbackPort": 8765,
                    "callbackUrl": "http://localhost/cb",
                    "scope": "read write",
                    "authServerMetadataUrl": "https://auth.example.com/.well-known/x",
                    "clientRegistration": "dcr",
                },
            }
        },
    )
    server = load(dirs, environ={**ENV, "TOKEN": "t0k"}).servers["docs"]
    assert server.transport == "http"
    assert server.url == "https://example.com/mcp"
    assert server.headers == {"Authorization": "Bearer t0k"}
    assert server.oauth == OAuthConfig(
        client_id="id",
        client_secret="from-a-command",
        client_name="Claude Code",
        callback_port=8765,
        callback_url="http://localhost/cb",
        scope="read write",
        auth_server_metadata_url="https://auth.example.com/.well-known/x",
        client_registration="dcr",
    )


def test_defaults(dirs: tuple[Path, Path]) -> None:
    agent, _ = dirs
    write(agent / "mcp.json", {"s": {"command": "x"}, "h": {"url": "http://localhost:3/mcp"}})
    servers = load(dirs).servers
    assert [servers["s"].transport, servers["h"].transport] == ["stdio", "http"]
    for server in servers.values():
        assert (server.enabled, server.exposure, server.timeout) == (True, "deferred", 60.0)
        assert server.tool_exposure == ()
    assert servers["s"].cwd is None
    assert servers["h"].oauth is None


def test_codemode_exposures_read_as_deferred(dirs: tuple[Path, Path]) -> None:
    agent, _ = dirs
    write(
        agent / "mcp.json",
        {"a": {"command": "x", "exposure": "codemode", "toolExposure": {"t": "codemode-deferred"}}},
    )
    server = load(dirs).servers["a"]
    assert server.exposure == "deferred"
    assert server.tool_exposure == (("t", "deferred"),)


@pytest.mark.parametrize(
    ("entry", "field", "words"),
    [
        ({"type": "sse", "url": "http://x/sse"}, "type", "often /mcp instead of /sse"),
        ({"type": "websocket", "url": "ws://x"}, "type", '"stdio", "http" or "streamable-http"'),
        ({"args": ["x"]}, None, 'needs "command"'),
        ({"type": "stdio", "url": "http://x"}, "command", "missing"),
        ({"type": "http", "command": "x"}, "url", "missing"),
        ({"command": ["npx", "x"]}, "command", "not a list"),
        ({"command": " "}, "command", "empty"),
        ({"url": "ftp://x/mcp"}, "url", "http or https"),
        ({"url": "https://"}, "url", "http or https"),
        ({"command": "x", "args": "a b"}, "args", "list of strings"),
        ({"command": "x", "args": [1]}, "args", "list of strings"),
        ({"command": "x", "env": {"A": 1}}, "env", "map names to strings"),
        ({"command": "x", "cwd": 3}, "cwd", "string"),
        ({"url": "http://x", "headers": []}, "headers", "map names to strings"),
        ({"command": "x", "timeout": 0}, "timeout", "above 0"),
        ({"command": "x", "timeout": "5"}, "timeout", "above 0"),
        ({"command": "x", "timeout": True}, "timeout", "above 0"),
        ({"command": "x", "enabled": "no"}, "enabled", "true or false"),
        ({"command": "x", "description": 1}, "description", "string"),
        ({"command": "x", "exposure": "codemode-direct"}, "exposure", '"direct", "deferred"'),
        ({"command": "x", "toolExposure": ["a"]}, "toolExposure", "must map"),
        ({"command": "x", "toolExposure": {"a": "x"}}, "toolExposure.a", "must be"),
        ({"url": "http://x", "oauth": "id"}, "oauth", "object"),
        ({"url": "http://x", "oauth": {"clientId": 1}}, "oauth.clientId", "string"),
        ({"url": "http://x", "oauth": {"callbackPort": 0}}, "oauth.callbackPort", "port"),
        ({"url": "http://x", "oauth": {"callbackPort": 8.5}}, "oauth.callbackPort", "port"),
        (
            {"url": "http://x", "oauth": {"callbackUrl": "https://localhost/cb"}},
            "oauth.callbackUrl",
            "http URL",
        ),
        (
            {"url": "http://x", "oauth": {"callbackUrl": "http://evil.test/cb"}},
            "oauth.callbackUrl",
            "localhost",
        ),
        (
            {
                "url": "http://x",
                "oauth": {"callbackUrl": "http://localhost:1/cb", "callbackPort": 2},
            },
            "oauth.callbackUrl",
            "another port",
        ),
        ({"url": "http://x", "oauth": {"clientName": " "}}, "oauth.clientName", "empty"),
        (
            {"url": "http://x", "oauth": {"clientRegistration": "x"}},
            "oauth.clientRegistration",
            '"auto"',
        ),
        (
            {"url": "http://x", "oauth": {"clientRegistration": "cimd", "clientId": "a"}},
            "oauth.clientRegistration",
            "cannot be combined",
        ),
        (
            {
                "url": "http://x",
                "oauth": {"clientRegistration": "cimd", "callbackUrl": "http://localhost/cb"},
            },
            "oauth.clientRegistration",
            "/callback",
        ),
        (
            {"url": "http://x", "oauth": {"authServerMetadataUrl": "http://auth.test/m"}},
            "oauth.authServerMetadataUrl",
            "https",
        ),
        ("npx server", None, "must be an object"),
    ],
)
def test_a_bad_entry_is_one_problem_and_the_others_load(
    dirs: tuple[Path, Path], entry: object, field: str | None, words: str
) -> None:
    agent, _ = dirs
    user = write(agent / "mcp.json", {"bad": entry, "good": {"command": "x"}})
    config = load(dirs)
    assert list(config.servers) == ["good"]
    problem = only_problem(config)
    assert (problem.file, problem.server, problem.field) == (user, "bad", field)
    assert words in problem.message


def test_good_oauth_variants(dirs: tuple[Path, Path]) -> None:
    agent, _ = dirs
    write(
        agent / "mcp.json",
        {
            "a": {
                "url": "http://x",
                "oauth": {
                    "clientRegistration": "cimd",
                    "callbackUrl": "http://127.0.0.1:9/callback",
                },
            },
            "b": {"url": "http://x", "oauth": {"authServerMetadataUrl": "http://[::1]:8/m"}},
            "c": {
                "url": "http://x",
                "oauth": {"callbackUrl": "http://[::1]:7/cb", "callbackPort": 7},
            },
        },
    )
    config = load(dirs)
    assert config.problems == ()
    assert list(config.servers) == ["a", "b", "c"]


@pytest.mark.parametrize("name", ["bad name", "a.b", "", "ünï", "a__b", "a-_b", "a--b"])
def test_bad_server_names(dirs: tuple[Path, Path], name: str) -> None:
    agent, _ = dirs
    write(agent / "mcp.json", {name: {"command": "x"}})
    problem = only_problem(load(dirs))
    assert problem.server == name
    assert "rename it" in problem.message


def test_names_differing_only_in_dash_and_underscore_are_one_server(
    dirs: tuple[Path, Path],
) -> None:
    agent, project = dirs
    write(agent / "mcp.json", {"my-tools": {"command": "a"}, "my_tools": {"command": "b"}})
    write(project / ".pith" / "mcp.json", {"my_tools": {"command": "c"}})
    config = load(dirs)
    assert [server.command for server in config.servers.values()] == ["a"]
    assert [problem.server for problem in config.problems] == ["my_tools", "my_tools"]
    assert "same server as 'my-tools'" in config.problems[0].message


def test_a_project_entry_replaces_the_user_entry(dirs: tuple[Path, Path]) -> None:
    agent, project = dirs
    write(agent / "mcp.json", {"a": {"command": "user", "env": {"K": "v"}}, "b": {"command": "b"}})
    project_file = write(
        project / ".pith" / "mcp.json",
        {"a": {"url": "http://localhost/mcp"}, "c": {"command": "c"}},
    )
    config = load(dirs)
    assert list(config.servers) == ["a", "b", "c"]
    assert config.servers["a"].url == "http://localhost/mcp"
    assert config.servers["a"].env == {}
    assert config.servers["a"].source == project_file


def test_an_untrusted_project_file_is_not_read(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    agent, project = dirs
    marker = tmp_path / "ran"
    write(agent / "mcp.json", {"a": {"command": "user"}})
    write(
        project / ".pith" / "mcp.json",
        {"a": {"command": "p", "env": {"X": f"!touch {marker}; echo x"}}, "b": {"command": "p"}},
    )
    config = load(dirs, trusted=False)
    assert [server.command for server in config.servers.values()] == ["user"]
    assert config.problems == ()
    assert not marker.exists()


def test_a_project_override_changes_only_its_three_fields(dirs: tuple[Path, Path]) -> None:
    agent, project = dirs
    user = write(
        agent / "mcp.json",
        {
            "gh": {
                "url": "https://x/mcp",
                "headers": {"A": "${T}"},
                "description": "d",
                "exposure": "direct",
            }
        },
    )
    project_file = write(
        project / ".pith" / "mcp.json",
        {"gh": {"enabled": False, "toolExposure": {"get_*": "direct"}}},
    )
    server = load(dirs).servers["gh"]
    assert (server.enabled, server.exposure, server.description) == (False, "direct", "d")
    assert server.tool_exposure == (("get_*", "direct"),)
    assert server.headers == {"A": "${T}"}  # disabled: values are not filled in
    assert (server.source, server.override) == (user, project_file)


def test_an_override_that_enables_a_server_fills_its_values(dirs: tuple[Path, Path]) -> None:
    agent, project = dirs
    write(agent / "mcp.json", {"gh": {"command": "x", "env": {"A": "${T}"}, "enabled": False}})
    write(project / ".pith" / "mcp.json", {"gh": {"enabled": True, "exposure": "hidden"}})
    server = load(dirs, environ={**ENV, "T": "v"}).servers["gh"]
    assert (server.enabled, server.exposure, server.env) == (True, "hidden", {"A": "v"})


def test_bad_overrides(dirs: tuple[Path, Path]) -> None:
    agent, project = dirs
    write(agent / "mcp.json", {"gh": {"command": "x"}})
    project_file = write(
        project / ".pith" / "mcp.json",
        {"gh": {"enabled": False, "env": {"A": "b"}}, "none": {"enabled": False}},
    )
    config = load(dirs)
    assert config.servers["gh"].enabled is True
    first, second = config.problems
    assert (first.file, first.server, first.field) == (project_file, "gh", "env")
    assert "only overrides enabled, exposure and toolExposure" in first.message
    assert (second.server, second.field) == ("none", None)
    assert "there is none" in second.message


def test_an_override_entry_in_the_user_file_is_an_ordinary_bad_entry(
    dirs: tuple[Path, Path],
) -> None:
    agent, _ = dirs
    write(agent / "mcp.json", {"gh": {"enabled": False}})
    assert 'needs "command"' in only_problem(load(dirs)).message


def test_an_unset_variable_skips_the_entry_and_names_the_variable(dirs: tuple[Path, Path]) -> None:
    agent, _ = dirs
    user = write(
        agent / "mcp.json",
        {
            "a": {"url": "http://x", "headers": {"Authorization": "Bearer ${NO_SUCH_TOKEN}"}},
            "b": {"command": "x", "env": {"A": "${NO_SUCH_TOKEN}"}, "enabled": False},
            "c": {"command": "x", "env": {"A": "!exit 1"}},
            "d": {"url": "http://x", "oauth": {"clientSecret": "${NO_SUCH_TOKEN}"}},
        },
    )
    config = load(dirs)
    assert list(config.servers) == ["b"]
    assert [(p.file, p.server, p.field) for p in config.problems] == [
        (user, "a", "headers.Authorization"),
        (user, "c", "env.A"),
        (user, "d", "oauth.clientSecret"),
    ]
    assert "NO_SUCH_TOKEN" in config.problems[0].message
    assert "exited with status 1" in config.problems[1].message


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (b'{"mcpServers": {', "not valid JSON"),
        (b'{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}', "a"),
        (b"[1, 2]", "must hold a JSON object"),
        (b'{"mcpServers": []}', "must be an object"),
        (b"\xff\xfe", "UTF-8"),
    ],
)
def test_a_file_pith_cannot_read_is_one_problem(
    dirs: tuple[Path, Path], text: bytes, words: str
) -> None:
    agent, project = dirs
    (agent / "mcp.json").write_bytes(text)
    write(project / ".pith" / "mcp.json", {"p": {"command": "x"}})
    config = load(dirs)
    assert list(config.servers) == ["p"]
    problem = only_problem(config)
    assert (problem.file, problem.server) == (agent / "mcp.json", None)
    assert words in problem.message
    assert problem.line().startswith(f"{agent / 'mcp.json'}: ")


def test_empty_file_bom_and_unknown_top_level_keys(dirs: tuple[Path, Path]) -> None:
    agent, project = dirs
    (agent / "mcp.json").write_text("  \n")
    (project / ".pith" / "mcp.json").write_bytes(
        b'\xef\xbb\xbf{"autoEnableCodemode": false, "mcpServers": {"a": {"command": "x"}}}'
    )
    config = load(dirs)
    assert config.problems == ()
    assert list(config.servers) == ["a"]


def test_a_folder_in_place_of_the_file_is_a_problem(dirs: tuple[Path, Path]) -> None:
    agent, _ = dirs
    (agent / "mcp.json").mkdir()
    problem = only_problem(load(dirs))
    assert "cannot be read" in problem.message


def test_one_command_value_runs_once_per_load(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    agent, _ = dirs
    count = tmp_path / "count"
    value = f"!echo x >> {count}; echo v"
    write(
        agent / "mcp.json",
        {"a": {"command": "x", "env": {"A": value}}, "b": {"command": "x", "env": {"B": value}}},
    )
    config = load(dirs)
    assert config.servers["b"].env == {"B": "v"}
    assert count.read_text() == "x\n"


def test_roots_are_kept_as_written_and_bad_roots_are_one_problem(dirs: tuple[Path, Path]) -> None:
    agent, _ = dirs
    box = {"command": "box"}
    write(
        agent / "mcp.json",
        {
            "plain": box,
            "some": {**box, "roots": [".", "~/notes"]},
            "none": {**box, "roots": []},
            "bad": {**box, "roots": "src"},
            "empty": {**box, "roots": [""]},
        },
    )
    config = load(dirs)
    assert config.servers["plain"].roots is None
    assert config.servers["some"].roots == (".", "~/notes")
    assert config.servers["none"].roots == ()
    assert sorted(p.server or "" for p in config.problems) == ["bad", "empty"]
    assert all(p.field == "roots" for p in config.problems)
    assert "must be a list of folder paths" in config.problems[0].message


def test_wanted_roots_resolve_home_and_relative_folders(tmp_path: Path) -> None:
    from pith.mcp._roots import wanted_roots

    cwd = tmp_path / "project"
    assert wanted_roots(None, cwd, "/home/u") == [cwd]
    assert wanted_roots(["src/../src", "~/notes", "/data/", "src"], cwd, "/home/u") == [
        cwd / "src",
        Path("/home/u/notes"),
        Path("/data"),
    ]
