"""The docs' snippet runner itself: markers are read as written, and a snippet that does not do
what its marker says is reported, so the docs test can fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.snippets import Snippet, SnippetError, check, parse_snippets, run_snippet

DOC = """# A page

```python
print("saved")
```

<!-- runnable: expect "two words" exit 3 keep-going save hello.py fixture sessions -->
```sh
echo two words
```

```sh
echo not marked
```

<!-- runnable -->
```bash
pith --version
```
"""


def only(text: str) -> Snippet:
    snippets = parse_snippets(text, "page.md")
    assert len(snippets) == 1
    return snippets[0]


def test_markers_are_read_with_their_options_and_unmarked_blocks_are_left_out() -> None:
    first, second = parse_snippets(DOC, "page.md")
    assert first.id == "page.md:8"
    assert first.code == "echo two words\n"
    assert first.expect == ("two words",)
    assert (first.exit, first.keep_going, first.fixtures) == (3, True, ("sessions",))
    assert first.saves == {"hello.py": 'print("saved")\n'}
    assert second.id == "page.md:17"
    assert (second.code, second.expect, second.exit) == ("pith --version\n", (), 0)
    assert second.saves == first.saves  # saved for the rest of the page


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<!-- runnable -->\n\n```sh\ntrue\n```\n", "right before a ```sh fence"),
        ("<!-- runnable -->\n```json\n{}\n```\n", "right before a ```sh fence"),
        ('<!-- runnable: expext "x" -->\n```sh\ntrue\n```\n', "'expext' is unknown"),
        ("<!-- runnable: exit one -->\n```sh\ntrue\n```\n", "'exit' needs a number"),
        ("<!-- runnable: fixture nope -->\n```sh\ntrue\n```\n", "no fixture 'nope'"),
        ("<!-- runnable: save a.py -->\n```sh\ntrue\n```\n", "needs a code block before"),
        ('<!-- runnable: expect "open -->\n```sh\ntrue\n```\n', "No closing quotation"),
    ],
)
def test_a_bad_marker_is_an_error_naming_the_line(text: str, message: str) -> None:
    with pytest.raises(SnippetError, match=r"^page\.md:1: ") as raised:
        parse_snippets(text, "page.md")
    assert message in str(raised.value)


def test_a_marker_shown_inside_a_code_block_is_not_one() -> None:
    assert parse_snippets("````md\n<!-- runnable -->\n```sh\ntrue\n```\n````\n", "p.md") == []


def test_a_failing_line_fails_the_snippet_and_stops_it(tmp_path: Path) -> None:
    snippet = only("<!-- runnable -->\n```sh\necho before\nfalse\necho after\n```\n")
    outcome = run_snippet(snippet, tmp_path)
    assert outcome.exit == 1
    assert "before" in outcome.output
    assert "after" not in outcome.output
    assert check(snippet, outcome) == ["exit status 1, expected 0"]


def test_missing_output_fails_the_snippet(tmp_path: Path) -> None:
    snippet = only('<!-- runnable: expect "pith 9" -->\n```sh\npith --version\n```\n')
    outcome = run_snippet(snippet, tmp_path)
    assert outcome.exit == 0
    assert check(snippet, outcome) == ["output lacks 'pith 9'"]


def test_keep_going_runs_every_line_and_takes_the_last_status(tmp_path: Path) -> None:
    text = '<!-- runnable: keep-going exit 2 expect "after" -->\n```sh\nfalse\necho after\n'
    snippet = only(text + "(exit 2)\n```\n")
    assert check(snippet, run_snippet(snippet, tmp_path)) == []


def test_a_snippet_runs_pith_in_a_project_against_the_fake_model(tmp_path: Path) -> None:
    code = (
        'test "$(pwd)" = "$HOME/project"\n'
        'test "$PITH_AGENT_DIR" = "$HOME/.pith/agent"\n'
        "git -C . log --oneline | grep -q 'a small project'\n"
        "grep -q teh notes.txt\n"
        'test "$(command -v pith)" -ef .venv/bin/pith\n'
        'pith -p "hello"\n'
        ".venv/bin/pith -p -c 'again'\n"
        "pith sessions\n"
    )
    snippet = only(f"<!-- runnable -->\n```sh\n{code}```\n")
    outcome = run_snippet(snippet, tmp_path)
    assert check(snippet, outcome) == [], outcome.output
    assert "Reply 1 from the fake model.\nReply 2 from the fake model.\n" in outcome.output
    assert outcome.output.rstrip().endswith("hello")  # `pith sessions` names it


def test_the_sessions_fixture_makes_each_session_the_snippet_names(tmp_path: Path) -> None:
    code = "pith sessions\npith -p --session 01a22900 'more'\npith export 01a22a02-7c3f\n"
    snippet = only(f"<!-- runnable: fixture sessions -->\n```sh\n{code}```\n")
    outcome = run_snippet(snippet, tmp_path)
    assert check(snippet, outcome) == [], outcome.output
    assert "01a22900" in outcome.output
    assert "an earlier session (01a22900)" in outcome.output
    assert "pith-session-01a22a02-7c3f-" in outcome.output


def test_a_saved_block_is_in_the_project(tmp_path: Path) -> None:
    text = '```text\nsaved words\n```\n<!-- runnable: save note.txt expect "saved words" -->\n'
    snippet = only(text + "```sh\ncat note.txt\n```\n")
    assert check(snippet, run_snippet(snippet, tmp_path)) == []
