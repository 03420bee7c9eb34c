"""`/pruner` subcommands: parsing, completions, the settings writer, the tree; and as typed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pith.ext.prune._config import PruneConfig
from pith.ext.prune._index import PruneIndex
from pith.ext.prune._records import IndexEntry, ToolCallRecord
from pith.ext.prune.commands._command import complete, parse_setting
from pith.ext.prune.commands._settings_file import SettingsWriteError, save_prune_setting
from pith.ext.prune.commands._tree import format_tree
from pith.session import SessionStore
from pith.testing import FakeServer, subprocess_env

from .test_extension import FIRST_TASK, make_world, tool_texts


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("strategy", "mask", ("strategy", "mask")),
        ("strategy", " auto ", ("strategy", "auto")),
        ("model", "anthropic/claude-haiku", ("summarizerModel", "anthropic/claude-haiku")),
        ("model", "default", ("summarizerModel", "default")),
        ("protected-tools", "web_fetch, bash", ("protectedTools", ["web_fetch", "bash"])),
        ("protected-tools", "none", ("protectedTools", [])),
        (
            "protected-paths",
            "**/skills/**/*.md docs/*.md",
            ("protectedPaths", ["**/skills/**/*.md", "docs/*.md"]),
        ),
        ("min-batch-chars", "0", ("minBatchChars", 0)),
    ],
)
def test_parse_setting_gives_the_key_and_json_value(
    name: str, text: str, expected: tuple[str, object]
) -> None:
    assert parse_setting(name, text) == expected


@pytest.mark.parametrize(
    ("name", "text", "error"),
    [
        ("strategy", "fast", "/pruner strategy: expected mask, summarize or auto, got 'fast'"),
        ("model", "haiku", "/pruner model: expected provider/id or default, got 'haiku'"),
        (
            "min-batch-chars",
            "-3",
            "/pruner min-batch-chars: expected a whole number >= 0, got '-3'",
        ),
        (
            "protected-tools",
            "bash none",
            "/pruner protected-tools: expected tool names or none, got 'bash none'",
        ),
    ],
)
def test_a_bad_value_gives_one_line_naming_the_expected_form(
    name: str, text: str, error: str
) -> None:
    assert parse_setting(name, text) == error


def test_completions_offer_subcommands_then_their_fixed_values() -> None:
    assert complete("s") == ["status", "stats", "strategy", "settings"]
    assert complete("protected") == ["protected-tools", "protected-paths"]
    assert complete("strategy ") == ["strategy mask", "strategy summarize", "strategy auto"]
    assert complete("strategy s") == ["strategy summarize"]
    assert complete("model d") == ["model default"]
    assert complete("tree x") == []
    assert complete("off ") == ["off --save"]
    assert complete("on --s") == ["on --save"]


def test_saving_a_setting_keeps_every_other_key(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"theme": "dark", "prune": {"enabled": True, "minGainTokens": 5}}))
    save_prune_setting(path, "strategy", "mask")
    assert json.loads(path.read_text()) == {
        "theme": "dark",
        "prune": {"enabled": True, "minGainTokens": 5, "strategy": "mask"},
    }
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]  # no temp file left


def test_saving_creates_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "agent" / "settings.json"
    save_prune_setting(path, "enabled", False)
    assert json.loads(path.read_text()) == {"prune": {"enabled": False}}


def test_saving_into_a_broken_file_fails_and_leaves_it_alone(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"theme": ')
    with pytest.raises(SettingsWriteError, match=r"settings.json line 1: not valid JSON"):
        save_prune_setting(path, "enabled", False)
    assert path.read_text() == '{"theme": '


def record(call_id: str, path: str, size: int = 4000) -> ToolCallRecord:
    return ToolCallRecord(
        tool_call_id=call_id,
        tool_name="read",
        args={"path": path},
        is_error=False,
        result_timestamp=1,
        result_bytes=size,
        result_lines=10,
        content_hash=call_id,
    )


def test_the_tree_lists_each_batch_with_its_calls_states() -> None:
    index = PruneIndex()
    index.add_batch(IndexEntry(assistant_timestamp=1, tool_calls=[record("a", "app.py")]))
    index.add_batch(
        IndexEntry(
            assistant_timestamp=2,
            tool_calls=[record("b", "lib.py"), record("c", "docs/rules.md", 100)],
        )
    )
    index.decide(["b@1"], "summarized")
    config = PruneConfig(protected_paths=("docs/*.md",))
    assert format_tree(index, config, "", {"a@1"}) == (
        "batch 1 (1 calls)\n"
        '  t1  read(path="app.py")  3.9KB  masked\n'
        "batch 2 (2 calls)\n"
        '  t2  read(path="lib.py")  3.9KB  summarized\n'
        '  t3  read(path="docs/rules.md")  100B  protected'
    )
    assert format_tree(PruneIndex(), config) == "nothing indexed yet"


# --- as typed in a session -------------------------------------------------------------------


def test_setting_subcommands_show_set_and_save_the_value(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    with FakeServer({"turns": []}) as server:
        world.run(
            server,
            "/pruner min-batch-chars",
            "/pruner min-batch-chars 50",
            "/pruner protected-tools web_fetch,bash",
            "/pruner protected-paths none",
            "/pruner model default",
            "/pruner strategy",
            "/pruner strategy bogus",
        )
    assert world.ui.notices == [
        ("info", "[prune] min-batch-chars: 1000"),
        ("info", "[prune] min-batch-chars: 50"),
        ("info", "[prune] protected-tools: web_fetch, bash"),
        ("info", "[prune] protected-paths: none (always: **/AGENTS.md, **/CLAUDE.md)"),
        ("info", "[prune] model: default"),
        ("info", "[prune] strategy: mask"),
        ("warning", "[prune] /pruner strategy: expected mask, summarize or auto, got 'bogus'"),
    ]
    saved = json.loads((world.agent / "settings.json").read_text())
    assert saved == {
        "prune": {
            "strategy": "mask",
            "minBatchChars": 50,
            "protectedTools": ["web_fetch", "bash"],
            "protectedPaths": [],
            "summarizerModel": "default",
        }
    }


def test_pruner_model_with_a_thinking_suffix_sets_both(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    with FakeServer({"turns": []}) as server:
        world.run(server, "/pruner model anthropic/claude-haiku:low")
    assert world.ui.notices[-1] == ("info", "[prune] model: anthropic/claude-haiku, thinking: low")
    saved = json.loads((world.agent / "settings.json").read_text())["prune"]
    assert saved["summarizerModel"] == "anthropic/claude-haiku"
    assert saved["summarizerThinking"] == "low"


def test_a_colon_that_is_not_a_thinking_level_stays_in_the_model_id(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    with FakeServer({"turns": []}) as server:
        world.run(server, "/pruner model ollama/qwen3:8b")
    saved = json.loads((world.agent / "settings.json").read_text())["prune"]
    assert saved["summarizerModel"] == "ollama/qwen3:8b"
    assert "summarizerThinking" not in saved


def test_a_setting_applies_to_the_session_at_once(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    script = {"turns": [FIRST_TASK, {"text": "read them"}, {"text": "ok"}]}
    with FakeServer(script) as server:
        # app.py and lib.py are now protected too: nothing left to mask
        world.run(server, "read", "/pruner protected-tools read", "again")
        assert tool_texts(server, 2) == tool_texts(server, 1)


def test_pruner_off_holds_for_this_process_and_leaves_the_settings_file_alone(
    tmp_path: Path,
) -> None:
    world = make_world(tmp_path)
    settings = world.agent / "settings.json"
    before = settings.read_text()
    script = {"turns": [FIRST_TASK, {"text": "read them"}, {"text": "ok"}, {"text": "ok"}]}
    with FakeServer(script) as server:
        world.run(server, "read", "again", "/pruner off", "once more", "/pruner status")
        assert tool_texts(server, 3) == tool_texts(server, 1)  # off: raw again at once
    notices = [text for _, text in world.ui.notices]
    assert (
        "[prune] pruning is off for this session; stored results show raw again "
        "(`/pruner off --save` keeps it off)"
    ) in notices
    assert notices[-1].startswith("[prune] pruner: off (set by /pruner)")
    assert settings.read_text() == before
    with FakeServer({"turns": []}) as server:
        world.run(server, "/pruner status")
    assert world.ui.notices[-1][1].startswith("[prune] pruner: on (settings)")


def test_pruner_off_save_writes_the_users_settings_file_and_names_it(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    settings = world.agent / "settings.json"
    with FakeServer({"turns": []}) as server:
        world.run(server, "/pruner off --save")
    assert world.ui.notices[-1] == (
        "info",
        f"[prune] pruning is off; saved in {settings}; stored results show raw again",
    )
    assert json.loads(settings.read_text()) == {"prune": {"strategy": "mask", "enabled": False}}
    with FakeServer({"turns": []}) as server:
        world.run(server, "/pruner status", "/pruner on --save", "/pruner on now")
    notices = world.ui.notices[-3:]
    assert notices[0][1].startswith("[prune] pruner: off (settings)")
    assert notices[1] == ("info", f"[prune] pruning is on; saved in {settings}")
    assert notices[2] == ("warning", "[prune] /pruner on: expected nothing or --save, got 'now'")
    assert json.loads(settings.read_text()) == {"prune": {"strategy": "mask", "enabled": True}}


def test_status_tree_and_pith_context_agree_on_what_is_masked(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    script = {"turns": [FIRST_TASK, {"text": "read them"}, {"text": "ok"}]}
    with FakeServer(script) as server:
        world.run(server, "read", "again", "/pruner status", "/pruner tree")
        sent = tool_texts(server, 2)
    assert [i for i, text in sent.items() if text.startswith("[pruned")] == ["call_0_1", "call_0_3"]
    here = [text for _, text in world.ui.notices[-2:]]
    [path] = (tmp_path / "sessions").glob("*.jsonl")
    with FakeServer({"turns": []}) as server:
        # A fresh process resuming the session: nothing was requested in it yet.
        world.run(server, "/pruner status", "/pruner tree", store=SessionStore.open(path))
        fresh = [text for _, text in world.ui.notices[-2:]]
        context = subprocess.run(
            [sys.executable, "-m", "pith", "context", "--json", "--session", str(path)],
            cwd=world.work,
            env=subprocess_env(world.agent),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert context.returncode == 0, context.stderr
    pruned = json.loads(context.stdout)["pruned"]
    assert [item["ref"] for item in pruned["results"]] == ["t1", "t2"]
    for status, tree in (here, fresh):
        now = next(line for line in status.splitlines() if line.startswith("context now:"))
        assert now == (
            f"context now: 2 results replaced by stubs in 1 batch, "
            f"~{pruned['tokensSaved']} tokens saved"
        )
        assert tree == (
            "[prune] batch 1 (2 calls)\n"
            '  t1  read(path="app.py")  6.6KB  masked\n'
            '  t2  read(path="lib.py")  6.6KB  masked'
        )


def test_pruner_tree_lists_the_indexed_calls(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    script = {"turns": [FIRST_TASK, {"text": "read them"}, {"text": "ok"}]}
    with FakeServer(script) as server:
        world.run(server, "read", "again", "/pruner tree")
    assert world.ui.notices[-1][1] == (
        "[prune] batch 1 (2 calls)\n"
        '  t1  read(path="app.py")  6.6KB  masked\n'
        '  t2  read(path="lib.py")  6.6KB  masked'
    )
