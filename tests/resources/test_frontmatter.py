"""Frontmatter behaviour the Pi recordings do not pin (tests/conformance covers the rest)."""

from __future__ import annotations

import pytest

from pith.resources._frontmatter import FrontmatterError, parse_frontmatter, strip_frontmatter


def test_error_names_the_file_line_and_is_one_line() -> None:
    with pytest.raises(FrontmatterError) as raised:
        parse_frontmatter("---\nname: ok\ndescription: [open\n---\nbody\n")
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith("invalid YAML frontmatter at line 3, column ")


def test_fence_glued_to_yaml_counts_lines_from_the_fence() -> None:
    with pytest.raises(FrontmatterError, match="at line 1, column"):
        parse_frontmatter("---a: [\n---\n")


def test_number_and_string_keys_that_print_alike_are_not_duplicates() -> None:
    # `1` and `"1"` are different YAML keys; as object keys the later one wins (as in Pi).
    assert parse_frontmatter('---\n1: a\n"1": b\n---\n').data == {"1": "b"}


def test_numbers_equal_in_value_are_duplicate_keys() -> None:
    with pytest.raises(FrontmatterError, match="map keys must be unique"):
        parse_frontmatter("---\n1: a\n1.0: b\n---\n")


def test_yaml_1_1_scalars_stay_strings() -> None:
    data = parse_frontmatter(
        "---\na: on\nb: no\nc: 0b101\nd: 12:30:00\ne: 1_000\nf: 2001-12-14t21:59:43Z\n---\n"
    ).data
    assert data == {
        "a": "on",
        "b": "no",
        "c": "0b101",
        "d": "12:30:00",
        "e": "1_000",
        "f": "2001-12-14t21:59:43Z",
    }


def test_core_schema_numbers() -> None:
    data = parse_frontmatter("---\na: 0o17\nb: 0x1F\nc: -.inf\nd: 1e3\ne: +12\n---\n").data
    assert data == {"a": 15, "b": 31, "c": float("-inf"), "d": 1000.0, "e": 12}


def test_custom_tags_keep_the_text_and_aliases_resolve() -> None:
    data = parse_frontmatter("---\na: !thing x\nb: &v [1]\nc: *v\nd: !!str 5\n---\n").data
    assert data == {"a": "x", "b": [1], "c": [1], "d": "5"}


def test_unknown_alias_is_an_error() -> None:
    with pytest.raises(FrontmatterError, match=r"unknown alias \*nope"):
        parse_frontmatter("---\na: *nope\n---\n")


def test_two_documents_are_an_error() -> None:
    with pytest.raises(FrontmatterError, match="more than one YAML document"):
        parse_frontmatter("---\na: 1\n...\nb: 2\n---\n")


def test_collection_key_is_named_in_flow_style() -> None:
    assert parse_frontmatter("---\n? [a, b]\n: c\n---\n").data == {"[ a, b ]": "c"}


def test_scalar_false_is_kept_as_the_data() -> None:
    # Pi keeps any non-null value (`parsed ?? {}`), even `false`.
    assert parse_frontmatter("---\nfalse\n---\nbody").data is False


def test_strip_frontmatter_raises_on_bad_yaml_like_pi() -> None:
    with pytest.raises(FrontmatterError):
        strip_frontmatter("---\na: [\n---\nbody\n")


def test_strip_frontmatter_returns_the_trimmed_body() -> None:
    assert strip_frontmatter("---\na: 1\n---\n\n  body  \n") == "body"


def test_frontmatter_nested_to_the_limit_still_parses() -> None:
    depth = 127  # the top-level map is the first level
    data = parse_frontmatter("---\na: " + "[" * depth + "]" * depth + "\n---\n").data
    assert isinstance(data, dict)


def test_a_tagged_number_too_long_is_an_error_with_its_place() -> None:
    with pytest.raises(FrontmatterError, match="line 2, column 4: a number longer than 1000"):
        parse_frontmatter("---\nn: !!float " + "9" * 5000 + "\n---\n")
