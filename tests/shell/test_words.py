"""Reading words: the strict literal reading, quote removal with character kinds, `$name`."""

from __future__ import annotations

import pytest

from pith.shell import (
    LIT,
    QUOTED,
    Node,
    Scope,
    children,
    double_quoted_chars,
    expand_word,
    literal_word,
    parse_bash,
    quiet_word,
    unquoted_chars,
)


def _word(command: str, index: int = 1) -> Node:
    """Word `index` of the one simple command `command`."""
    cmd = parse_bash(command).stmts[0]["Cmd"]
    assert isinstance(cmd, dict)
    return children(cmd, "Args")[index]


@pytest.mark.parametrize(
    ("command", "value"),
    [
        ("echo plain", "plain"),
        ("echo 'single quoted'", "single quoted"),
        ('echo "double \\"quoted\\""', 'double "quoted"'),
        ("echo esc\\*aped", "esc*aped"),
        ("echo [ -f x ]", "["),  # a lone `[` is text
        ("echo a\\[b]", "a[b]"),
        ("echo x~", "x~"),
        ("echo $'no escapes'", "no escapes"),
    ],
)
def test_a_word_bash_would_not_expand_is_literal(command: str, value: str) -> None:
    assert literal_word(_word(command)) == value


@pytest.mark.parametrize(
    "command",
    ["echo *.py", "echo a?", "echo [ab]", "echo {a,b}", "echo ~/x", "echo $x", 'echo "$x"',
     "echo $(date)", "echo $'a\\tb'"],
)  # fmt: skip
def test_a_word_bash_would_expand_is_not_literal(command: str) -> None:
    assert literal_word(_word(command)) is None


def test_quote_removal_marks_how_each_character_was_typed() -> None:
    assert unquoted_chars("a\\*b") == [("a", LIT), ("*", QUOTED), ("b", LIT)]
    assert unquoted_chars("a\\\nb") == [("a", LIT), ("b", LIT)]
    assert double_quoted_chars("\\$x\\y") == [
        ("$", QUOTED),
        ("x", QUOTED),
        ("\\", QUOTED),
        ("y", QUOTED),
    ]


def test_a_plain_parameter_is_quiet_and_an_operator_is_not() -> None:
    assert quiet_word(_word('x "$HOME"/${y}', 1))
    assert not quiet_word(_word("x ${y:?unset}", 1))
    assert not quiet_word(_word("x $(date)", 1))


def test_expansion_substitutes_a_known_variable_and_splits_it(tmp_path: object) -> None:
    scope = Scope({"f": "a b"}, home="/home/u", directory=str(tmp_path))
    expansion = expand_word(_word("cat $f"), scope)
    assert expansion is not None
    assert expansion.fields == ("a", "b")
    assert expand_word(_word('cat "$f"'), scope).fields == ("a b",)  # type: ignore[union-attr]
    assert expand_word(_word("cat $g"), scope) is None
