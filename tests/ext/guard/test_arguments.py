"""Argument Normalization: the alias keys models send, renamed (docs/guard.md, "Argument names").

The alias tables are written out here, not imported, so a change to the module's tables has
to be a change to these tests too.
"""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pith.agent import AbortController, ToolResult, check, coerce, run_tool_call
from pith.ai import ToolCall
from pith.ext.guard._arguments import Rename, normalize_arguments
from pith.tools import builtin_tools
from pith.tools._edit import prepare_edit_arguments

PATH_ALIASES = ["file", "filePath", "file_path", "target", "filename", "file_name"]
OLD_TEXT_ALIASES = [
    "old_str",
    "old_string",
    "old_text",
    "oldStr",
    "oldString",
    "oldContent",
    "old_content",
    "old",
    "original",
    "search",
]
NEW_TEXT_ALIASES = [
    "new_str",
    "new_string",
    "new_text",
    "newStr",
    "newString",
    "newContent",
    "new_content",
    "new",
    "replacement",
    "replace",
]
CONTENT_ALIASES = ["text", "body", "code", "data", "fileContent", "file_content", "contents"]
OFFSET_ALIASES = ["start", "startLine", "start_line", "from", "line"]
LIMIT_ALIASES = ["lines", "maxLines", "max_lines", "count", "numLines", "num_lines"]


def renamed(source: str, target: str) -> Rename:
    return Rename(source, target, "renamed")


def ignored(source: str, used: str) -> Rename:
    return Rename(source, used, "ignored")


def run(tool: str, cwd: Path, arguments: dict[str, object]) -> ToolResult:
    """`arguments` normalized, then run by the real tool as a model's call runs."""
    normalized, _ = normalize_arguments(tool, arguments)
    assert isinstance(normalized, dict)
    call = ToolCall(id="t1", name=tool, arguments=normalized)
    outcome = asyncio.run(run_tool_call(builtin_tools(str(cwd)), call, AbortController().signal))
    return outcome.result


def schema_issues(tool: str, arguments: object) -> list[str]:
    """What the real tool's validation says about `arguments` after its own preparation."""
    real = builtin_tools("/")[tool]
    prepare = getattr(real, "prepare_arguments", None)
    prepared = prepare(arguments) if callable(prepare) else arguments
    return [
        f"{i.path}: {i.message}" for i in check(real.parameters, coerce(real.parameters, prepared))
    ]


# --- the alias tables -------------------------------------------------------------------------


@pytest.mark.parametrize("tool", ["read", "write", "edit"])
@pytest.mark.parametrize("alias", [*PATH_ALIASES, "relative_path"])
def test_a_path_alias_becomes_path(tool: str, alias: str) -> None:
    assert normalize_arguments(tool, {alias: "a.py"}) == (
        {"path": "a.py"},
        (renamed(alias, "path"),),
    )


@pytest.mark.parametrize("alias", OLD_TEXT_ALIASES)
def test_an_old_text_alias_becomes_old_text_at_the_top_of_edit(alias: str) -> None:
    assert normalize_arguments("edit", {alias: "x"}) == (
        {"oldText": "x"},
        (renamed(alias, "oldText"),),
    )


@pytest.mark.parametrize("alias", NEW_TEXT_ALIASES)
def test_a_new_text_alias_becomes_new_text_at_the_top_of_edit(alias: str) -> None:
    assert normalize_arguments("edit", {alias: "y"}) == (
        {"newText": "y"},
        (renamed(alias, "newText"),),
    )


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [(a, "oldText") for a in OLD_TEXT_ALIASES] + [(a, "newText") for a in NEW_TEXT_ALIASES],
)
def test_an_alias_inside_an_edit_object_is_renamed(alias: str, canonical: str) -> None:
    arguments = {"path": "f", "edits": [{alias: "v"}]}
    assert normalize_arguments("edit", arguments) == (
        {"path": "f", "edits": [{canonical: "v"}]},
        (renamed(f"edits.0.{alias}", f"edits.0.{canonical}"),),
    )


