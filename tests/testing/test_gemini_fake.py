"""The fake server's Gemini routes, checked against Google's official `google-genai` client."""

from __future__ import annotations

import base64

import httpx2
import pytest
from google import genai
from google.genai import errors, types

from pith.testing import FakeServer

_clients: list[genai.Client] = []


def client(server: FakeServer) -> genai.Client:
    options = types.HttpOptions(base_url=server.url, api_version="v1beta")
    made = genai.Client(api_key="k", http_options=options)
    _clients.append(made)  # a collected client closes its connection pool mid-stream
    return made


def stream(server: FakeServer, text: str = "hi") -> list[types.GenerateContentResponse]:
    return list(client(server).models.generate_content_stream(model="gem", contents=text))


def test_stream_carries_thoughts_text_usage_and_a_signature_on_the_last_part() -> None:
    usage = {"input": 10, "output": 30, "cacheRead": 5, "reasoning": 12}
    script = {"turns": [{"thinking": "Let me see", "text": "Hello there", "usage": usage}]}
    with FakeServer(script) as server:
        chunks = stream(server)
        request = server.requests[-1]
    assert request["path"] == "/v1beta/models/gem:streamGenerateContent?alt=sse"
    assert "x-goog-api-key" not in request["headers"]  # secrets stay out of the log
    parts = [part for chunk in chunks for part in chunk.candidates[0].content.parts]
    thoughts = "".join(p.text for p in parts if p.thought)
    text = "".join(p.text for p in parts if not p.thought)
    assert (thoughts, text) == ("Let me see", "Hello there")
    assert [p.thought_signature for p in parts if p.thought_signature] == [b"fake-thought-0"]
    assert parts[-1].thought_signature == b"fake-thought-0"
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP
    meta = chunks[-1].usage_metadata
    assert meta is not None
    assert (meta.prompt_token_count, meta.cached_content_token_count) == (15, 5)
    assert (meta.candidates_token_count, meta.thoughts_token_count) == (18, 12)
    assert meta.total_token_count == 45


def test_function_calls_come_whole_with_the_signature_on_the_first() -> None:
    calls = [
        {"name": "read", "arguments": {"path": "a.txt"}, "id": "c1"},
        {"name": "ls", "arguments": {}},
    ]
    signature = base64.b64encode(b"sig").decode()
    with FakeServer({"turns": [{"tool_calls": calls, "signature": signature}]}) as server:
        chunks = stream(server)
    parts = [part for chunk in chunks for part in chunk.candidates[0].content.parts]
    assert [(p.function_call.name, p.function_call.args) for p in parts if p.function_call] == [
        ("read", {"path": "a.txt"}),
        ("ls", {}),
    ]
    assert parts[0].function_call is not None
    assert parts[0].function_call.id == "c1"
    assert [p.thought_signature for p in parts] == [b"sig", None]
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP


def test_non_streaming_reply_is_one_response() -> None:
    with FakeServer({"turns": [{"text": "Hello there", "stop": "length"}]}) as server:
        reply = client(server).models.generate_content(model="gem", contents="hi")
        path = server.requests[-1]["path"]
    assert path == "/v1beta/models/gem:generateContent"
    assert reply.text == "Hello there"
    assert reply.candidates[0].finish_reason == types.FinishReason.MAX_TOKENS


def test_safety_finish_and_prompt_block_are_what_the_client_reports() -> None:
    turns = [
        {"text": "I was about to", "fault": {"finishReason": "SAFETY"}},
        {"fault": {"blockReason": "PROHIBITED_CONTENT"}},
    ]
    with FakeServer({"turns": turns}) as server:
        safety = stream(server)
        blocked = stream(server)
    assert safety[-1].candidates[0].finish_reason == types.FinishReason.SAFETY
    feedback = blocked[-1].prompt_feedback
    assert feedback is not None
    assert feedback.block_reason == types.BlockedReason.PROHIBITED_CONTENT
    assert not blocked[-1].candidates


def test_errors_and_overflow_use_google_error_json() -> None:
    turns = [{"fault": {"status": 429}}, {"fault": {"overflow": True}}]
    with FakeServer({"turns": turns}) as server:
        with pytest.raises(errors.ClientError) as limited:
            stream(server)
        with pytest.raises(errors.ClientError) as overflow:
            stream(server)
    assert (limited.value.code, limited.value.status) == (429, "RESOURCE_EXHAUSTED")
    assert overflow.value.code == 400
    assert "exceeds the maximum number of tokens" in str(overflow.value.message)


def test_cut_stream_breaks_the_body_before_the_finish_reason() -> None:
    script = {"turns": [{"text": "Hello there, friend", "fault": {"cutAfter": 2}}]}
    received: list[types.GenerateContentResponse] = []
    with FakeServer(script) as server:
        chunks = client(server).models.generate_content_stream(model="gem", contents="hi")
        with pytest.raises(httpx2.RemoteProtocolError):
            received.extend(chunks)
    assert [c.candidates[0].content.parts[0].text for c in received] == ["Hell", "o th"]
    assert all(c.candidates[0].finish_reason is None for c in received)
