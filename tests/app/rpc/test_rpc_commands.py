"""The state, model, thinking, queue-mode, compaction, retry, bash and listing commands of
`pith --mode rpc`, each against the real process."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from pith.testing import FakeServer
from tests.app.rpc.client import RpcClient
from tests.app.rpc.conftest import Start
from tests.app.rpc.test_rpc_prompting import bash_call, data, roles


def two_models(agent: Path, server: FakeServer) -> None:
    """Provider `fake` with `m` and a reasoning model `r`."""
    provider = {
        "baseUrl": server.base_url,
        "api": "openai-completions",
        "apiKey": "k",
        "models": [{"id": "m"}, {"id": "r", "reasoning": True, "contextWindow": 64000}],
    }
    (agent / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))


def restart(client: RpcClient, tmp_path: Path, *args: str) -> RpcClient:
    assert client.close() == 0
    return RpcClient(tmp_path / "work", tmp_path / "agent", *args)


def test_get_state_describes_the_session(rpc: Start) -> None:
    client, _ = rpc({"turns": []}, "--name", "my work")
    state = data(client.request("get_state"))
    assert state["model"]["id"] == "m"
    assert state["model"]["provider"] == "fake"
    assert state["model"]["contextWindow"] == 128000
    assert {key: state[key] for key in state if key != "model"} == {
        "thinkingLevel": "off",
        "isStreaming": False,
        "isCompacting": False,
        "steeringMode": "one-at-a-time",
        "followUpMode": "one-at-a-time",
        "sessionFile": state["sessionFile"],
        "sessionId": state["sessionId"],
        "sessionName": "my work",
        "autoCompactionEnabled": True,
        "messageCount": 0,
        "pendingMessageCount": 0,
    }
    assert state["sessionFile"].endswith(f"_{state['sessionId']}.jsonl")


def test_models_can_be_listed_set_and_cycled(rpc: Start, tmp_path: Path) -> None:
    client, server = rpc({"turns": []})
    two_models(tmp_path / "agent", server)
    client = restart(client, tmp_path)
    available = data(client.request("get_available_models"))["models"]
    assert [m["id"] for m in available] == ["m", "r"]
    chosen = data(client.request("set_model", provider="fake", modelId="r"))
    assert (chosen["id"], chosen["reasoning"]) == ("r", True)
    assert data(client.request("get_state"))["model"]["id"] == "r"
    missing = client.request("set_model", provider="fake", modelId="nope")
    assert missing["error"] == "Model not found: fake/nope"
    cycled = data(client.request("cycle_model"))
    assert (cycled["model"]["id"], cycled["isScoped"]) == ("m", False)
    assert data(client.request("cycle_model"))["model"]["id"] == "r"


def test_cycle_model_with_one_model_gives_null(rpc: Start) -> None:
    client, _ = rpc({"turns": []})
    assert client.request("cycle_model")["data"] is None


def test_thinking_levels_follow_the_model(rpc: Start, tmp_path: Path) -> None:
    client, server = rpc({"turns": []})
    two_models(tmp_path / "agent", server)
    client = restart(client, tmp_path)
    assert data(client.request("get_available_thinking_levels")) == {"levels": ["off"]}
    assert client.request("cycle_thinking_level")["data"] is None
    client.request("set_model", provider="fake", modelId="r")
    levels = data(client.request("get_available_thinking_levels"))["levels"]
    assert levels == ["off", "minimal", "low", "medium", "high", "xhigh", "max"]
    assert "data" not in client.request("set_thinking_level", level="high")
    assert data(client.request("get_state"))["thinkingLevel"] == "high"
    assert data(client.request("cycle_thinking_level")) == {"level": "xhigh"}
    bad = client.request("set_thinking_level", level="extreme")
    assert bad["success"] is False
    assert "'level' must be one of" in str(bad["error"])
    client.request("set_model", provider="fake", modelId="m")
    assert data(client.request("get_state"))["thinkingLevel"] == "off"


def test_queue_modes_and_auto_compaction_are_set(rpc: Start) -> None:
    client, _ = rpc({"turns": []})
    assert data(client.request("set_steering_mode", mode="all")) is None
    client.request("set_follow_up_mode", mode="all")
    client.request("set_auto_compaction", enabled=False)
    state = data(client.request("get_state"))
    assert (state["steeringMode"], state["followUpMode"]) == ("all", "all")
    assert state["autoCompactionEnabled"] is False
    bad = client.request("set_steering_mode", mode="sometimes")
    assert bad["error"] == (
        'set_steering_mode: \'mode\' must be one of "one-at-a-time", "all" '
        '(got the string "sometimes")'
    )


def test_steering_mode_all_delivers_every_queued_message_at_once(rpc: Start) -> None:
    client, server = rpc(
        {"turns": [bash_call("sleep 0.6"), {"text": "both", "expect": ["first", "second"]}]}
    )
    client.request("set_steering_mode", mode="all")
    client.request("prompt", message="go")
    client.event("tool_execution_start")
    client.request("steer", message="first")
    client.request("steer", message="second")
    client.settled()
    messages = data(client.request("get_messages"))["messages"]
    assert roles(messages) == ["user", "assistant", "toolResult", "user", "user", "assistant"]
    assert server.problems() == []


def test_compact_summarizes_and_says_what_it_kept(rpc: Start, tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 1}}))
    script = {
        "turns": [
            {"text": "first answer " * 50},
            {"text": "second answer"},
            {
                "text": "## Goal\nsummarized",
                "match": ["summar"],
                "unless": ["# Conversation"],
                "expect": ["keep the goal"],
            },
            {"text": "the turn so far", "match": ["# Conversation"]},
        ]
    }
    client, _ = rpc(script)
    for text in ("first question", "second question"):
        client.request("prompt", message=text)
        client.settled()
    compacted = data(client.request("compact", customInstructions="keep the goal"))
    assert compacted["summary"].startswith("## Goal\nsummarized")
    assert "the turn so far" in compacted["summary"]
    assert compacted["tokensBefore"] > 0
    assert compacted["estimatedTokensAfter"] > 0
    assert compacted["firstKeptEntryId"]
    assert [r["type"] for r in client.records if r["type"].startswith("compaction")] == [
        "compaction_start",
        "compaction_end",
    ]
    again = client.request("compact")
    assert again["success"] is False
    assert "compact" in str(again["error"]).lower()


def test_abort_retry_stops_waiting_for_the_retry(rpc: Start) -> None:
    failing = {"fault": {"status": 503, "retryAfter": 30, "message": "overloaded"}}
    client, _ = rpc({"turns": [failing]})
    client.request("prompt", message="hi")
    started = client.event("auto_retry_start")
    assert started["attempt"] == 1
    began = time.monotonic()
    assert client.request("abort_retry")["success"] is True
    ended = client.event("auto_retry_end")
    assert ended["success"] is False
    client.settled()
    assert time.monotonic() - began < 10


def test_with_auto_retry_off_a_failure_is_final(rpc: Start) -> None:
    client, _ = rpc({"turns": [{"fault": {"status": 503, "message": "overloaded"}}]})
    client.request("set_auto_retry", enabled=False)
    client.request("prompt", message="hi")
    client.settled()
    assert not any(r["type"] == "auto_retry_start" for r in client.records)


def test_bash_streams_its_output_and_records_it(rpc: Start) -> None:
    client, server = rpc({"turns": [{"text": "seen", "expect": ["Ran `echo one; echo two`"]}]})
    request_id = client.command("bash", command="echo one; echo two")
    result = data(client.response(request_id))
    assert result == {"output": "one\ntwo\n", "exitCode": 0, "cancelled": False, "truncated": False}
    updates = [r for r in client.records if r["type"] == "bash_execution_update"]
    assert {r["id"] for r in updates} == {request_id}
    assert "".join(str(r["delta"]) for r in updates) == "one\ntwo\n"
    client.request("prompt", message="what did it say?")
    client.settled()
    assert server.problems() == []


def test_abort_bash_stops_the_command(rpc: Start) -> None:
    client, _ = rpc({"turns": []})
    request_id = client.command("bash", command="echo started; sleep 30")
    client.event("bash_execution_update")
    assert client.request("abort_bash")["success"] is True
    result = data(client.response(request_id))
    assert result["cancelled"] is True
    assert result["output"].startswith("started")


def test_session_stats_count_messages_tokens_and_context(rpc: Start) -> None:
    usage = {"input": 100, "output": 20, "cacheRead": 5, "cacheWrite": 0}
    client, _ = rpc(
        {"turns": [bash_call("true") | {"usage": usage}, {"text": "ok", "usage": usage}]}
    )
    client.request("prompt", message="go")
    client.settled()
    stats = data(client.request("get_session_stats"))
    assert {k: stats[k] for k in ("userMessages", "assistantMessages", "toolCalls")} == {
        "userMessages": 1,
        "assistantMessages": 2,
        "toolCalls": 1,
    }
    assert (stats["toolResults"], stats["totalMessages"]) == (1, 4)
    assert stats["tokens"] == {
        "input": 200,
        "output": 40,
        "cacheRead": 10,
        "cacheWrite": 0,
        "total": 250,
    }
    assert stats["contextUsage"]["contextWindow"] == 128000
    assert stats["contextUsage"]["tokens"] > 0


def test_get_commands_lists_builtins_templates_and_skills(rpc: Start, tmp_path: Path) -> None:
    prompts = tmp_path / "agent" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "review.md").write_text("---\ndescription: review the diff\n---\nReview $@\n")
    client, _ = rpc({"turns": []})
    commands: list[dict[str, Any]] = data(client.request("get_commands"))["commands"]
    by_name = {c["name"]: c for c in commands}
    assert by_name["compact"]["source"] == "builtin"
    review = by_name["review"]
    assert (review["source"], review["description"]) == ("prompt", "review the diff")
    assert review["sourceInfo"]["path"] == str(prompts / "review.md")


def test_export_html_writes_the_page(rpc: Start, tmp_path: Path) -> None:
    client, _ = rpc({"turns": [{"text": "the answer"}]})
    client.request("prompt", message="the question")
    client.settled()
    state = data(client.request("get_state"))
    default = data(client.request("export_html"))["path"]
    assert default == str(tmp_path / "work" / f"pith-session-{state['sessionId']}.html")
    chosen = data(client.request("export_html", outputPath=str(tmp_path / "page.html")))
    assert chosen == {"path": str(tmp_path / "page.html")}
    page = (tmp_path / "page.html").read_text()
    assert "the question" in page
    assert "the answer" in page
    refused = client.request("export_html", outputPath=str(tmp_path / "no" / "such" / "x.html"))
    assert refused["success"] is False
    assert "cannot write the export" in str(refused["error"])
