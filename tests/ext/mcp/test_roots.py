"""The roots pith offers an MCP server, through the real `pith -p`, the toolbox server (its
`roots` tool asks the client for its roots) and the fake model server: the session's folder by
default, configured folders judged by the permission system like a write there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pith.testing import FakeServer, configure_agent_dir
from tests.ext.mcp.test_runs import Run, call, tool_result_texts, toolbox


@pytest.fixture
def run(tmp_path: Path) -> Run:
    return Run(tmp_path)


def roots_answer(run: Run, *args: str) -> tuple[str, str]:
    """What the toolbox's `roots` tool saw, and pith's stderr."""
    script = {"turns": [call("mcp__box__roots"), {"text": "done"}]}
    with FakeServer(script) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith(*args, "which roots?")
        requests = server.requests
    assert result.returncode == 0, result.stderr
    texts = tool_result_texts(requests[1])
    assert texts, requests[1]
    return texts[0], result.stderr


def settings(run: Run, permission: dict[str, object]) -> None:
    path = run.agent / "settings.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data["permission"] = permission
    path.write_text(json.dumps(data))


def test_a_server_gets_the_session_folder_as_its_root(run: Run) -> None:
    run.servers(box=toolbox(exposure="direct"))
    answer, _ = roots_answer(run)
    assert answer == f"{run.work.resolve().as_uri()} work"


def test_a_configured_folder_outside_the_project_is_not_offered_without_asking(
    run: Run, tmp_path: Path
) -> None:
    outside = tmp_path / "notes"
    outside.mkdir()
    (run.work / "src").mkdir()
    run.servers(box=toolbox(exposure="direct", roots=["src", str(outside)]))
    answer, stderr = roots_answer(run)
    assert answer == (run.work / "src").resolve().as_uri() + " src"
    assert f"not offered the folder {outside}" in stderr
    assert "no one to ask" in stderr
    assert '"external_directory"' in stderr  # how to allow it


def test_an_external_directory_rule_or_yes_lets_the_folder_through(
    run: Run, tmp_path: Path
) -> None:
    outside = tmp_path / "notes"
    outside.mkdir()
    run.servers(box=toolbox(exposure="direct", roots=[".", str(outside)]))
    settings(run, {"external_directory": {f"{outside}/*": "allow"}})
    answer, stderr = roots_answer(run)
    assert answer.splitlines() == [
        f"{run.work.resolve().as_uri()} work",
        f"{outside.as_uri()} notes",
    ]
    assert "not offered" not in stderr
    settings(run, {})
    answer, _ = roots_answer(run, "--yes")
    assert len(answer.splitlines()) == 2


def test_a_denied_path_is_never_offered_even_with_yes(run: Run) -> None:
    (run.work / "secret").mkdir()
    run.servers(box=toolbox(exposure="direct", roots=["secret"]))
    settings(run, {"path": {f"{run.work.resolve()}/secret/*": "deny"}})
    answer, stderr = roots_answer(run, "--yes")
    assert answer == "(no roots)"
    assert "not offered the folder" in stderr


def test_a_folder_holding_the_agent_directory_asks_even_under_a_broad_allow(
    run: Run, tmp_path: Path
) -> None:
    run.servers(box=toolbox(exposure="direct", roots=[str(tmp_path)]))
    settings(run, {"external_directory": {"*": "allow"}, "*": "allow"})
    answer, stderr = roots_answer(run)
    assert answer == "(no roots)"
    assert f"holds {run.agent}" in stderr


def test_an_empty_roots_list_offers_nothing(run: Run) -> None:
    run.servers(box=toolbox(exposure="direct", roots=[]))
    answer, _ = roots_answer(run)
    assert answer == "(no roots)"


def test_the_person_is_asked_once_when_someone_can_answer(tmp_path: Path) -> None:
    from tests.app.rpc.client import Record, RpcClient

    work, agent, notes = tmp_path / "work", tmp_path / "agent", tmp_path / "notes"
    for folder in (work, agent, notes):
        folder.mkdir()
    config = {"mcpServers": {"box": toolbox(exposure="direct", roots=[str(notes)])}}
    (agent / "mcp.json").write_text(json.dumps(config))
    script = {"turns": [call("mcp__box__roots"), call("mcp__box__roots"), {"text": "done"}]}

    def is_question(record: Record) -> bool:
        return record["type"] == "extension_ui_request" and record["method"] == "select"

    with FakeServer(script) as server:
        configure_agent_dir(agent, server)
        client = RpcClient(work, agent)
        try:
            client.request("prompt", message="which roots?")
            question = client.wait_for(is_question, "the roots question")
            assert f"Offer the MCP server 'box' the folder {notes} as a root?" in question["title"]
            client.send(
                {"type": "extension_ui_response", "id": question["id"], "value": "Allow once"}
            )
            client.settled()
            asked = [r for r in client.records if is_question(r)]
        finally:
            client.kill()
        requests = server.requests
    assert len(asked) == 1  # the second call reuses the answer
    assert tool_result_texts(requests[1])[0] == f"{notes.as_uri()} notes"
    assert tool_result_texts(requests[2])[-1] == f"{notes.as_uri()} notes"
