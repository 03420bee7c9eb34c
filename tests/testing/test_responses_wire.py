"""The fake server's OpenAI Responses route, driven by the official `openai` SDK."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest
from openai.types.responses import (
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseIncompleteEvent,
    ResponseOutputMessage,
    ResponseReasoningItem,
    ResponseStreamEvent,
)

from pith.testing import FakeServer

TURN = {
    "thinking": "The user wants a file.",
    "text": "Reading it.",
    "tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}],
    "usage": {"input": 100, "output": 30, "cacheRead": 400, "reasoning": 12},
    "chunk": 5,
}


@pytest.fixture
def client() -> Iterator[openai.OpenAI]:
    with FakeServer({"turns": [TURN]}) as server:
        sdk = openai.OpenAI(base_url=server.base_url, api_key="sk-x", max_retries=0, timeout=10)
        yield sdk
        sdk.close()
        assert server.problems() == []


def stream(client: openai.OpenAI) -> list[ResponseStreamEvent]:
    events = client.responses.create(model="gpt-5", input="hi", stream=True, store=False)
    return list(events)


def test_the_sdk_parses_every_event_and_the_final_response(client: openai.OpenAI) -> None:
    events = stream(client)
    kinds = [event.type for event in events]
    assert kinds[:3] == ["response.created", "response.in_progress", "response.output_item.added"]
    assert kinds[-1] == "response.completed"
    assert [e.sequence_number for e in events] == list(range(len(events)))
    summary = "".join(e.delta for e in events if e.type == "response.reasoning_summary_text.delta")
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    arguments = "".join(
        e.delta for e in events if e.type == "response.function_call_arguments.delta"
    )
    assert (summary, text, arguments) == (
        "The user wants a file.",
        "Reading it.",
        '{"path":"a.txt"}',
    )
    final = events[-1]
    assert isinstance(final, ResponseCompletedEvent)
    reasoning, message, call = final.response.output
    assert isinstance(reasoning, ResponseReasoningItem)
    assert reasoning.encrypted_content == "fake-encrypted-0"
    assert [part.text for part in reasoning.summary] == ["The user wants a file."]
    assert isinstance(message, ResponseOutputMessage)
    assert message.content[0].type == "output_text"
    assert isinstance(call, ResponseFunctionToolCall)
    assert (call.call_id, call.name, call.id) == ("call_0_0", "read", "fc_fake_1_0")
    usage = final.response.usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (500, 30, 530)
    assert usage.input_tokens_details.cached_tokens == 400
    assert usage.output_tokens_details.reasoning_tokens == 12


def test_the_sdk_accumulates_the_stream_into_the_same_response(client: openai.OpenAI) -> None:
    with client.responses.stream(model="gpt-5", input="hi", store=False) as events:
        response = events.get_final_response()
    assert response.output_text == "Reading it."
    assert response.id == "resp_fake_1"


def test_a_length_turn_is_an_incomplete_response() -> None:
    with FakeServer({"turns": [{"text": "cut", "stop": "length"}]}) as server:
        sdk = openai.OpenAI(base_url=server.base_url, api_key="sk-x", max_retries=0)
        events = list(sdk.responses.create(model="m", input="hi", stream=True))
        sdk.close()
    final = events[-1]
    assert isinstance(final, ResponseIncompleteEvent)
    assert final.response.status == "incomplete"
    assert final.response.incomplete_details is not None
    assert final.response.incomplete_details.reason == "max_output_tokens"


def test_faults_are_the_sdk_errors_of_the_api() -> None:
    script = {
        "turns": [
            {"fault": {"status": 429, "retryAfter": 2}},
            {"fault": {"overflow": True}},
            {"text": "a long reply", "fault": {"cutAfter": 4}},
        ]
    }
    with FakeServer(script) as server:
        sdk = openai.OpenAI(base_url=server.base_url, api_key="sk-x", max_retries=0)
        with pytest.raises(openai.RateLimitError) as limited:
            sdk.responses.create(model="m", input="hi", stream=True)
        with pytest.raises(openai.BadRequestError) as overflow:
            sdk.responses.create(model="m", input="hi", stream=True)
        received: list[ResponseStreamEvent] = []
        with pytest.raises(openai.APIConnectionError):
            received.extend(sdk.responses.create(model="m", input="hi", stream=True))
        sdk.close()
    assert limited.value.response.headers["retry-after"] == "2"
    assert "exceeds the context window" in overflow.value.message
    assert len(received) == 4


def test_a_non_streaming_request_gets_the_whole_response() -> None:
    with FakeServer({"turns": [TURN]}) as server:
        sdk = openai.OpenAI(base_url=server.base_url, api_key="sk-x", max_retries=0)
        response = sdk.responses.create(model="m", input="hi")
        sdk.close()
    assert response.output_text == "Reading it."
    assert [item.type for item in response.output] == ["reasoning", "message", "function_call"]
