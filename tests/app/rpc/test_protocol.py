"""The RPC wire as pure functions: parsing lines, checking fields, framing, responses."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pith.ai import ImageContent
from pith.app.modes.rpc._protocol import (
    COMMANDS,
    NO_DATA,
    Command,
    LineSplitter,
    ProtocolError,
    UiAnswer,
    failure,
    optional_choice,
    parse_record,
    require_bool,
    require_str,
    success,
    user_images,
)


def test_a_command_keeps_its_id_and_fields() -> None:
    parsed = parse_record(b'{"id": "a1", "type": "prompt", "message": "hi"}')
    assert parsed == Command("prompt", "a1", {"message": "hi"})


def test_a_trailing_carriage_return_is_dropped() -> None:
    assert parse_record(b'{"type": "get_state"}\r') == Command("get_state", None, {})


def test_a_blank_line_is_no_record() -> None:
    assert parse_record(b"   ") is None


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"{bad", "Failed to parse command: not valid JSON (Expecting property name"),
        (b"[1, 2]", "Failed to parse command: expected a JSON object, got a list"),
        (b"\xff{}", "Failed to parse command: not UTF-8 (byte 0 is invalid)"),
        (b'{"id": "x"}', "missing 'type'"),
        (b'{"type": 3}', "'type' must be a string, got the number 3"),
        (b'{"type": "get_state", "id": 7}', "'id' must be a string, got the number 7"),
    ],
)
def test_a_malformed_line_is_refused_with_the_reason(line: bytes, message: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_record(line)
    assert str(caught.value).startswith(message)


def test_an_unknown_command_is_named_and_keeps_the_id() -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_record(b'{"id": "q", "type": "launch_rockets"}')
    error = caught.value
    assert (str(error), error.command, error.id) == (
        "Unknown command: launch_rockets",
        "launch_rockets",
        "q",
    )


def test_an_answer_to_a_ui_request_is_recognised() -> None:
    assert parse_record(b'{"type": "extension_ui_response", "id": "u", "value": "Allow"}') == (
        UiAnswer("u", "Allow")
    )
    assert parse_record(b'{"type": "extension_ui_response", "id": "u", "cancelled": true}') == (
        UiAnswer("u", cancelled=True)
    )


def test_an_answer_without_an_id_is_refused() -> None:
    with pytest.raises(ProtocolError, match="'id' must be the string id"):
        parse_record(b'{"type": "extension_ui_response", "confirmed": true}')


def test_a_wrong_field_type_names_the_field_and_the_value() -> None:
    command = Command("set_auto_retry", "r", {"enabled": "yes"})
    with pytest.raises(ProtocolError) as caught:
        require_bool(command, "enabled")
    assert str(caught.value) == (
        "set_auto_retry: 'enabled' must be true or false (got the string \"yes\")"
    )
    assert caught.value.id == "r"


def test_a_missing_field_says_it_is_missing() -> None:
    with pytest.raises(ProtocolError, match=r"prompt: 'message' must be a string \(missing\)"):
        require_str(Command("prompt"), "message")


def test_a_choice_lists_what_is_allowed() -> None:
    command = Command("prompt", None, {"streamingBehavior": "later"})
    with pytest.raises(ProtocolError, match='must be one of "steer", "followUp"'):
        optional_choice(command, "streamingBehavior", ("steer", "followUp"))


def test_images_are_checked_one_by_one() -> None:
    good = {"type": "image", "data": "aGk=", "mimeType": "image/png"}
    assert user_images(Command("prompt", None, {"images": [good]})) == [
        ImageContent(data="aGk=", mime_type="image/png")
    ]
    bad = Command("prompt", None, {"images": [good, {"type": "image", "data": "x"}]})
    with pytest.raises(ProtocolError, match=r"'images\[1\].mimeType' must be"):
        user_images(bad)


def test_responses_carry_the_id_only_when_given_and_data_only_when_there_is_some() -> None:
    assert success(None, "abort") == {"type": "response", "command": "abort", "success": True}
    assert success("i", "abort", NO_DATA)["id"] == "i"
    assert success("i", "cycle_model", None)["data"] is None
    assert failure("i", "bash", "no\nway") == {
        "id": "i",
        "type": "response",
        "command": "bash",
        "success": False,
        "error": "no way",
    }


def test_every_command_is_named_once() -> None:
    assert len(set(COMMANDS)) == len(COMMANDS)


def test_records_split_on_line_feed_only() -> None:
    splitter = LineSplitter()
    text = json.dumps({"t": "a\u2028b\u2029c"}, ensure_ascii=False).encode()
    assert splitter.feed(text[:5]) == []
    assert splitter.feed(text[5:] + b'\n{"x"') == [text]
    assert splitter.feed(b"\r\n") == [b'{"x"\r']
    assert splitter.finish() == []


@given(st.lists(st.binary().map(lambda b: b.replace(b"\n", b"")), max_size=6), st.data())
def test_lines_survive_any_chunking(lines: list[bytes], data: st.DataObject) -> None:
    stream = b"".join(line + b"\n" for line in lines)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=5)))
    splitter = LineSplitter()
    out: list[bytes] = []
    start = 0
    for cut in [*cuts, len(stream)]:
        out += splitter.feed(stream[start:cut])
        start = cut
    out += splitter.finish()
    assert out == lines
