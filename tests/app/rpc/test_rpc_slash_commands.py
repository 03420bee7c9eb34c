"""A `prompt` that is a `/command` over RPC: it runs at once and never reaches the model; an
unknown command, or one that needs the terminal, is a failure response."""

from __future__ import annotations

from tests.app.rpc.conftest import Start
from tests.app.rpc.test_rpc_prompting import data


def test_name_runs_at_once_and_names_the_session(rpc: Start) -> None:
    client, server = rpc({"turns": []})
    answer = client.request("prompt", message="/name refactor")
    assert data(answer) == {"disposition": "handled"}
    notice = client.wait_for(lambda r: r.get("method") == "notify")
    assert notice["message"] == "Session named 'refactor'."
    assert data(client.request("get_state"))["sessionName"] == "refactor"
    assert client.close() == 0
    assert server.requests == []


def test_session_is_shown_as_a_notice(rpc: Start) -> None:
    client, server = rpc({"turns": []})
    state = data(client.request("get_state"))
    assert data(client.request("prompt", message="/session")) == {"disposition": "handled"}
    notice = client.wait_for(lambda r: r.get("method") == "notify")
    assert f"id        {state['sessionId']}" in notice["message"]
    assert client.close() == 0
    assert server.requests == []


def test_an_unknown_command_is_a_failure_response(rpc: Start) -> None:
    client, server = rpc({"turns": []})
    refused = client.request("prompt", message="/frobnicate now")
    assert refused["success"] is False
    assert refused["error"] == (
        "prompt: unknown command /frobnicate; to send it as text, start with a space "
        '(" /frobnicate …"); /help lists the commands'
    )
    steered = client.request("steer", message="/frobnicate now")
    assert steered["success"] is False
    assert "unknown command /frobnicate" in steered["error"]
    assert client.close() == 0
    assert server.requests == []


def test_a_terminal_only_command_is_a_failure_response(rpc: Start) -> None:
    client, server = rpc({"turns": []})
    refused = client.request("prompt", message="/settings")
    assert refused["success"] is False
    assert refused["error"].startswith("prompt: /settings needs the terminal; ")
    picker = client.request("prompt", message="/model")
    assert picker["success"] is False
    assert picker["error"].startswith("prompt: /model needs the terminal to choose from a list")
    assert client.close() == 0
    assert server.requests == []


def test_get_commands_leaves_out_the_terminal_only_ones(rpc: Start) -> None:
    client, _ = rpc({"turns": []})
    names = {c["name"] for c in data(client.request("get_commands"))["commands"]}
    assert {"name", "session", "context", "tree", "model", "compact"} <= names
    assert not names & {"settings", "copy", "resume", "quit", "exit"}
