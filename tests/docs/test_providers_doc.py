"""docs/providers.md says what the code does: its table of built-in providers is
`BUILTIN_PROVIDERS` row for row, and its list of wire formats is every api models.json takes."""

from __future__ import annotations

import re

from pith.ai import BUILTIN_PROVIDERS
from pith.ai._registry import KNOWN_APIS
from tests.docs.snippets import REPO

DOC = REPO / "docs" / "providers.md"
_MARKER = "<!-- builtin-providers:"


def table_after(text: str, marker: str) -> list[list[str]]:
    """The cells of the Markdown table right after `marker`, header and rule left out."""
    lines = text[text.index(marker) :].splitlines()[1:]
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows[2:]


def _code(text: str) -> str:
    return text.removeprefix("`").removesuffix("`")


def test_the_built_in_provider_table_is_the_code_s() -> None:
    rows = table_after(DOC.read_text(encoding="utf-8"), _MARKER)
    documented = {
        _code(provider): (name, _code(api), _code(base_url), re.findall(r"`([^`]+)`", keys))
        for provider, name, api, base_url, keys in rows
    }
    actual = {
        info.id: (info.name, info.api, info.base_url, list(info.env_keys))
        for info in BUILTIN_PROVIDERS.values()
    }
    assert documented == actual
    assert [_code(row[0]) for row in rows] == list(BUILTIN_PROVIDERS)


def test_the_intro_names_every_wire_format() -> None:
    text = DOC.read_text(encoding="utf-8")
    intro = text[: text.index("\n## ")]
    named = set(re.findall(r"^\| `([a-z-]+)` \|", intro, re.MULTILINE)) - {"api"}  # the header
    assert named == set(KNOWN_APIS) - {"faux"}
