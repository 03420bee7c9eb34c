"""The tasks file: every line checked before anything runs, a bad one named by number."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pith.batch import parse_tasks, read_tasks
from pith.errors import InputError


def lines(*values: object) -> str:
    return "".join((v if isinstance(v, str) else json.dumps(v)) + "\n" for v in values)


def test_tasks_are_parsed_with_cwd_taken_from_the_files_folder(tmp_path: Path) -> None:
    text = lines(
        {"id": "a", "cwd": "repo", "prompt": "fix it", "check": "pytest -q"},
        "",
        {"id": "b", "cwd": "/abs/x", "prompt": "p", "model": "fake/m", "setup": "make"},
    )
    a, b = parse_tasks(text, "tasks.jsonl", tmp_path)
    assert (a.id, a.cwd, a.check, a.model, a.line) == ("a", tmp_path / "repo", "pytest -q", None, 1)
    assert (b.cwd, b.model, b.setup, b.line) == (Path("/abs/x"), "fake/m", "make", 3)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "x", "cwd": ".", "prompt": ', "tasks.jsonl:2: column"),
        ("[1, 2]", "tasks.jsonl:2: a task is a JSON object"),
        ('{"id": "x", "cwd": "."}', "tasks.jsonl:2: missing 'prompt'"),
        ('{"id": "x", "cwd": ".", "prompt": "p", "chek": "x"}', "unknown field 'chek'"),
        ('{"id": "x", "cwd": ".", "prompt": 3}', "tasks.jsonl:2: 'prompt' must be a string"),
        ('{"id": "", "cwd": ".", "prompt": "p"}', "tasks.jsonl:2: 'id' is empty"),
        ('{"id": "../up", "cwd": ".", "prompt": "p"}', "cannot name a folder"),
        (
            '{"id": "a", "cwd": ".", "prompt": "p"}',
            "tasks.jsonl:2: id 'a' is already used on line 1",
        ),
        ('{"id": "y", "id": "z", "cwd": ".", "prompt": "p"}', "tasks.jsonl:2: column"),
    ],
)
def test_a_bad_line_is_named_by_number(tmp_path: Path, line: str, message: str) -> None:
    text = lines({"id": "a", "cwd": ".", "prompt": "p"}, line)
    with pytest.raises(InputError, match=None) as caught:
        parse_tasks(text, "tasks.jsonl", tmp_path)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_an_empty_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no tasks"):
        parse_tasks("\n\n", "tasks.jsonl", tmp_path)


def test_a_missing_cwd_and_an_out_inside_a_cwd_are_refused(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(
        lines({"id": "a", "cwd": "src", "prompt": "p"}, {"id": "b", "cwd": "gone", "prompt": "p"})
    )
    with pytest.raises(InputError, match=r"tasks.jsonl:2: cwd .*gone' does not exist"):
        read_tasks(tasks, tmp_path / "out")
    tasks.write_text(lines({"id": "a", "cwd": "src", "prompt": "p"}))
    with pytest.raises(InputError, match="inside the task's cwd"):
        read_tasks(tasks, tmp_path / "src" / "out")
    assert [t.id for t in read_tasks(tasks, tmp_path / "out")] == ["a"]
