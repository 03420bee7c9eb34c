"""The fake server's prompt-cache model (`"promptCache": true`), over real HTTP with the
official `anthropic` and `openai` SDKs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest

from pith.testing import FakeServer, ScriptError
from pith.testing._cache import Blocks, PromptCache, anthropic_blocks

SYSTEM = "You are a careful agent. " * 400  # ~10 000 characters, ~2 500 tokens
FILE = "def f(x):\n    return x * 2  # a line of a file the agent read\n" * 120
EPHEMERAL: dict[str, str] = {"type": "ephemeral"}

_clients: list[anthropic.Anthropic | openai.OpenAI] = []


@pytest.fixture(autouse=True)
def _close_clients() -> Iterator[None]:
    yield
    while _clients:
        _clients.pop().close()


def cached_script(turns: int = 6) -> dict[str, object]:
    return {"promptCache": True, "turns": [{"text": "ok"} for _ in range(turns)]}


# --- Anthropic: breakpoints ----------------------------------------------------------------------


def ask_anthropic(server: FakeServer, messages: list[Any], *, marked: bool = True) -> Any:
    client = anthropic.Anthropic(
        base_url=server.anthropic_base_url, api_key="sk-ant", max_retries=0, timeout=10.0
    )
    _clients.append(client)
    system: list[Any] = [{"type": "text", "text": SYSTEM}]
    if marked:
        system[0]["cache_control"] = EPHEMERAL
        last = messages[-1]["content"][-1]
        last["cache_control"] = EPHEMERAL
    return client.messages.create(
        model="claude-sonnet-4-5", max_tokens=100, system=system, messages=messages
    ).usage


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def test_anthropic_first_request_writes_its_prefix_and_reads_nothing() -> None:
    with FakeServer(cached_script()) as server:
        usage = ask_anthropic(server, [user(FILE)])
    assert usage.cache_read_input_tokens == 0
    assert usage.cache_creation_input_tokens > 1024
    # What follows the last breakpoint (the request's other keys) is plain input.
    assert 0 < usage.input_tokens < 50


def test_anthropic_growing_conversation_reads_the_earlier_request_and_writes_the_new_turn() -> None:
    with FakeServer(cached_script()) as server:
        first = ask_anthropic(server, [user(FILE)])
        second = ask_anthropic(server, [user(FILE), assistant("Read it."), user("next " * 50)])
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens
    assert 0 < second.cache_creation_input_tokens < 200


def test_anthropic_changed_early_message_reads_only_up_to_the_system_breakpoint() -> None:
    with FakeServer(cached_script()) as server:
        ask_anthropic(server, [user(FILE), assistant("Read it."), user("next")])
        # The first message is rewritten (as pruning does): only tools + system still match.
        again = ask_anthropic(server, [user("[pruned]"), assistant("Read it."), user("next")])
        system_only = ask_anthropic(server, [user("other " * 10)])
    assert again.cache_read_input_tokens == system_only.cache_read_input_tokens
    assert 2000 < again.cache_read_input_tokens < 3000
    assert again.cache_creation_input_tokens > 0


def test_anthropic_without_breakpoints_caches_nothing() -> None:
    with FakeServer(cached_script()) as server:
        ask_anthropic(server, [user(FILE)], marked=False)
        usage = ask_anthropic(server, [user(FILE)], marked=False)
    assert usage.cache_read_input_tokens == 0
    assert usage.cache_creation_input_tokens == 0


def test_anthropic_prefix_below_the_minimum_is_not_cached() -> None:
    with FakeServer(cached_script()) as server:
        client = anthropic.Anthropic(
            base_url=server.anthropic_base_url, api_key="sk-ant", max_retries=0, timeout=10.0
        )
        _clients.append(client)
        short = [{"role": "user", "content": [{"type": "text", "text": "hi", **_cc()}]}]
        for _ in range(2):
            usage = client.messages.create(
                model="claude-sonnet-4-5", max_tokens=10, messages=short
            ).usage
    assert (usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (0, 0)


def _cc() -> dict[str, Any]:
    return {"cache_control": EPHEMERAL}


def test_anthropic_lookback_stops_after_twenty_blocks() -> None:
    base = tuple(f"block {i} " * 500 for i in range(3))
    reads = []
    for added in (19, 20):
        cache = PromptCache()
        cache.use("anthropic", ("k",), Blocks(base, (2,)))
        longer = base + tuple(f"new {i}" for i in range(added))
        reads.append(cache.use("anthropic", ("k",), Blocks(longer, (len(longer) - 1,))).read)
    assert reads[0] > 0
    assert reads[1] == 0


def test_anthropic_blocks_ignore_where_the_breakpoint_sits() -> None:
    marked = {"messages": [{"role": "user", "content": [{"type": "text", "text": "a", **_cc()}]}]}
    plain = {"messages": [{"role": "user", "content": "a"}]}
    assert anthropic_blocks(marked).texts == anthropic_blocks(plain).texts
    assert anthropic_blocks(marked).breakpoints == (0,)
    assert anthropic_blocks(plain).breakpoints == ()


# --- OpenAI: automatic prefix caching ------------------------------------------------------------


def openai_client(server: FakeServer) -> openai.OpenAI:
    client = openai.OpenAI(base_url=server.base_url, api_key="sk", max_retries=0, timeout=10.0)
    _clients.append(client)
    return client


def chat(server: FakeServer, messages: list[Any], key: str | None = "s1") -> Any:
    extra = {"prompt_cache_key": key} if key else {}
    completion = openai_client(server).chat.completions.create(
        model="gpt-4.1", messages=messages, extra_body=extra
    )
    return completion.usage


def test_openai_chat_caches_the_common_prefix_in_128_token_steps() -> None:
    first_messages: list[Any] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": FILE},
    ]
    longer = [
        *first_messages,
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "go"},
    ]
    with FakeServer(cached_script()) as server:
        first = chat(server, first_messages)
        second = chat(server, longer)
        logged = server.requests
    assert logged[1]["usage"]["cache_read"] == second.prompt_tokens_details.cached_tokens  # type: ignore[index]
    assert first.prompt_tokens_details.cached_tokens == 0
    cached = second.prompt_tokens_details.cached_tokens
    assert cached >= 1024
    assert (cached - 1024) % 128 == 0
    # At most the first request's prompt, and within one step of it.
    assert first.prompt_tokens - 128 - 20 <= cached <= first.prompt_tokens
    assert second.prompt_tokens > cached


def test_openai_chat_a_rewritten_early_message_caches_only_the_prefix_before_it() -> None:
    system: dict[str, Any] = {"role": "system", "content": SYSTEM}
    with FakeServer(cached_script()) as server:
        chat(server, [system, {"role": "user", "content": FILE}])
        rewritten = chat(server, [system, {"role": "user", "content": "[pruned] " + FILE}])
    cached = rewritten.prompt_tokens_details.cached_tokens
    assert 1024 <= cached <= len(SYSTEM) // 4 + 16


def test_openai_chat_keys_the_cache_by_prompt_cache_key() -> None:
    messages: list[Any] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "a"}]
    with FakeServer(cached_script()) as server:
        chat(server, messages, key="s1")
        other = chat(server, messages, key="s2")
        same = chat(server, messages, key="s1")
    assert other.prompt_tokens_details.cached_tokens == 0
    assert same.prompt_tokens_details.cached_tokens > 0


def test_openai_chat_prefix_below_1024_tokens_is_not_cached() -> None:
    messages: list[Any] = [{"role": "user", "content": "short " * 100}]
    with FakeServer(cached_script()) as server:
        chat(server, messages)
        usage = chat(server, messages)
    assert usage.prompt_tokens_details.cached_tokens == 0


def test_responses_report_cached_input_tokens() -> None:
    with FakeServer(cached_script()) as server:
        client = openai_client(server)
        items: list[Any] = [{"role": "user", "content": FILE}]
        first = client.responses.create(
            model="gpt-5", instructions=SYSTEM, input=items, prompt_cache_key="s", store=False
        )
        more: list[Any] = [*items, {"role": "user", "content": "and then?"}]
        second = client.responses.create(
            model="gpt-5", instructions=SYSTEM, input=more, prompt_cache_key="s", store=False
        )
    assert first.usage is not None
    assert second.usage is not None
    assert first.usage.input_tokens_details.cached_tokens == 0
    cached = second.usage.input_tokens_details.cached_tokens
    assert cached >= 1024
    assert (cached - 1024) % 128 == 0
    assert cached <= first.usage.input_tokens


def test_without_prompt_cache_nothing_is_cached() -> None:
    messages: list[Any] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "a"}]
    with FakeServer({"turns": [{"text": "ok"}, {"text": "ok"}]}) as server:
        chat(server, messages)
        usage = chat(server, messages)
        logged = server.requests
    assert usage.prompt_tokens_details.cached_tokens == 0
    assert all("cache" not in entry for entry in logged)


def test_scripted_usage_wins_over_the_cache_model() -> None:
    messages: list[Any] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "a"}]
    script = {
        "promptCache": True,
        "turns": [{"text": "ok"}, {"text": "ok", "usage": {"input": 7, "cacheRead": 3}}],
    }
    with FakeServer(script) as server:
        chat(server, messages)
        usage = chat(server, messages)
        logged = server.requests
    assert usage.prompt_tokens == 10
    assert usage.prompt_tokens_details.cached_tokens == 3
    assert logged[1]["cache"]["read"] > 1024  # type: ignore[index]
    assert logged[1]["usage"] == {
        "input": 7,
        "output": 1,
        "cache_read": 3,
        "cache_write": 0,
        "reasoning": 0,
    }


def test_a_failed_request_writes_nothing_to_the_cache() -> None:
    messages: list[Any] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "a"}]
    script = {"promptCache": True, "turns": [{"fault": {"status": 500}}, {"text": "ok"}]}
    with FakeServer(script) as server:
        with pytest.raises(openai.InternalServerError):
            chat(server, messages)
        usage = chat(server, messages)
    assert usage.prompt_tokens_details.cached_tokens == 0


def test_prompt_cache_must_be_a_boolean() -> None:
    with pytest.raises(ScriptError, match="'promptCache' must be bool"):
        FakeServer({"promptCache": "yes", "turns": []})
