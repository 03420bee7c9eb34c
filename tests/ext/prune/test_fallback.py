"""The summarizer's outage fallback (docs/pruning.md): the policy with a fake clock, and end to end
with a named summarizer on the fake model server."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pith.ext.prune.summaries._fallback import COOLDOWN_S, Fallback
from pith.ext.prune.summaries._request import failure_kind
from pith.testing import FakeServer

from .test_extension import World, call, make_world
from .test_summarize import SUMMARIZER, main, notices, summary_turn


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_named_model_is_used_until_a_fallback() -> None:
    fallback = Fallback(Clock())
    assert fallback.route() == "primary"
    fallback.primary_failed("primary")  # a failure alone (the retry failed too) trips nothing
    assert fallback.route() == "primary"


def test_a_fallback_is_sticky_for_ten_minutes_then_one_request_probes() -> None:
    clock = Clock()
    fallback = Fallback(clock)
    fallback.fell_back()
    assert fallback.route() == "session"
    clock.now += COOLDOWN_S - 1
    assert fallback.route() == "session"
    clock.now += 1
    assert fallback.route() == "probe"
    assert fallback.route() == "session"  # one probe at a time
    fallback.primary_ok("probe")
    assert fallback.route() == "primary"
    assert not fallback.active


def test_a_failed_probe_starts_another_cooldown_once_the_session_model_answers() -> None:
    clock = Clock()
    fallback = Fallback(clock)
    fallback.fell_back()
    clock.now += COOLDOWN_S
    assert fallback.route() == "probe"
    fallback.primary_failed("probe")
    fallback.fell_back()
    clock.now += COOLDOWN_S - 1
    assert fallback.route() == "session"
    clock.now += 1
    assert fallback.route() == "probe"


def test_refused_credentials_are_told_from_outages() -> None:
    assert failure_kind("401 Unauthorized") == "auth"
    assert failure_kind("403 forbidden") == "auth"
    assert failure_kind("invalid api key provided") == "auth"
    assert failure_kind("500 internal error") == "transient"
    assert failure_kind("429 rate limited") == "transient"


# --- end to end -----------------------------------------------------------------------------


def named_world(tmp_path: Path, clock: Clock) -> World:
    world = make_world(tmp_path)
    world.settings(summarizerModel="fake/small", minGainTokens=1)
    world.clock = clock
    return world


def small(turn: dict[str, Any]) -> dict[str, Any]:
    return {**turn, "match": [SUMMARIZER, '"model":"small"']}


def session_model(turn: dict[str, Any]) -> dict[str, Any]:
    return {**turn, "match": [SUMMARIZER, '"model":"m"']}


def run(world: World, server: FakeServer, clock: Clock, *steps: str | float) -> None:
    """Prompts in print mode (summaries asked at the next prompt); a number advances the
    clock by that many seconds."""
    session = world.session(server, mode="print")

    async def scenario() -> None:
        await session.start()
        try:
            for step in steps:
                if isinstance(step, str):
                    await session.prompt(step)
                else:
                    clock.now += step
        finally:
            await session.shutdown()

    asyncio.run(scenario())


def models(server: FakeServer) -> list[str]:
    return [str(r["body"]["model"]) for r in server.requests]


def test_an_outage_of_the_named_summarizer_falls_back_until_a_probe_succeeds(
    tmp_path: Path,
) -> None:
    clock = Clock()
    world = named_world(tmp_path, clock)
    script = {
        "turns": [
            main({"tool_calls": [call("read", path="app.py")]}),
            main({"text": "one"}),
            small({"fault": {"status": 500}}),
            session_model(summary_turn("- t1: app.py.")),
            main({"tool_calls": [call("read", path="lib.py")]}),
            main({"text": "two"}),
            session_model(summary_turn("- t2: lib.py.")),
            main({"tool_calls": [call("read", path="app.py", offset=3)]}),
            main({"text": "three"}),
            small(summary_turn("- t3: app.py from line 3.")),
            main({"text": "four"}),
        ]
    }
    with FakeServer(script) as server:
        run(world, server, clock, "one", "two", "three", COOLDOWN_S + 1, "four")
        used = models(server)
    assert used == [
        "m", "m",  # task one
        "small", "m",  # its summary: the named model fails, the session model answers
        "m", "m",  # task two
        "m",  # its summary: straight to the session model (sticky)
        "m", "m",  # task three
        "small",  # ten minutes later its summary probes the named model again
        "m",
    ]  # fmt: skip
    [warning] = notices(world, "warning")
    assert warning.startswith("[prune] summarizer fake/small: 500")
    assert warning.endswith("; trying the session model")


def test_refused_credentials_never_trip_the_fallback(tmp_path: Path) -> None:
    clock = Clock()
    world = named_world(tmp_path, clock)
    script = {
        "turns": [
            main({"tool_calls": [call("read", path="app.py")]}),
            main({"text": "one"}),
            small({"fault": {"status": 401, "message": "invalid api key"}}),
            main({"tool_calls": [call("read", path="lib.py")]}),
            main({"text": "two"}),
            small(summary_turn("- t2: lib.py.")),
            main({"text": "three"}),
        ]
    }
    with FakeServer(script) as server:
        run(world, server, clock, "one", "two", "three")
        used = models(server)
    # no retry on the session model, and the next batch asks the named model again
    assert used == ["m", "m", "small", "m", "m", "small", "m"]
    [warning] = notices(world, "warning")
    assert warning.startswith("[prune] no summary for t1 (fake/small: 401")
    assert warning.endswith("; masked instead")


def test_an_unusable_reply_is_not_retried(tmp_path: Path) -> None:
    clock = Clock()
    world = named_world(tmp_path, clock)
    script = {
        "turns": [
            main({"tool_calls": [call("read", path="app.py")]}),
            main({"text": "one"}),
            small(summary_turn("- t1: cut", stop="length")),
            main({"text": "two"}),
        ]
    }
    with FakeServer(script) as server:
        run(world, server, clock, "one", "two")
        used = models(server)
    assert used == ["m", "m", "small", "m"]
    [warning] = notices(world, "warning")
    assert "the summary was cut by the output limit" in warning
