"""Showing session ids short enough to read and long enough to type back, and reading them back.

Ids start with the time (UUIDv7), so ids made within a minute share 8 characters; each is shown
as the shortest prefix no other listed id starts with, and that prefix resolves to it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pith.errors import InputError
from pith.session import resolve_session_arg, short_ids
from pith.session._entries import new_session_id

SAME_MINUTE = [
    "01a23306-871b-7917-bddd-eda9cec166a8",
    "01a23306-8e61-749b-8b86-d4319803695e",
    "01a23306-8e61-7ddd-be7e-1a5f07d90b98",  # the same millisecond as the one above
    "01a23399-0000-7000-8000-000000000000",
]


def test_ids_of_one_minute_grow_until_they_differ() -> None:
    assert short_ids(SAME_MINUTE) == [
        "01a23306-87",
        "01a23306-8e61-74",
        "01a23306-8e61-7d",
        "01a23399",
    ]


def test_a_prefix_never_ends_on_a_dash() -> None:
    assert short_ids(["01a23306-1", "01a23307-1"], minimum=9) == ["01a23306-1", "01a23307-1"]
    assert short_ids(["abcdefgh-ij", "abcdefgh-kl"]) == ["abcdefgh-i", "abcdefgh-k"]


def test_short_custom_ids_duplicates_and_prefixes_are_shown_whole() -> None:
    assert short_ids(["abc", "abcdefghijk", "same-id-here", "same-id-here"]) == [
        "abc",
        "abcdefgh",
        "same-id-here",
        "same-id-here",
    ]
    assert short_ids([]) == []


@given(st.lists(st.text(alphabet="0123456789abcdef-", min_size=1, max_size=20), max_size=30))
def test_every_shown_id_picks_out_its_own_id(ids: list[str]) -> None:
    for value, shown in zip(ids, short_ids(ids), strict=True):
        assert value.startswith(shown)
        assert len(shown) >= min(8, len(value))
        matches = {other for other in ids if other.startswith(shown)}
        # Unique, or (an id that others extend, a repeated id) exactly the id itself.
        assert matches == {value} or shown == value


def _session(folder: Path, session_id: str, request: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"2026-12-01T19-13-15-547Z_{session_id}.jsonl"
    header = {"type": "session", "version": 3, "id": session_id, "cwd": "/w",
              "timestamp": "2026-12-01T19:13:15.547Z"}  # fmt: skip
    message = {"type": "message", "id": "e1", "parentId": None,
               "timestamp": "2026-12-01T19:13:15.600Z",
               "message": {"role": "user", "content": request}}  # fmt: skip
    path.write_text(json.dumps(header) + "\n" + json.dumps(message) + "\n")
    return path


def test_what_the_listing_shows_resolves_to_that_session(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    here = agent / "sessions" / "--here--"
    ids = [new_session_id() for _ in range(20)]  # within milliseconds of each other
    paths = {value: _session(here, value, f"request {n}") for n, value in enumerate(ids)}
    for value, shown in zip(ids, short_ids(ids), strict=True):
        assert resolve_session_arg(shown, here, agent) == paths[value]


def test_the_listed_folder_wins_over_the_others(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    here, there = agent / "sessions" / "--here--", agent / "sessions" / "--there--"
    mine = _session(here, "01a23306-871b-7917-bddd-eda9cec166a8", "mine")
    _session(there, "01a23306-871b-7000-8000-000000000000", "elsewhere")
    only_there = _session(there, "01a24444-0000-7000-8000-000000000000", "only there")
    assert resolve_session_arg("01a23306-871b", here, agent) == mine
    assert resolve_session_arg("01a24444", here, agent) == only_there


def test_an_exact_id_wins_over_longer_ones(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    here = agent / "sessions" / "--here--"
    short = _session(here, "fix", "the short one")
    _session(here, "fix-more", "the long one")
    assert resolve_session_arg("fix", here, agent) == short


def test_an_ambiguous_prefix_lists_each_candidate_on_a_line(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    here = agent / "sessions" / "--here--"
    for n, value in enumerate(SAME_MINUTE[:3]):
        _session(here, value, f"request {n}\nwith a second line")
    with pytest.raises(InputError) as raised:
        resolve_session_arg("01a23306", here, agent, option="--fork")
    assert str(raised.value).splitlines() == [
        "--fork 01a23306: 3 sessions match; give more of the id:",
        "  01a23306-87       request 0 with a second line",
        "  01a23306-8e61-74  request 1 with a second line",
        "  01a23306-8e61-7d  request 2 with a second line",
    ]


def test_no_match_names_the_option(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    with pytest.raises(InputError, match=r"^export zz: no session file or id matches"):
        resolve_session_arg("zz", agent / "sessions" / "--here--", agent, option="export")
