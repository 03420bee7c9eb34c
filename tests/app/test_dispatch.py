"""Which command a text invokes, and whether a mode can run it: the pure policy every mode
dispatches with."""

from __future__ import annotations

import pytest

from pith.app.session._dispatch import CommandNames, Invocation, classify, refusal, split_command

NAMES = CommandNames(
    builtin={"session", "model"},
    extension={"todo", "todo:1"},
    template={"review"},
    skill={"skill:deploy"},
)


def nothing_exists(path: str) -> bool:
    return False


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/session", Invocation("builtin", "session", "")),
        ("/model  fake/m:high ", Invocation("builtin", "model", "fake/m:high")),
        ("/todo:1 add\nmore", Invocation("extension", "todo:1", "add\nmore")),
        ("/review src/app.py", Invocation("template", "review", "src/app.py")),
        ("/skill:deploy to staging", Invocation("skill", "skill:deploy", "to staging")),
        ("/compact\nfocus on tests", Invocation("unknown", "compact", "focus on tests")),
        ("/frob-nicate_2:x now", Invocation("unknown", "frob-nicate_2:x", "now")),
    ],
)
def test_a_first_word_naming_a_command_invokes_it(text: str, expected: Invocation) -> None:
    assert classify(text, NAMES, exists=nothing_exists) == expected


@pytest.mark.parametrize(
    "text",
    [
        " /frobnicate",  # a leading space: text as typed
        "explain /frobnicate",
        "/etc/hosts explain this",  # a second slash: a path
        "/Frobnicate",  # not lowercase
        "/naïve question",
        "/",
        "/ spaced",
        "/9lives",
    ],
)
def test_other_texts_are_plain_text(text: str) -> None:
    assert classify(text, NAMES, exists=nothing_exists) is None


def test_an_existing_path_is_text_not_an_unknown_command() -> None:
    assert classify("/tmp what is here", NAMES, exists=lambda path: path == "/tmp") is None
    assert classify("/tmp what is here", NAMES, exists=nothing_exists) == Invocation(
        "unknown", "tmp", "what is here"
    )


def test_split_command_strips_the_arguments() -> None:
    assert split_command("/name  my work  ") == ("name", "my work")
    assert split_command("name") is None


@pytest.mark.parametrize(
    ("needs", "arguments", "mode", "refused"),
    [
        ("nothing", "", "print", False),
        ("terminal", "", "interactive", False),
        ("terminal", "", "print", True),
        ("terminal", "", "rpc", True),
        ("terminal-to-choose", "", "json", True),
        ("terminal-to-choose", "fake/m", "json", False),
        ("ui", "", "print", True),
        ("ui", "", "json", True),
        ("ui", "", "rpc", False),
    ],
)
def test_what_a_command_needs_decides_where_it_runs(
    needs: str, arguments: str, mode: str, refused: bool
) -> None:
    problem = refusal("x", needs, arguments, mode, "do y")  # type: ignore[arg-type]
    assert (problem is not None) == refused
    if problem is not None:
        assert problem.startswith("/x needs the terminal")
        assert problem.endswith("; do y")
