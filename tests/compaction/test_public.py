"""The public surface of `pith.compaction` and the layers it may use."""

from __future__ import annotations

import ast
from pathlib import Path

import pith.compaction
from pith.ai import Usage
from pith.compaction import get_last_assistant_usage, get_latest_compaction_entry
from pith.session import SessionStore
from tests.compaction.sessions import assistant, user

PACKAGE = Path(pith.compaction.__file__).parent
ALLOWED = {"pith.ai", "pith.agent", "pith.tools", "pith.session", "pith.compaction"}


def test_every_public_name_is_exported_and_importable() -> None:
    names = pith.compaction.__all__
    assert names == sorted(names, key=lambda n: (not n.isupper(), n[0].islower(), n))
    for name in names:
        assert getattr(pith.compaction, name) is not None
    assert {
        "prepare_compaction",
        "find_cut_point",
        "find_turn_start_index",
        "estimate_projected_context_tokens",
        "should_compact",
        "resolve_compaction_settings",
        "serialize_conversation",
        "plan_summary_requests",
        "collect_entries_for_branch_summary",
        "prepare_branch_entries",
        "ContextTokenTracker",
    } <= set(names)


def test_the_package_imports_only_the_layers_above_it() -> None:
    for module in PACKAGE.glob("*.py"):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pith"):
                top = ".".join(node.module.split(".")[:2])
                assert top in ALLOWED, f"{module.name} imports {node.module}"
                assert not any(part.startswith("_") for part in node.module.split(".")[2:]) or (
                    top == "pith.compaction"
                ), f"{module.name} imports a private module of another layer: {node.module}"


def test_latest_compaction_and_last_usage_on_a_path() -> None:
    store = SessionStore.create("/work/demo", None)
    first = store.append_message(user())
    store.append_message(assistant([], usage=700))
    store.append_message(assistant([], usage=900, stop="error"))
    assert get_last_assistant_usage(store.get_branch()) == Usage(
        input=700, output=10, total_tokens=710
    )
    assert get_latest_compaction_entry(store.get_branch()) is None
    entry = store.append_compaction("s", first.id, 1)
    assert get_latest_compaction_entry(store.get_branch()) is entry
