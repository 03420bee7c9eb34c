"""pith's truncation equals Pi 1.6's on every recorded case (tests/conformance/truncation.json)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from pith.ai import to_builtins
from pith.tools._truncate import format_size, truncate_head, truncate_line, truncate_tail

GOLDEN = json.loads((Path(__file__).parent / "truncation.json").read_text(encoding="utf-8"))
CASES: list[dict[str, Any]] = GOLDEN["cases"]


def _input_text(source: dict[str, Any]) -> str:
    if "recipe" in source:
        recipe = source["recipe"]
        return recipe["prefix"] + recipe["unit"] * recipe["times"] + recipe["suffix"]
    return str(source["content"])


def _compact(result: dict[str, Any]) -> dict[str, Any]:
    content = result["content"]
    if len(content) > 2000:
        result = dict(result)
        del result["content"]
        result["contentSha256"] = hashlib.sha256(content.encode("utf-8")).hexdigest()
    return result


@pytest.mark.parametrize("case", [c for c in CASES if c["fn"] in ("truncateHead", "truncateTail")])
def test_head_and_tail_match_pi(case: dict[str, Any]) -> None:
    text = _input_text(case["input"])
    options = case["options"]
    function = truncate_head if case["fn"] == "truncateHead" else truncate_tail
    kwargs = {}
    if "maxLines" in options:
        kwargs["max_lines"] = options["maxLines"]
    if "maxBytes" in options:
        kwargs["max_bytes"] = options["maxBytes"]
    assert _compact(to_builtins(function(text, **kwargs))) == case["result"]


@pytest.mark.parametrize("case", [c for c in CASES if c["fn"] == "truncateLine"])
def test_truncate_line_matches_pi(case: dict[str, Any]) -> None:
    options = case["options"]
    result = (
        truncate_line(case["input"]["content"], options["maxChars"])
        if "maxChars" in options
        else truncate_line(case["input"]["content"])
    )
    assert {"text": result.text, "wasTruncated": result.was_truncated} == case["result"]


@pytest.mark.parametrize("case", [c for c in CASES if c["fn"] == "formatSize"])
def test_format_size_matches_pi(case: dict[str, Any]) -> None:
    assert format_size(case["input"]["bytes"]) == case["result"]
