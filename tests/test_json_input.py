"""The one decoder of outside JSON: limits, duplicate keys, and errors that say where."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pith.errors import InputError
from pith.json_input import (
    MAX_DEPTH,
    MAX_NUMBER_DIGITS,
    JsonInputError,
    check_json_limits,
    parse_json,
)


def refusal(data: str | bytes, **options: bool) -> JsonInputError:
    with pytest.raises(JsonInputError) as caught:
        parse_json(data, "f.json", fix="fix the file", **options)
    return caught.value


def test_nesting_at_the_limit_decodes() -> None:
    text = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert parse_json(text, "f.json", fix="") == json.loads(text)


def test_nesting_past_the_limit_names_the_place_and_what_to_do() -> None:
    error = refusal('{"a":\n  ' + "[" * 100_000)
    assert (
        str(error)
        == f"f.json:2:{MAX_DEPTH + 2}: nested more than {MAX_DEPTH} levels deep; fix the file"
    )
    assert isinstance(error, InputError)


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps({"code": "[{" * 10_000, "quote": '\\"[[[['})
    assert parse_json(text, "f.json", fix="") == json.loads(text)


def test_a_number_past_the_digit_limit_is_refused_with_its_column() -> None:
    error = refusal('{"id": ' + "9" * 5000 + "}")
    assert (error.line, error.column) == (1, 8)
    assert error.reason == f"a number longer than {MAX_NUMBER_DIGITS} digits"


def test_long_digit_runs_inside_strings_are_text() -> None:
    text = json.dumps({"digits": "7" * 5000})
    assert parse_json(text, "f.json", fix="") == {"digits": "7" * 5000}


def test_syntax_errors_carry_line_and_column() -> None:
    error = refusal('{\n  "a": 1,\n}')
    assert (error.line, error.column) == (3, 1)
    assert error.reason.startswith("not valid JSON (")


def test_invalid_utf8_is_refused_not_replaced() -> None:
    assert refusal(b'{"a": "\xff"}').reason == "not valid UTF-8"


def test_nan_is_not_json() -> None:
    assert "NaN" in refusal('{"a": NaN}').reason


def test_a_repeated_key_is_refused_at_its_second_line() -> None:
    error = refusal('{\n  "permission": {},\n  "permission": {}\n}', unique_keys=True)
    assert str(error) == 'f.json:3:3: the key "permission" appears twice here; fix the file'


def test_a_repeated_key_in_an_inner_object_is_refused() -> None:
    error = refusal('{"p": {"rm *": "deny", "ls": "allow", "rm *": "allow"}}', unique_keys=True)
    assert error.reason == 'the key "rm *" appears twice here'


def test_keys_are_compared_after_escapes() -> None:
    assert refusal('{"a": 1, "\\u0061": 2}', unique_keys=True).reason.startswith('the key "a"')


def test_the_same_key_in_sibling_objects_is_fine() -> None:
    text = '{"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 3}, {"x": 4}], "x": "x:"}'
    assert parse_json(text, "f.json", fix="", unique_keys=True) == json.loads(text)


def test_repeated_keys_are_allowed_unless_asked() -> None:
    assert parse_json('{"a": 1, "a": 2}', "f.json", fix="") == {"a": 2}


def test_check_json_limits_alone_works_on_bytes() -> None:
    check_json_limits(b'{"a": [1, 2]}', "line", fix="")
    with pytest.raises(JsonInputError, match="nested more than 3 levels"):
        check_json_limits(b"[[[[]]]]", "line", fix="", max_depth=3)


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    )
)
def test_any_shallow_value_round_trips(value: object) -> None:
    assert parse_json(json.dumps(value), "f.json", fix="", unique_keys=True) == value