@pytest.mark.parametrize("alias", CONTENT_ALIASES)
def test_a_content_alias_becomes_content_for_write(alias: str) -> None:
    assert normalize_arguments("write", {"path": "f", alias: "hi"}) == (
        {"path": "f", "content": "hi"},
        (renamed(alias, "content"),),
    )


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [(a, "offset") for a in OFFSET_ALIASES] + [(a, "limit") for a in LIMIT_ALIASES],
)
def test_an_offset_or_limit_alias_is_renamed_for_read(alias: str, canonical: str) -> None:
    assert normalize_arguments("read", {"path": "f", alias: 5}) == (
        {"path": "f", canonical: 5},
        (renamed(alias, canonical),),
    )


@pytest.mark.parametrize("tool", ["grep", "ls"])
@pytest.mark.parametrize("alias", [*PATH_ALIASES, "relative_path", "directory", "dir"])
def test_grep_and_ls_take_path_and_directory_aliases(tool: str, alias: str) -> None:
    assert normalize_arguments(tool, {alias: "src"})[0] == {"path": "src"}


@pytest.mark.parametrize(
    "alias", ["filePath", "file_path", "target", "relative_path", "directory", "dir"]
)
def test_find_takes_path_aliases_that_name_a_place(alias: str) -> None:
    assert normalize_arguments("find", {"pattern": "*.py", alias: "src"})[0] == {
        "pattern": "*.py",
        "path": "src",
    }


@pytest.mark.parametrize("key", ["file", "filename", "file_name"])
def test_find_leaves_keys_that_may_name_what_is_sought(key: str) -> None:
    arguments = {key: "config.json"}
    assert normalize_arguments("find", arguments) == (arguments, ())


@pytest.mark.parametrize(
    ("tool", "alias", "canonical"),
    [
        ("grep", "regex", "pattern"),
        ("grep", "query", "pattern"),
        ("grep", "include", "glob"),
        ("grep", "ignore_case", "ignoreCase"),
        ("grep", "case_insensitive", "ignoreCase"),
        ("grep", "caseInsensitive", "ignoreCase"),
        ("grep", "-i", "ignoreCase"),
        ("grep", "context_lines", "context"),
        ("grep", "contextLines", "context"),
        ("grep", "-C", "context"),
        ("find", "glob", "pattern"),
    ],
)
def test_grep_and_find_option_aliases(tool: str, alias: str, canonical: str) -> None:
    assert normalize_arguments(tool, {alias: "v"}) == (
        {canonical: "v"},
        (renamed(alias, canonical),),
    )


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("read", {"path": "p", "search": "v"}),  # an edit alias means nothing to read
        ("write", {"path": "p", "content": "c", "old_str": "v"}),
        ("edit", {"path": "p", "text": "v"}),  # a write alias means nothing to edit
        ("grep", {"pattern": "p", "search": "v"}),
        ("grep", {"pattern": "p", "lines": 3}),
        ("find", {"pattern": "p", "query": "v"}),
        ("ls", {"glob": "*"}),
        ("bash", {"cmd": "ls"}),
    ],
)
def test_an_alias_of_another_tool_is_left_alone(tool: str, arguments: dict[str, object]) -> None:
    assert normalize_arguments(tool, arguments) == (arguments, ())


# --- precedence -------------------------------------------------------------------------------


def test_an_explicit_path_wins_over_file_path_for_read() -> None:
    # Reported in cortexkit/aft#148: `filePath` works, an explicit `path` wins.
    assert normalize_arguments("read", {"filePath": "alias.txt", "path": "real.txt"}) == (
        {"path": "real.txt"},
        (ignored("filePath", "path"),),
    )
    assert normalize_arguments("read", {"path": "real.txt", "file_path": "alias.txt"}) == (
        {"path": "real.txt"},
        (ignored("file_path", "path"),),
    )


def test_the_first_of_two_aliases_in_key_order_wins() -> None:
    assert normalize_arguments("write", {"file": "a", "filePath": "b", "text": "x"}) == (
        {"path": "a", "content": "x"},
        (renamed("file", "path"), ignored("filePath", "file"), renamed("text", "content")),
    )
    assert normalize_arguments("write", {"filePath": "b", "file": "a"})[0] == {"path": "b"}


