"""Session commands of `pith --mode rpc`: new, switch, fork, clone, entries, tree, names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.app.rpc.client import RpcClient
from tests.app.rpc.conftest import Start
from tests.app.rpc.test_rpc_prompting import data, roles, user_texts


def chat(client: RpcClient, *prompts: str) -> None:
    for text in prompts:
        client.request("prompt", message=text)
        client.settled()


def file_lines(path: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def test_entries_come_in_order_and_since_a_cursor(rpc: Start) -> None:
    client, _ = rpc({"turns": [{"text": "a1"}, {"text": "a2"}]})
    chat(client, "q1")
    first = data(client.request("get_entries"))
    ids = [entry["id"] for entry in first["entries"]]
    assert first["leafId"] == ids[-1]
    chat(client, "q2")
    later = data(client.request("get_entries", since=ids[-1]))
    assert [e["message"]["role"] for e in later["entries"] if e["type"] == "message"] == [
        "user",
        "assistant",
    ]
    assert later["entries"][0]["parentId"] == ids[-1]
    unknown = client.request("get_entries", since="nope")
    assert unknown["success"] is False
    assert "no entry nope" in str(unknown["error"])


def test_the_tree_shows_branches_and_labels(rpc: Start) -> None:
    client, _ = rpc({"turns": [{"text": "a1"}, {"text": "a2"}]})
    chat(client, "q1", "q2")
    tree = data(client.request("get_tree"))
    roots = tree["tree"]
    assert len(roots) == 1
    depth, node = 0, roots[0]
    while node["children"]:
        assert len(node["children"]) == 1
        node, depth = node["children"][0], depth + 1
    assert node["entry"]["id"] == tree["leafId"]
    assert node["entry"]["message"]["role"] == "assistant"


def test_fork_starts_a_new_session_before_a_user_message(rpc: Start) -> None:
    client, _ = rpc({"turns": [{"text": "a1"}, {"text": "a2"}]})
    chat(client, "q1", "q2")
    old = data(client.request("get_state"))["sessionFile"]
    points = data(client.request("get_fork_messages"))["messages"]
    assert [p["text"] for p in points] == ["q1", "q2"]
    forked = data(client.request("fork", entryId=points[1]["entryId"]))
    assert forked == {"text": "q2", "cancelled": False}
    state = data(client.request("get_state"))
    assert state["sessionFile"] != old
    assert user_texts(data(client.request("get_messages"))["messages"]) == ["q1"]
    bad = client.request("fork", entryId="missing")
    assert bad["success"] is False
    assert "missing" in str(bad["error"])


def test_clone_copies_the_branch_into_a_new_session(rpc: Start) -> None:
    client, _ = rpc({"turns": [{"text": "a1"}]})
    chat(client, "q1")
    old = data(client.request("get_state"))["sessionFile"]
    assert data(client.request("clone")) == {"cancelled": False}
    new = data(client.request("get_state"))["sessionFile"]
    assert new != old
    assert file_lines(new)[0]["parentSession"] == old
    assert roles(data(client.request("get_messages"))["messages"]) == ["user", "assistant"]


def test_new_session_and_switching_back(rpc: Start) -> None:
    client, _ = rpc({"turns": [{"text": "a1"}, {"text": "a2"}]})
    chat(client, "in the first")
    first = data(client.request("get_state"))["sessionFile"]
    assert data(client.request("new_session", parentSession=first)) == {"cancelled": False}
    assert data(client.request("get_state"))["messageCount"] == 0
    chat(client, "in the second")
    second = data(client.request("get_state"))["sessionFile"]
    assert second != first
    assert file_lines(second)[0]["parentSession"] == first
    assert data(client.request("switch_session", sessionPath=first)) == {"cancelled": False}
    assert user_texts(data(client.request("get_messages"))["messages"]) == ["in the first"]
    missing = client.request("switch_session", sessionPath="/nowhere/x.jsonl")
    assert missing["error"] == "switch_session: no session file at /nowhere/x.jsonl"


def test_a_session_is_named(rpc: Start) -> None:
    client, _ = rpc({"turns": [{"text": "a1"}]})
    chat(client, "q1")
    assert "data" not in client.request("set_session_name", name="  refactor  ")
    state = data(client.request("get_state"))
    assert state["sessionName"] == "refactor"
    assert file_lines(state["sessionFile"])[-1]["name"] == "refactor"
    empty = client.request("set_session_name", name="   ")
    assert empty["success"] is False


def test_a_session_cannot_be_left_while_the_agent_works(rpc: Start) -> None:
    slow = {"text": "z" * 100, "chunk": 1, "fault": {"chunkDelay": 0.05}}
    client, _ = rpc({"turns": [slow]})
    client.request("prompt", message="go")
    client.event("message_update")
    refused = client.request("new_session")
    assert refused["success"] is False
    assert "while the agent is working" in str(refused["error"])
    client.request("abort")
