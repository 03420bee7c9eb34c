"""Extension questions over RPC: the permission system's ask dialog answered by the client, a
question that times out, notices, and commands listed and run through prompt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pith.testing import FakeServer
from tests.app.rpc.client import Record
from tests.app.rpc.conftest import Start


def read_call(path: Path) -> dict[str, Any]:
    return {"tool_calls": [{"name": "read", "arguments": {"path": str(path)}}]}


def tool_text(server: FakeServer, n: int) -> str:
    """The text of the last tool result the model got in request `n`."""
    messages: Any = server.requests[n]["body"]["messages"]  # type: ignore[index]
    content = [m for m in messages if m["role"] == "tool"][-1]["content"]
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


def is_question(record: Record) -> bool:
    return record["type"] == "extension_ui_request" and record["method"] in ("select", "input")


def test_a_permission_ask_is_answered_by_the_client(rpc: Start, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret plans\n")
    client, server = rpc({"turns": [read_call(outside), {"text": "read it"}]})
    client.request("prompt", message="read the file outside")
    question = client.wait_for(is_question, "the permission question")
    assert question["method"] == "select"
    assert str(outside) in str(question["title"])
    assert "Allow once" in question["options"]
    client.send({"type": "extension_ui_response", "id": question["id"], "value": "Allow once"})
    client.settled()
    assert "secret plans" in tool_text(server, 1)
    assert server.problems() == []


def test_a_permission_denied_with_a_reason_tells_the_model(rpc: Start, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret plans\n")
    client, server = rpc({"turns": [read_call(outside), {"text": "understood"}]})
    client.request("prompt", message="read it")
    select = client.wait_for(is_question)
    deny = next(option for option in select["options"] if option.startswith("Deny, and tell"))
    client.send({"type": "extension_ui_response", "id": select["id"], "value": deny})
    reason = client.wait_for(is_question)
    assert reason["method"] == "input"
    client.send({"type": "extension_ui_response", "id": reason["id"], "value": "not that file"})
    client.settled()
    told = tool_text(server, 1)
    assert "secret plans" not in told
    assert told.startswith("Permission denied by the user")
    assert told.endswith("Reason: not that file")


def test_a_cancelled_question_is_a_no(rpc: Start, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret plans\n")
    client, server = rpc({"turns": [read_call(outside), {"text": "ok"}]})
    client.request("prompt", message="read it")
    question = client.wait_for(is_question)
    client.send({"type": "extension_ui_response", "id": question["id"], "cancelled": True})
    client.settled()
    assert "secret plans" not in tool_text(server, 1)


ASKING_EXTENSION = """
async def ask(args, ctx):
    answer = await ctx.ui.confirm("Proceed?", "nobody will answer", timeout=0.3)
    ctx.ui.notify(f"answer={answer}")


def register(api):
    api.register_command("ask", ask, description="asks and tells")
"""


def test_a_question_nobody_answers_times_out_to_its_default(rpc: Start, tmp_path: Path) -> None:
    extensions = tmp_path / "agent" / "extensions"
    extensions.mkdir(parents=True)
    (extensions / "asking.py").write_text(ASKING_EXTENSION)
    client, _ = rpc({"turns": []})
    commands = client.request("get_commands")["data"]["commands"]
    ask = next(c for c in commands if c["name"] == "ask")
    assert (ask["source"], ask["description"]) == ("extension", "asks and tells")
    assert client.request("prompt", message="/ask")["data"] == {"disposition": "handled"}
    question = client.wait_for(lambda r: r.get("method") == "confirm")
    assert question["timeout"] == 300
    assert question["title"] == "Proceed?"
    notice = client.wait_for(lambda r: r.get("method") == "notify")
    assert notice["message"] == "[asking] answer=False"
    assert notice["notifyType"] == "info"
    late = {"type": "extension_ui_response", "id": question["id"], "confirmed": True}
    client.send(late)  # too late: ignored, said on stderr, nothing on stdout
    assert client.request("get_state")["success"] is True
    assert client.close() == 0
    assert "answers no open question" in client.stderr
