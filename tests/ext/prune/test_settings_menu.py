"""`/pruner settings` and the newer setting subcommands: batching, thinking, recovery-grace,
dedup; `/pruner status` lines for chains and batching."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pith.ext.prune._config import PruneConfig
from pith.ext.prune.commands._command import complete, parse_setting
from pith.ext.prune.commands._menu import menu_rows, next_value, parse_typed, settings_text
from pith.testing import FakeServer

from .test_extension import NoticeUI, make_world


def row(name: str):  # type: ignore[no-untyped-def]
    return next(r for r in menu_rows() if r.name == name)


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("batching", "agent-message", ("batchingMode", "agent-message")),
        ("thinking", "high", ("summarizerThinking", "high")),
        ("recovery-grace", "0", ("recoveryGraceTurns", 0)),
        ("dedup", "off", ("dedupByContentHash", False)),
        ("dedup", "on", ("dedupByContentHash", True)),
    ],
)
def test_new_setting_subcommands_parse(name: str, text: str, expected: tuple[str, object]) -> None:
    assert parse_setting(name, text) == expected


def test_bad_values_of_the_new_subcommands_say_what_is_expected() -> None:
    assert parse_setting("batching", "task") == (
        "/pruner batching: expected turn or agent-message, got 'task'"
    )
    assert parse_setting("thinking", "max") == (
        "/pruner thinking: expected default, off, minimal, low, medium, high or xhigh, got 'max'"
    )
    assert (
        parse_setting("dedup", "maybe") == "/pruner dedup: expected on, off or status, got 'maybe'"
    )


def test_completions_offer_the_new_subcommands_and_values() -> None:
    assert complete("b") == ["batching"]
    assert complete("batching ") == ["batching turn", "batching agent-message"]
    assert complete("dedup s") == ["dedup status"]
    assert complete("co") == ["compact"]
    assert complete("se") == ["settings"]


def test_toggles_and_cycles_give_the_next_value() -> None:
    config = PruneConfig()
    assert next_value(row("pruning"), config) == ("enabled", False)
    assert next_value(row("strategy"), config) == ("strategy", "mask")
    assert next_value(row("batching"), config) == ("batchingMode", "agent-message")
    assert next_value(row("auto budget"), config) == ("autoBudgetThreshold", 0.6)
    assert next_value(row("auto budget"), PruneConfig(auto_budget_threshold=0.9)) == (
        "autoBudgetThreshold",
        None,
    )
    # a chainCompression row saves the whole object
    assert next_value(row("chain compression"), config) == (
        "chainCompression",
        {
            "enabled": False,
            "rollingWindow": 3,
            "stripFinalAssistantThinking": True,
            "fuseRangeSummary": True,
        },
    )


def test_typed_numbers_are_checked() -> None:
    config = PruneConfig()
    assert parse_typed(row("min-batch-chars"), config, " 400 ") == ("minBatchChars", 400)
    assert parse_typed(row("chain window"), config, "0") == (
        "chain window: expected a whole number >= 1, got '0'"
    )
    assert parse_typed(row("chain window"), config, "5")[1] == {  # type: ignore[index]
        "enabled": True,
        "rollingWindow": 5,
        "stripFinalAssistantThinking": True,
        "fuseRangeSummary": True,
    }


@dataclass
class ScriptedUI(NoticeUI):
    picks: list[str | None] = field(default_factory=list)
    typed: list[str | None] = field(default_factory=list)
    offered: list[list[str]] = field(default_factory=list)

    async def select(  # type: ignore[override]
        self, title: str, options: Sequence[str], *, timeout: float | None = None
    ) -> str | None:
        self.offered.append(list(options))
        return self.picks.pop(0) if self.picks else None

    async def input(  # type: ignore[override]
        self, title: str, placeholder: str | None = None, *, timeout: float | None = None
    ) -> str | None:
        return self.typed.pop(0) if self.typed else None


def test_the_settings_menu_toggles_cycles_and_asks_then_saves(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    ui = ScriptedUI(
        picks=["batching: turn", "dedup: on", "chain window: 3", "chain window: 3", "done"],
        typed=["zero", "2"],
    )
    world.ui = ui
    with FakeServer({"turns": []}) as server:
        world.run(server, "/pruner settings", "/pruner status")
    first = ui.offered[0]
    assert first[0] == "pruning: on"
    assert first[-1] == "done"
    assert "batching: agent-message" in ui.offered[1]
    saved = json.loads((world.agent / "settings.json").read_text())["prune"]
    assert saved["batchingMode"] == "agent-message"
    assert saved["dedupByContentHash"] is False
    assert saved["chainCompression"]["rollingWindow"] == 2
    warnings = [text for level, text in ui.notices if level == "warning"]
    assert warnings == ["[prune] chain window: expected a whole number >= 1, got 'zero'"]
    status = ui.notices[-1][1]
    assert "chain compression: on, the newest 2 tasks kept, summaries fused; 0 compressed" in status
    assert "batching: agent-message, summarizer thinking: default" in status


def test_without_a_ui_the_settings_menu_prints_the_settings(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    with FakeServer({"turns": []}) as server:
        session = world.session(server, mode="print")

        async def scenario() -> None:
            await session.start()
            try:
                await session.prompt("/pruner settings")
            finally:
                await session.shutdown()

        asyncio.run(scenario())
    [(_, text)] = world.ui.notices
    assert text == "[prune] " + settings_text(PruneConfig(strategy="mask"))
    assert text.startswith("[prune] pruning: on\nstrategy: mask\nbatching: turn\n")


def test_dedup_status_shows_and_dedup_off_is_saved(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    with FakeServer({"turns": []}) as server:
        world.run(server, "/pruner dedup status", "/pruner dedup off", "/pruner recovery-grace 1")
    assert [text for _, text in world.ui.notices] == [
        "[prune] dedup: on",
        "[prune] dedup: off",
        "[prune] recovery-grace: 1",
    ]