def test_a_null_canonical_value_does_not_count_as_given() -> None:
    assert normalize_arguments("read", {"path": None, "file_path": "a.py"}) == (
        {"path": "a.py"},
        (ignored("path", "file_path"), renamed("file_path", "path")),
    )


def test_a_null_alias_gives_way_to_a_later_one() -> None:
    assert normalize_arguments("read", {"file": None, "filePath": "a.py"})[0] == {"path": "a.py"}


def test_when_every_candidate_is_null_the_canonical_key_stays() -> None:
    assert normalize_arguments("read", {"path": None, "file": None}) == (
        {"path": None},
        (ignored("file", "path"),),
    )


def test_a_renamed_key_keeps_its_place_in_the_key_order() -> None:
    normalized, _ = normalize_arguments("read", {"limit": 3, "file_path": "a", "z": 1})
    assert isinstance(normalized, dict)
    assert list(normalized) == ["limit", "path", "z"]


def test_an_explicit_key_inside_an_edit_object_wins() -> None:
    arguments = {"path": "f", "edits": [{"search": "a", "oldText": "b", "newText": "c"}]}
    assert normalize_arguments("edit", arguments) == (
        {"path": "f", "edits": [{"oldText": "b", "newText": "c"}]},
        (ignored("edits.0.search", "edits.0.oldText"),),
    )


def test_unknown_keys_are_kept() -> None:
    assert normalize_arguments("read", {"file": "a", "encoding": "utf-8"})[0] == {
        "path": "a",
        "encoding": "utf-8",
    }


# --- untouched input --------------------------------------------------------------------------


@pytest.mark.parametrize("arguments", [None, "read a.py", ["a.py"], 42, {"path": "a.py"}, {}])
def test_nothing_to_do_returns_the_same_object(arguments: object) -> None:
    result, renames = normalize_arguments("read", arguments)
    assert result is arguments
    assert renames == ()


@pytest.mark.parametrize("tool", ["bash", "mcp__fs__read", "Read", "todo"])
def test_other_tools_are_left_alone(tool: str) -> None:
    arguments = {"file_path": "a", "old_str": "x"}
    result, renames = normalize_arguments(tool, arguments)
    assert result is arguments
    assert renames == ()


def test_the_input_is_never_modified() -> None:
    arguments: dict[str, object] = {
        "file": "f",
        "old_str": "a",
        "new_str": "b",
        "edits": [{"search": "c", "replace": "d"}, {"oldText": "e", "newText": "f"}],
    }
    before = copy.deepcopy(arguments)
    normalized, _ = normalize_arguments("edit", arguments)
    assert arguments == before
    assert normalized is not arguments
    assert isinstance(normalized, dict)
    assert normalized["edits"] is not arguments["edits"]


def test_an_unchanged_edit_object_is_shared_not_copied() -> None:
    kept = {"oldText": "e", "newText": "f"}
    normalized, _ = normalize_arguments("edit", {"path": "f", "edits": [{"old": "a"}, kept]})
    assert isinstance(normalized, dict)
    assert isinstance(normalized["edits"], list)
    assert normalized["edits"][1] is kept


# --- edit: a top-level pair, top-level aliases, an `edits` string; with prepare_edit_arguments


def prepared_edit(arguments: object) -> object:
    normalized, _ = normalize_arguments("edit", arguments)
    return prepare_edit_arguments(normalized)


def test_a_top_level_pair_is_left_for_the_edit_tool_to_fold() -> None:
    arguments = {"path": "f", "oldText": "a", "newText": "b"}
    assert normalize_arguments("edit", arguments) == (arguments, ())
    assert prepared_edit(arguments) == {"path": "f", "edits": [{"oldText": "a", "newText": "b"}]}


