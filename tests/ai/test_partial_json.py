"""Tool-call arguments read while streaming and once complete: bad ones become an error text."""

from __future__ import annotations

from pith.ai._partial_json import finish_arguments, parse_partial_object


def test_arguments_nested_too_deep_are_an_error_the_model_can_act_on() -> None:
    arguments, error = finish_arguments('{"a": ' + "[" * 100_000)
    assert arguments == {}
    assert error is not None
    assert error.startswith("arguments refused: nested more than 100 levels deep (at line 1")


def test_a_huge_integer_in_arguments_is_an_error_not_a_crash() -> None:
    arguments, error = finish_arguments('{"n": ' + "1" * 5000 + "}")
    assert arguments == {}
    assert error is not None
    assert "a number longer than 1000 digits" in error


def test_malformed_arguments_say_where() -> None:
    _, error = finish_arguments('{"path": }')
    assert error is not None
    assert error.startswith("arguments are not valid JSON (Expecting value) at line 1 column 10")


def test_a_deep_partial_stream_shows_nothing_rather_than_failing() -> None:
    assert parse_partial_object('{"a": ' + "[" * 100_000) == {}
    assert parse_partial_object('{"path": "a.t') == {"path": "a.t"}
