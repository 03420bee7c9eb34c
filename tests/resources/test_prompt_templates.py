"""Prompt-template behaviour the Pi recordings do not pin."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pith.resources._prompt_templates import (
    expand_prompt_template,
    load_prompt_template,
    parse_command_args,
    substitute_args,
)
from pith.resources._types import PromptTemplate, SourceInfo


def _load(path: Path) -> PromptTemplate:
    template, diagnostics = load_prompt_template(
        str(path), SourceInfo(str(path), "local", "user", "top-level")
    )
    assert template is not None, diagnostics
    return template


def test_description_cut_counts_utf16_units_and_never_splits_a_character(tmp_path: Path) -> None:
    path = tmp_path / "emoji.md"
    path.write_text("a" + "\U0001f600" * 40 + "\n")  # 81 UTF-16 units
    description = _load(path).description
    assert description == "a" + "\U0001f600" * 29 + "..."  # 59 units: the 30th would split


def test_empty_argument_hint_is_no_hint(tmp_path: Path) -> None:
    path = tmp_path / "t.md"
    path.write_text('---\nargument-hint: ""\n---\nbody\n')
    assert _load(path).argument_hint is None


def test_frontmatter_that_is_not_a_map_leaves_the_body_description(tmp_path: Path) -> None:
    path = tmp_path / "t.md"
    path.write_text("---\n- a\n- b\n---\nFirst line.\n")
    template = _load(path)
    assert (template.description, template.content) == ("First line.", "First line.")


def test_template_that_is_not_utf8_loads_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "t.md"
    path.write_bytes(b"R\xe9sum\xe9 $1\n")
    template, diagnostics = load_prompt_template(
        str(path), SourceInfo(str(path), "local", "user", "top-level")
    )
    assert template is not None
    assert template.content == "R\ufffdsum\ufffd $1\n"
    assert [(d.type, d.path) for d in diagnostics] == [("warning", str(path))]


def test_name_ends_at_javascript_whitespace(tmp_path: Path) -> None:
    path = tmp_path / "echo.md"
    path.write_text("[$1]")
    template = _load(path)
    assert expand_prompt_template("/echo\u00a0x", [template]) == "[x]"
    # U+001C is whitespace to Python but not to JavaScript: part of the name, so no match.
    assert expand_prompt_template("/echo\x1cx", [template]) == "/echo\x1cx"


def test_positional_zero_and_out_of_range_are_empty() -> None:
    assert substitute_args("[$0][$3][${0:-d}]", ["a", "b"]) == "[][][d]"


_WORD = st.text(
    alphabet=st.characters(
        blacklist_categories=("Zs", "Zl", "Zp", "Cc", "Cs"), blacklist_characters="\"'\ufeff"
    ),
    min_size=1,
)


@given(st.lists(_WORD, max_size=6))
def test_plain_words_split_back_into_themselves(words: list[str]) -> None:
    assert parse_command_args("  ".join(words)) == words


@given(st.lists(_WORD, max_size=6))
def test_all_arguments_join_with_single_spaces(words: list[str]) -> None:
    assert substitute_args("$@", parse_command_args(" ".join(words))) == " ".join(words)