@pytest.mark.parametrize(
    ("old", "new"), [("search", "replace"), ("old", "new"), ("old_str", "new_str")]
)
def test_a_top_level_alias_pair_becomes_one_edit(old: str, new: str) -> None:
    arguments = {"path": "f", old: "a", new: "b"}
    assert normalize_arguments("edit", arguments)[1] == (
        renamed(old, "oldText"),
        renamed(new, "newText"),
    )
    assert prepared_edit(arguments) == {"path": "f", "edits": [{"oldText": "a", "newText": "b"}]}


def test_an_existing_edits_array_is_not_overwritten_by_a_top_level_pair() -> None:
    arguments = {"path": "f", "edits": [{"oldText": "a", "newText": "b"}], "old": "c", "new": "d"}
    assert prepared_edit(arguments) == {
        "path": "f",
        "edits": [{"oldText": "a", "newText": "b"}, {"oldText": "c", "newText": "d"}],
    }


def test_an_edits_json_string_with_aliases_is_decoded_and_renamed() -> None:
    arguments = {"path": "f", "edits": json.dumps([{"old_str": "a", "new_str": "b"}])}
    assert normalize_arguments("edit", arguments) == (
        {"path": "f", "edits": [{"oldText": "a", "newText": "b"}]},
        (
            Rename("edits", "edits", "converted", "JSON text → list"),
            renamed("edits.0.old_str", "edits.0.oldText"),
            renamed("edits.0.new_str", "edits.0.newText"),
        ),
    )


def test_a_canonical_edits_json_string_is_left_for_the_edit_tool() -> None:
    arguments = {"path": "f", "edits": json.dumps([{"oldText": "a", "newText": "b"}])}
    assert normalize_arguments("edit", arguments) == (arguments, ())
    assert prepared_edit(arguments) == {"path": "f", "edits": [{"oldText": "a", "newText": "b"}]}


@pytest.mark.parametrize("text", ["[{old_str: 'a'}", "", "not json", "42", '"text"', "null"])
def test_an_edits_string_that_is_not_a_json_list_or_object_is_kept(text: str) -> None:
    arguments = {"path": "f", "edits": text}
    assert normalize_arguments("edit", arguments) == (arguments, ())


def test_a_single_edit_object_has_its_aliases_renamed() -> None:
    arguments = {"path": "f", "edits": {"search": "a", "replace": "b"}}
    assert normalize_arguments("edit", arguments) == (
        {"path": "f", "edits": {"oldText": "a", "newText": "b"}},
        (renamed("edits.search", "edits.oldText"), renamed("edits.replace", "edits.newText")),
    )
    assert prepared_edit(arguments) == {"path": "f", "edits": [{"oldText": "a", "newText": "b"}]}


def test_a_single_edit_object_as_json_text_is_decoded_when_it_needs_a_rename() -> None:
    arguments = {"path": "f", "edits": json.dumps({"old": "a", "new": "b"})}
    normalized, renames = normalize_arguments("edit", arguments)
    assert normalized == {"path": "f", "edits": {"oldText": "a", "newText": "b"}}
    assert renames[0] == Rename("edits", "edits", "converted", "JSON text → object")
    assert prepared_edit(arguments) == {"path": "f", "edits": [{"oldText": "a", "newText": "b"}]}


def test_every_edit_object_is_renamed_and_other_items_are_kept() -> None:
    arguments = {"path": "f", "edits": [{"old": "a", "new": "b"}, "junk", {"original": "c"}]}
    assert normalize_arguments("edit", arguments) == (
        {"path": "f", "edits": [{"oldText": "a", "newText": "b"}, "junk", {"oldText": "c"}]},
        (
            renamed("edits.0.old", "edits.0.oldText"),
            renamed("edits.0.new", "edits.0.newText"),
            renamed("edits.2.original", "edits.2.oldText"),
        ),
    )


def test_path_aliases_do_not_apply_inside_edit_objects() -> None:
    arguments = {"path": "f", "edits": [{"oldText": "a", "newText": "b", "file": "g"}]}
    assert normalize_arguments("edit", arguments) == (arguments, ())


