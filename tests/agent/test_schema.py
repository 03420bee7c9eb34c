"""Argument checking repairs what models typically get wrong and names what is still wrong."""

from __future__ import annotations

from pith.agent import check, coerce, format_validation_error

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "offset": {"type": "number"},
        "flag": {"type": "boolean"},
        "edits": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}},
                "required": ["oldText", "newText"],
            },
        },
    },
    "required": ["path"],
}


def test_numeric_and_boolean_strings_become_numbers_and_booleans() -> None:
    value = coerce(SCHEMA, {"path": "a", "offset": "12", "flag": "true"})
    assert value == {"path": "a", "offset": 12, "flag": True}
    assert check(SCHEMA, value) == []


def test_null_for_an_optional_field_means_not_given() -> None:
    assert coerce(SCHEMA, {"path": "a", "offset": None}) == {"path": "a"}


def test_a_json_string_or_single_object_becomes_the_expected_array() -> None:
    as_string = coerce(SCHEMA, {"path": "a", "edits": '[{"oldText": "x", "newText": "y"}]'})
    single = coerce(SCHEMA, {"path": "a", "edits": {"oldText": "x", "newText": "y"}})
    assert as_string == single == {"path": "a", "edits": [{"oldText": "x", "newText": "y"}]}


def test_input_is_never_modified() -> None:
    original = {"path": "a", "offset": "3"}
    coerce(SCHEMA, original)
    assert original == {"path": "a", "offset": "3"}


def test_issues_name_the_field_and_what_was_expected() -> None:
    issues = check(SCHEMA, {"offset": "abc", "edits": [{"oldText": 1}]})
    found = {(issue.path, issue.message) for issue in issues}
    assert ("path", "missing") in found
    assert ("offset", "expected number, got string") in found
    assert ("edits.0.oldText", "expected string, got integer") in found
    assert ("edits.0.newText", "missing") in found


def test_unconvertible_values_are_left_for_the_check_to_report() -> None:
    value = coerce(SCHEMA, {"path": "a", "offset": "twelve"})
    assert check(SCHEMA, value)[0].message == "expected number, got string"


def test_error_text_matches_pi_shape() -> None:
    text = format_validation_error("read", check(SCHEMA, {"offset": 2}), {"offset": 2})
    assert text == (
        'Validation failed for tool "read":\n  - path: missing\n\n'
        'Received arguments:\n{\n  "offset": 2\n}'
    )
