"""Error purge: old failed calls' large arguments become a marker in the request only."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from pith.ai import AssistantMessage, ToolCall, js_stringify
from pith.ext.prune._config import PruneConfig
from pith.ext.prune._purge import purge_errors, purged_arguments
from tests.ext.prune.conftest import Convo, dump

BIG = "x" * 600


def failed_write(convo: Convo, content: str = BIG, path: str = "out.txt") -> dict[str, object]:
    args: dict[str, object] = {"path": path, "content": content}
    convo.turn(("write", args, "Error: cannot write"), error=True)
    return args


def call_args(convo: Convo, messages: list[object], position: int = 1) -> dict[str, object]:
    message = messages[position]
    assert isinstance(message, AssistantMessage)
    block = message.content[0]
    assert isinstance(block, ToolCall)
    return block.arguments


def test_a_failed_call_is_purged_when_its_age_reaches_the_cooldown(convo: Convo) -> None:
    convo.user()
    args = failed_write(convo)
    convo.reply("it failed")
    convo.reply("moving on")
    out = purge_errors(convo.messages, PruneConfig())
    assert out is not convo.messages
    assert call_args(convo, out) == purged_arguments(len(js_stringify(args)))
    assert call_args(convo, out) == {"_purged": "[arguments of a failed call removed: 631 chars]"}


def test_a_failed_call_one_turn_short_of_the_cooldown_stays(convo: Convo) -> None:
    convo.user()
    failed_write(convo)
    convo.reply("it failed")
    assert purge_errors(convo.messages, PruneConfig()) is convo.messages


def test_a_successful_call_is_never_purged(convo: Convo) -> None:
    convo.user()
    convo.turn(("write", {"path": "a", "content": BIG}, "ok"))
    convo.reply()
    convo.reply()
    convo.reply()
    assert purge_errors(convo.messages, PruneConfig()) is convo.messages


def test_arguments_under_min_arg_chars_stay(convo: Convo) -> None:
    convo.user()
    failed_write(convo, content="short")
    convo.reply()
    convo.reply()
    assert purge_errors(convo.messages, PruneConfig()) is convo.messages
    assert purge_errors(convo.messages, PruneConfig(purge_errors_min_arg_chars=0)) is not (
        convo.messages
    )


def test_only_the_failed_call_of_a_multi_call_message_is_purged(convo: Convo) -> None:
    convo.user()
    _assistant, results = convo.turn(
        ("write", {"path": "a", "content": BIG}, "ok"),
        ("write", {"path": "b", "content": BIG}, "Error"),
        error=True,
    )
    results[0].is_error = False
    convo.reply()
    convo.reply()
    out = purge_errors(convo.messages, PruneConfig())
    message = out[1]
    assert isinstance(message, AssistantMessage)
    first, second = message.content
    assert isinstance(first, ToolCall)
    assert isinstance(second, ToolCall)
    assert first.arguments == {"path": "a", "content": BIG}
    assert set(second.arguments) == {"_purged"}


def test_the_input_is_not_mutated_and_the_error_text_is_kept(convo: Convo) -> None:
    convo.user()
    args = failed_write(convo)
    convo.reply()
    convo.reply()
    before = dump(convo.messages)
    out = purge_errors(convo.messages, PruneConfig())
    assert dump(convo.messages) == before
    assert call_args(convo, convo.messages) == args
    assert out[2] is convo.messages[2]  # the error result itself


def test_purge_is_byte_stable_across_requests(convo: Convo) -> None:
    convo.user()
    failed_write(convo)
    convo.reply()
    convo.reply()
    first = dump(purge_errors(convo.messages, PruneConfig()))
    convo.user("more")
    convo.reply()
    second = dump(purge_errors(convo.messages, PruneConfig()))
    assert second.startswith(first[:-1])


def test_disabled_purge_returns_the_same_list(convo: Convo) -> None:
    convo.user()
    failed_write(convo)
    convo.reply()
    convo.reply()
    assert purge_errors(convo.messages, PruneConfig(purge_errors_enabled=False)) is convo.messages


def test_protected_paths_and_tools_are_never_purged(convo: Convo) -> None:
    convo.user()
    failed_write(convo, path="AGENTS.md")
    convo.turn(("bash", {"command": "echo " + BIG}, "Error: exit 1"), error=True)
    convo.reply()
    convo.reply()
    config = PruneConfig(protected_tools=("bash",))
    assert purge_errors(convo.messages, config) is convo.messages


def test_the_marker_is_an_object_that_survives_json(convo: Convo) -> None:
    marker = purged_arguments(1234)
    assert json.loads(json.dumps(marker)) == marker
    assert isinstance(marker["_purged"], str)


@given(
    content=st.text(min_size=0, max_size=800),
    replies=st.integers(min_value=0, max_value=4),
    cooldown=st.integers(min_value=1, max_value=4),
)
def test_purge_happens_exactly_at_cooldown_and_size(
    content: str, replies: int, cooldown: int
) -> None:
    convo = Convo()
    convo.user()
    args = failed_write(convo, content=content)
    for _ in range(replies):
        convo.reply()
    config = PruneConfig(purge_errors_cooldown_turns=cooldown)
    out = purge_errors(convo.messages, config)
    expected = replies >= cooldown and len(js_stringify(args)) >= 500
    assert (out is not convo.messages) == expected
