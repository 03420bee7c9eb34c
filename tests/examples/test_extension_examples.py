"""The example extensions in examples/extensions/ and the quick start of docs/extensions.md, run
for real: `pith tool` and `pith -p` in subprocesses, with the fake model server wherever a model
is involved."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pith.testing import FakeServer, configure_agent_dir, subprocess_env

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "extensions"
PROTECT = str(EXAMPLES / "protect_paths.py")
WORD_COUNT = str(EXAMPLES / "word_count.py")
TODO = str(EXAMPLES / "todo_command.py")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return subprocess_env(tmp_path / "agent")


def configure(tmp_path: Path, server: FakeServer) -> None:
    """A provider `fake` with model `m`, answered by `server`."""
    configure_agent_dir(tmp_path / "agent", server)


def pith(work: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pith", *args],
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,  # piped input would be prepended to the first message
        capture_output=True,
        text=True,
        timeout=60,
    )


def tool_results(request: dict[str, object]) -> list[str]:
    """The text of every tool result in a logged OpenAI-format request."""
    body = request["body"]
    assert isinstance(body, dict)
    texts = []
    for message in body["messages"]:
        if message.get("role") == "tool":
            content = message["content"]
            texts.append(content if isinstance(content, str) else json.dumps(content))
    return texts


# --- protect_paths ----------------------------------------------------------------------------


def test_protect_paths_blocks_write_to_env_with_a_reason(work: Path, env: dict[str, str]) -> None:
    arguments = json.dumps({"path": ".env", "content": "TOKEN=x\n"})
    result = pith(work, env, "tool", "write", arguments, "-e", PROTECT)
    assert result.returncode == 1
    assert result.stdout.startswith("Blocked: .env is protected (it matches '.env')")
    assert "tell the user exactly what to change" in result.stdout
    assert not (work / ".env").exists()


def test_protect_paths_blocks_edit_inside_a_git_folder(work: Path, env: dict[str, str]) -> None:
    config = work / ".git" / "config"
    config.parent.mkdir()
    config.write_text("[core]\n")
    edit = {"path": ".git/config", "edits": [{"oldText": "[core]", "newText": "[hacked]"}]}
    # pith's own permission system asks first (.git/config is one of its control paths);
    # --yes answers that question, and the example extension still blocks the edit.
    result = pith(work, env, "tool", "edit", json.dumps(edit), "-e", PROTECT, "--yes")
    assert result.returncode == 1
    assert "Blocked: .git/config is protected (it matches '.git/**')" in result.stdout
    assert config.read_text() == "[core]\n"


def test_protect_paths_follows_symlinks_to_protected_files(work: Path, env: dict[str, str]) -> None:
    (work / "server.pem").write_text("secret\n")
    (work / "notes.txt").symlink_to("server.pem")
    arguments = json.dumps({"path": "notes.txt", "content": "overwritten\n"})
    result = pith(work, env, "tool", "write", arguments, "-e", PROTECT)
    assert result.returncode == 1
    assert "(it matches '*.pem')" in result.stdout
    assert (work / "server.pem").read_text() == "secret\n"


def test_protect_paths_lets_other_writes_through(work: Path, env: dict[str, str]) -> None:
    arguments = json.dumps({"path": "src/app.py", "content": "print('hi')\n"})
    result = pith(work, env, "tool", "write", arguments, "-e", PROTECT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (work / "src" / "app.py").read_text() == "print('hi')\n"


def test_protect_flag_sets_the_globs_for_pith_tool(work: Path, env: dict[str, str]) -> None:
    arguments = json.dumps({"path": "config/app.yml", "content": "debug: true\n"})
    blocked = pith(work, env, "tool", "write", arguments, "-e", PROTECT, "--protect", "config/**")
    assert blocked.returncode == 1
    assert "(it matches 'config/**')" in blocked.stdout
    assert not (work / "config").exists()
    # The flag replaces the default list: .env is no longer protected.
    env_write = json.dumps({"path": ".env", "content": "A=1\n"})
    allowed = pith(work, env, "tool", "write", env_write, "-e", PROTECT, "--protect", "config/**")
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr


def test_protect_flag_sets_the_globs_for_a_model_run(
    tmp_path: Path, work: Path, env: dict[str, str]
) -> None:
    script = {
        "turns": [
            {
                "tool_calls": [
                    {"name": "write", "arguments": {"path": "config/app.ini", "content": "x"}}
                ]
            },
            {"text": "I will ask the user instead."},
        ]
    }
    with FakeServer(script) as server:
        configure(tmp_path, server)
        result = pith(
            work,
            env,
            *("-p", "--model", "fake/m", "--no-session", "change the config"),
            *("-e", PROTECT, "--protect", "config/**"),
        )
        requests = server.requests
    assert result.returncode == 0, result.stderr
    assert result.stdout == "I will ask the user instead.\n"
    [reason] = tool_results(requests[1])
    assert "Blocked: config/app.ini is protected (it matches 'config/**')" in reason
    assert not (work / "config").exists()


# --- word_count -------------------------------------------------------------------------------


def test_word_count_counts_lines_words_and_bytes(work: Path, env: dict[str, str]) -> None:
    (work / "poem.txt").write_bytes("one two\n  three\tfour five\nsix é\n".encode())
    result = pith(work, env, "tool", "word_count", '{"path": "poem.txt"}', "-e", WORD_COUNT)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "3 lines, 7 words, 33 bytes in poem.txt\n"


def test_word_count_counts_a_word_cut_by_the_read_chunk_once(
    work: Path, env: dict[str, str]
) -> None:
    # The tool reads 1 MiB at a time; this word spans the first boundary.
    (work / "big.txt").write_bytes(b"x" * (1 << 20) + b"yz end\n")
    result = pith(
        work, env, "tool", "word_count", '{"path": "big.txt"}', "--json", "-e", WORD_COUNT
    )
    assert result.returncode == 0, result.stderr
    details = json.loads(result.stdout)["details"]
    assert details == {"lines": 1, "words": 2, "bytes": (1 << 20) + 7}


def test_word_count_reports_a_missing_file_by_name(work: Path, env: dict[str, str]) -> None:
    result = pith(work, env, "tool", "word_count", '{"path": "nope.txt"}', "-e", WORD_COUNT)
    assert result.returncode == 1
    assert result.stdout.startswith(
        f"word_count: nope.txt does not exist (looked for {work / 'nope.txt'})."
    )


def test_word_count_requires_a_path(work: Path, env: dict[str, str]) -> None:
    result = pith(work, env, "tool", "word_count", "{}", "-e", WORD_COUNT)
    assert result.returncode == 1
    assert 'Validation failed for tool "word_count"' in result.stdout
    assert "path: missing" in result.stdout


def test_word_count_is_offered_to_and_run_for_the_model(
    tmp_path: Path, work: Path, env: dict[str, str]
) -> None:
    (work / "README.md").write_text("# Title\n\nSome words here.\n")
    script = {
        "turns": [
            {
                "expect": ['"name":"word_count"'],
                "tool_calls": [{"name": "word_count", "arguments": {"path": "README.md"}}],
            },
            {"text": "It has 3 lines."},
        ]
    }
    with FakeServer(script) as server:
        configure(tmp_path, server)
        result = pith(
            work, env, "-p", "--model", "fake/m", "--no-session", "how long?", "-e", WORD_COUNT
        )
        problems = server.problems()
        requests = server.requests
    assert problems == []
    assert result.returncode == 0, result.stderr
    assert tool_results(requests[1]) == ["3 lines, 5 words, 26 bytes in README.md"]


# --- todo_command -----------------------------------------------------------------------------


def test_todo_add_then_list_in_one_run(tmp_path: Path, work: Path, env: dict[str, str]) -> None:
    with FakeServer({"turns": []}) as server:
        configure(tmp_path, server)
        result = pith(
            work,
            env,
            *("-p", "--model", "fake/m", "-e", TODO),
            *("/todo add buy milk", "/todo add write docs", "/todo list"),
        )
        requests = server.requests
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert requests == []  # commands never reach the model
    assert result.stderr.splitlines() == [
        "pith: [todo_command] added #1: buy milk",
        "pith: [todo_command] added #2: write docs",
        "pith: [todo_command] to-do:",
        "1. [ ] buy milk",
        "2. [ ] write docs",
    ]


def test_todo_done_ticks_off_the_numbered_item(
    tmp_path: Path, work: Path, env: dict[str, str]
) -> None:
    with FakeServer({"turns": []}) as server:
        configure(tmp_path, server)
        result = pith(
            work,
            env,
            *("-p", "--model", "fake/m", "-e", TODO),
            *("/todo add a", "/todo add b", "/todo done 2", "/todo list"),
        )
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[-2:] == ["1. [ ] a", "2. [x] b"]


def test_todo_done_with_a_bad_number_says_which_numbers_exist(
    tmp_path: Path, work: Path, env: dict[str, str]
) -> None:
    with FakeServer({"turns": []}) as server:
        configure(tmp_path, server)
        result = pith(
            work, env, "-p", "--model", "fake/m", "-e", TODO, "/todo add a", "/todo done 5"
        )
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[-1] == (
        "pith: error: [todo_command] /todo done needs an item number (1 to 1), got '5'"
    )


def test_todo_items_are_kept_in_the_session_across_runs(
    tmp_path: Path, work: Path, env: dict[str, str]
) -> None:
    with FakeServer({"turns": [{"text": "Hello."}]}) as server:
        configure(tmp_path, server)
        # The session file is written once the conversation has a message.
        first = pith(work, env, "-p", "--model", "fake/m", "hi")
        add = pith(work, env, "-p", "--model", "fake/m", "-c", "-e", TODO, "/todo add ship it")
        listed = pith(work, env, "-p", "--model", "fake/m", "-c", "-e", TODO, "/todo list")
    assert first.returncode == add.returncode == listed.returncode == 0
    assert listed.stderr.splitlines() == ["pith: [todo_command] to-do:", "1. [ ] ship it"]
    [session] = (tmp_path / "agent" / "sessions").glob("*/*.jsonl")
    entries = [json.loads(line) for line in session.read_text().splitlines()]
    custom = [entry for entry in entries if entry["type"] == "custom"]
    assert [(entry["customType"], entry["data"]) for entry in custom] == [
        ("todo", {"items": [{"text": "ship it", "done": False}]})
    ]


# --- the quick start of docs/extensions.md ----------------------------------------------------


def quick_start(folder: Path) -> str:
    """The guide's first Python block, saved as hello.py in `folder`."""
    guide = (ROOT / "docs" / "extensions.md").read_text()
    match = re.search(r"## Quick start\n.*?```python\n(.*?)```", guide, re.DOTALL)
    assert match is not None, "docs/extensions.md has no Python block under ## Quick start"
    path = folder / "hello.py"
    path.write_text(match.group(1))
    return str(path)


def test_quick_start_blocks_rm_rf(tmp_path: Path, work: Path, env: dict[str, str]) -> None:
    hello = quick_start(tmp_path)
    (work / "build").mkdir()
    result = pith(work, env, "tool", "bash", '{"command": "rm -rf build"}', "-e", hello)
    assert result.returncode == 1
    assert result.stdout == "rm -rf is not allowed here; delete the files you mean one by one\n"
    assert (work / "build").is_dir()


def test_quick_start_hello_command(tmp_path: Path, work: Path, env: dict[str, str]) -> None:
    hello = quick_start(tmp_path)
    with FakeServer({"turns": []}) as server:
        configure(tmp_path, server)
        result = pith(work, env, "-p", "--model", "fake/m", "-e", hello, "/hello you")
    assert result.returncode == 0, result.stderr
    assert result.stderr == f"pith: [hello] hello, you; I am working in {work}\n"