# --- read: numbers sent as text ------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected", "detail"),
    [
        ("10", 10, '"10" → 10'),
        (" 7 ", 7, '" 7 " → 7'),
        ("-3", -3, '"-3" → -3'),
        ("10.0", 10, '"10.0" → 10'),
        ("1e2", 100, '"1e2" → 100'),
        ("1.5", 1.5, '"1.5" → 1.5'),
        (".5", 0.5, '".5" → 0.5'),
        (10.0, 10, "10.0 → 10"),
    ],
)
def test_read_offset_and_limit_text_becomes_a_number(
    value: object, expected: float, detail: str
) -> None:
    for key in ("offset", "limit"):
        normalized, renames = normalize_arguments("read", {"path": "f", key: value})
        assert normalized == {"path": "f", key: expected}
        assert isinstance(normalized, dict)
        assert type(normalized[key]) is type(expected)
        assert renames == (Rename(key, key, "converted", detail),)


@pytest.mark.parametrize(
    "value",
    [
        "abc",
        "",
        " ",
        "10 lines",
        "nan",
        "inf",
        "1e999",
        "1_000",
        "0x10",
        "١٠",
        True,
        5,
        1.5,
        None,
        [1],
    ],
)
def test_read_offset_and_limit_that_are_not_plain_numbers_are_kept(value: object) -> None:
    for key in ("offset", "limit"):
        arguments = {"path": "f", key: value}
        assert normalize_arguments("read", arguments) == (arguments, ())


def test_a_read_alias_is_renamed_then_converted() -> None:
    assert normalize_arguments("read", {"path": "f", "start": "5", "maxLines": "20"}) == (
        {"path": "f", "offset": 5, "limit": 20},
        (
            renamed("start", "offset"),
            renamed("maxLines", "limit"),
            Rename("offset", "offset", "converted", '"5" → 5'),
            Rename("limit", "limit", "converted", '"20" → 20'),
        ),
    )


@pytest.mark.parametrize("tool", ["grep", "find", "ls"])
def test_numbers_are_converted_for_read_only(tool: str) -> None:
    arguments = {"pattern": "x", "limit": "10"}
    assert normalize_arguments(tool, arguments) == (arguments, ())


# --- the records ------------------------------------------------------------------------------


def test_a_rename_describes_itself() -> None:
    assert str(renamed("file_path", "path")) == "file_path → path"
    assert str(ignored("filePath", "path")) == "filePath ignored (path used)"
    assert str(Rename("offset", "offset", "converted", '"10" → 10')) == 'offset: "10" → 10'


def test_a_rename_is_a_json_record() -> None:
    assert msgspec.to_builtins(
        [renamed("file", "path"), Rename("limit", "limit", "converted", "x")]
    ) == [
        {"source": "file", "target": "path", "kind": "renamed"},
        {"source": "limit", "target": "limit", "kind": "converted", "detail": "x"},
    ]


# --- through the real tools ------------------------------------------------------------------


VALID_AFTER_NORMALIZATION = [
    ("read", {"filePath": "a.txt"}),
    ("read", {"file_path": "a.txt", "start": "2", "lines": "1"}),
    ("write", {"file": "n.txt", "text": "hi"}),
    ("write", {"filename": "n.txt", "contents": "hi", "body": "ignored"}),
    ("edit", {"file_path": "a.txt", "old_str": "one", "new_str": "ONE"}),
    ("edit", {"path": "a.txt", "search": "one", "replace": "ONE"}),
    ("edit", {"target": "a.txt", "edits": [{"oldString": "one", "newString": "ONE"}]}),
    ("edit", {"path": "a.txt", "edits": json.dumps([{"old": "one", "new": "ONE"}])}),
    ("edit", {"path": "a.txt", "edits": {"original": "one", "replacement": "ONE"}}),
    ("grep", {"regex": "one", "directory": ".", "include": "*.txt", "-i": True, "-C": "1"}),
    ("find", {"glob": "*.txt", "dir": "."}),
    ("ls", {"dir": "."}),
]
"""Arguments with an alias for every required key the tool has (ls has none)."""


