"""The bash parser front end: shfmt's tree, byte offsets, errors, the cache, and the pure-Python
fast path, which must build exactly the tree shfmt builds."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pith.shell import (
    ShellSyntaxError,
    children,
    parse_bash,
    source_slice,
)
from pith.shell import _fast_parse as fast_parse
from pith.shell import _parse as shell_parse

# Keys that only say where a node sits (line/column, keyword positions); the fast path leaves
# them out and nothing reads them. Every other key must be identical.
_POSITION_ONLY = {"Line", "Col", "ValuePos", "ValueEnd", "Position", "OpPos", "Semicolon"}


def _project(node: object) -> object:
    if isinstance(node, dict):
        return {k: _project(v) for k, v in node.items() if k not in _POSITION_ONLY}
    if isinstance(node, list):
        return [_project(item) for item in node]
    return node


def _shfmt(command: str) -> object:
    result = shell_parse._run_shfmt(command.encode())
    return result if isinstance(result, str) else _project(result)


def test_statements_are_sliced_by_byte_offsets_in_utf8_text() -> None:
    tree = parse_bash('echo "héllo wörld"; ls -l')
    stmts = tree.stmts
    assert [source_slice(tree.data, stmt) for stmt in stmts] == ['echo "héllo wörld";', "ls -l"]
    args = children(stmts[1]["Cmd"], "Args")  # type: ignore[arg-type]
    assert source_slice(tree.data, args[1]) == "-l"


def test_a_syntax_error_raises_with_shfmts_one_line_message() -> None:
    with pytest.raises(ShellSyntaxError) as caught:
        parse_bash("echo 'unterminated")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("1:")
    assert "quote" in message


def test_the_same_command_is_parsed_once() -> None:
    command = 'printf "%s" cached-once'
    assert parse_bash(command) is parse_bash(command)


def test_an_unrunnable_parser_is_a_syntax_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(shell_parse.SHFMT_ENV, "/nonexistent/shfmt")
    with pytest.raises(ShellSyntaxError, match="could not run"):
        parse_bash('echo "no parser here"')


def test_find_shfmt_prefers_the_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(shell_parse.SHFMT_ENV, "/opt/shfmt")
    assert shell_parse.find_shfmt() == "/opt/shfmt"
    monkeypatch.delenv(shell_parse.SHFMT_ENV)
    found = shell_parse.find_shfmt()
    assert found is not None
    assert found.endswith("shfmt")


def test_an_empty_command_has_no_statements() -> None:
    assert parse_bash("").stmts == []
    assert parse_bash("   # only a comment").stmts == []


@pytest.mark.parametrize(
    "command",
    [
        "ls",
        "git status --short",
        " ls -la  ",
        "a=1 b= c",
        "a=1",
        "a | b | c && d || e; f;",
        "x;",
        "make -j4 CC=gcc-12 all",
        "cp a.txt b/c.txt && echo done",
        "npm run build:prod",
        "a\tb",
        "",
        " \t ",
    ],
)
def test_plain_commands_take_the_fast_path_and_match_shfmt(command: str) -> None:
    fast = fast_parse.fast_parse(command)
    assert fast is not None
    assert fast == _shfmt(command)


@pytest.mark.parametrize(
    "command",
    [
        *(f"echo a{char}b" for char in "'\"$`\\(){}[]*?~#<>!\n"),
        "echo é",
        "echo a & b",
        "time ls",
        "export A=1",
        "declare -x A",
        "if",
        "A+=1 ls",
        "=x ls",
        "; ls",
        "ls ;; x",
        "ls |",
        "&& ls",
        "a | | b",
    ],
)
def test_anything_else_goes_to_shfmt(command: str) -> None:
    assert fast_parse.fast_parse(command) is None


_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./,:=+@%^-"
_RESERVED = [
    "if", "then", "else", "fi", "do", "done", "for", "while", "case", "in", "time", "coproc",
    "export", "local", "declare", "readonly", "let", "function", "select", "until", "!",
]  # fmt: skip

_plain = st.text(_ALPHABET, min_size=1, max_size=6)
_special = st.one_of(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,3}\+?=[A-Za-z0-9_./=-]{0,4}", fullmatch=True),
    st.sampled_from(_RESERVED),
)
_blanks = st.sampled_from(["", " ", "  ", "\t", " \t "])


@st.composite
def _commands(draw: st.DrawFn) -> str:
    """Simple commands joined by operators, with or without blanks around the operators; now
    and then an assignment, a reserved word, a wrong operator or an empty command."""

    def rarely() -> bool:
        return draw(st.integers(0, 7)) == 0

    out = [draw(st.sampled_from(["", " ", "\t"]))]
    for index in range(draw(st.integers(1, 4))):
        if index:
            operator = draw(st.sampled_from(["|", "&&", "||", ";"]))
            if rarely():
                operator = draw(st.sampled_from(["&", "|&", ";;", "", "| |"]))
            out += [draw(_blanks), operator, draw(_blanks)]
        count = draw(st.integers(0 if rarely() else 1, 4))
        out.append(" ".join(draw(_special) if rarely() else draw(_plain) for _ in range(count)))
    out.append(draw(st.sampled_from(["", " ", ";", " ;"])))
    return "".join(out)


@settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(_commands())
@example("a | b | c && d || e; f;")
@example("A=1 B=x=y cmd --flag=1 -x,y @a %b ^c")
def test_the_fast_path_builds_the_tree_shfmt_builds(command: str) -> None:
    fast = fast_parse.fast_parse(command)
    expected = _shfmt(command)
    if isinstance(expected, str):
        assert fast is None, f"shfmt refuses {command!r} ({expected}) but the fast path parsed it"
    elif fast is not None:
        assert fast == expected


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(_ALPHABET + " \t|&;", max_size=24))
def test_the_fast_path_agrees_with_shfmt_on_any_text_of_its_alphabet(command: str) -> None:
    fast = fast_parse.fast_parse(command)
    if fast is None:
        return
    assert fast == _shfmt(command)


def test_the_generated_commands_do_exercise_the_fast_path() -> None:
    """The property tests above would pass vacuously if the fast path refused everything."""
    taken = 0
    for command in ["a b", "a=b c", "a | b", "a && b || c", "a; b;", "x.y -z,w"]:
        taken += fast_parse.fast_parse(command) is not None
    assert taken == 6