@pytest.mark.parametrize(("tool", "arguments"), VALID_AFTER_NORMALIZATION)
def test_normalized_arguments_pass_the_tool_schema(tool: str, arguments: dict[str, object]) -> None:
    if tool != "ls":
        assert schema_issues(tool, arguments) != []  # as sent, the tool refuses them
    assert schema_issues(tool, normalize_arguments(tool, arguments)[0]) == []


def test_read_with_file_path_reads_the_file(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    result = run("read", tmp_path, {"file_path": "a.txt", "start": "2", "lines": "1"})
    assert not result.is_error
    assert result.content[0].text.startswith("two\n")  # type: ignore[union-attr]


def test_read_with_an_explicit_path_reads_that_file(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("real\n")
    (tmp_path / "alias.txt").write_text("alias\n")
    result = run("read", tmp_path, {"filePath": "alias.txt", "path": "real.txt"})
    assert result.content[0].text == "real\n"  # type: ignore[union-attr]


def test_edit_with_aliases_edits_the_file(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("one\ntwo\n")
    result = run("edit", tmp_path, {"file_path": "a.txt", "old_string": "two", "new_string": "2"})
    assert not result.is_error, result
    assert target.read_text() == "one\n2\n"


def test_edit_with_aliases_inside_json_text_edits_the_file(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("one\ntwo\n")
    edits = json.dumps([{"search": "one", "replace": "1"}, {"old": "two", "new": "2"}])
    result = run("edit", tmp_path, {"path": "a.txt", "edits": edits})
    assert not result.is_error, result
    assert target.read_text() == "1\n2\n"


def test_ls_with_a_directory_alias_lists_that_directory(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "inner.txt").write_text("")
    (tmp_path / "outer.txt").write_text("")
    assert run("ls", tmp_path, {"directory": "sub"}).content[0].text == "inner.txt"  # type: ignore[union-attr]


def test_grep_with_aliases_searches_as_asked(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text("Hello\nworld\n")
    (tmp_path / "sub" / "b.md").write_text("hello\n")
    (tmp_path / "c.txt").write_text("hello\n")
    arguments = {"query": "hello", "dir": "sub", "include": "*.txt", "ignore_case": True}
    result = run("grep", tmp_path, arguments)
    assert not result.is_error, result
    assert result.content[0].text == "a.txt:1: Hello"  # type: ignore[union-attr]


def test_write_with_aliases_writes_the_file(tmp_path: Path) -> None:
    result = run("write", tmp_path, {"file": "n.txt", "code": "print(1)\n"})
    assert not result.is_error, result
    assert (tmp_path / "n.txt").read_text() == "print(1)\n"


# --- properties -------------------------------------------------------------------------------

_KEYS = st.sampled_from(
    [
        "path",
        "file",
        "filePath",
        "file_path",
        "oldText",
        "newText",
        "old_str",
        "new",
        "search",
        "content",
        "text",
        "offset",
        "start",
        "limit",
        "lines",
        "edits",
        "other",
    ]
)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(allow_nan=True),
    st.text(max_size=5),
    st.sampled_from(["10", "1.5", "[]", '[{"old": "a"}]', '{"search": 1}']),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=10,
)
_ARGUMENTS = st.dictionaries(_KEYS, _VALUES, max_size=6)
_TOOLS = st.sampled_from(["read", "write", "edit", "grep", "find", "ls", "bash"])


@given(_TOOLS, _ARGUMENTS)
def test_normalizing_never_modifies_the_input(tool: str, arguments: dict[str, object]) -> None:
    before = copy.deepcopy(arguments)
    normalize_arguments(tool, arguments)
    assert repr(arguments) == repr(before)  # repr: NaN != NaN


@given(_TOOLS, _ARGUMENTS)
def test_normalizing_twice_changes_nothing_more(tool: str, arguments: dict[str, object]) -> None:
    once, _ = normalize_arguments(tool, arguments)
    twice, renames = normalize_arguments(tool, once)
    assert renames == ()
    assert twice is once


@given(_TOOLS, _ARGUMENTS)
def test_a_result_without_renames_is_the_input(tool: str, arguments: dict[str, object]) -> None:
    result, renames = normalize_arguments(tool, arguments)
    assert (result is arguments) == (renames == ())
