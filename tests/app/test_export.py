"""Session export: the page's content, the context chart's numbers, bad input, and the two ways
a user asks for it (`pith export`, `/export`), on sessions written by pith and by Pi."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pith.ai import ImageContent, TextContent, ToolCall, UserMessage
from pith.app.export._entries import TEXT_CAP
from pith.app.export._usage import MIN_GAIN_TOKENS, context_timeline
from pith.app.export._write import (
    default_export_path,
    export_html,
    export_session_file,
    export_store,
)
from pith.errors import PithError
from pith.session import SessionFileError, SessionStore, load_session
from pith.testing import FakeServer, configure_agent_dir, subprocess_env
from tests.app.export_sessions import HOSTILE, reply, result, rich_session, user

PI_SESSIONS = Path(__file__).parents[1] / "conformance" / "sessions" / "pi"


def loaded_branch(path: Path) -> SessionStore:
    loaded = load_session(path)
    return SessionStore(loaded.header, loaded.entries, None, persisted=True)


def entry_block(page: str, entry_id: str) -> str:
    """The opening tag of an entry's block."""
    match = re.search(rf'<div class="[^"]*" id="e-{re.escape(entry_id)}">', page)
    assert match is not None, entry_id
    return match.group(0)


# --- the page ---------------------------------------------------------------------------------


def test_session_content_is_escaped_and_only_the_pages_script_runs(tmp_path: Path) -> None:
    page = export_html(rich_session(tmp_path), tmp_path / "out.html").read_text()
    assert page.count("<script") == 1
    assert "<img src=x" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert "&amp;amp;" in page  # an entity in the session shows as typed
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None
    assert "default-src 'none'" in policy.group(1)
    assert "script-src 'sha256-" in policy.group(1)


def test_page_holds_every_branch_and_marks_the_current_leaf(tmp_path: Path) -> None:
    session = rich_session(tmp_path)
    page = export_html(session, tmp_path / "out.html").read_text()
    reloaded = loaded_branch(session)
    assert reloaded.leaf_id is not None
    assert "leaf" in entry_block(page, reloaded.leaf_id).split('"')[1].split()
    assert page.count("current leaf</span>") == 1
    assert '<details class="branch"><summary>another branch from ' in page
    assert "count the words instead" in page  # the other branch
    assert "fresh start" in page  # the current one
    assert '<span class="badge label">finished</span>' in page
    assert '<span class="badge label">counted &lt;script&gt;' in page
    assert "<title>export demo</title>" in page


def test_every_kind_of_entry_is_shown(tmp_path: Path) -> None:
    page = export_html(rich_session(tmp_path), tmp_path / "out.html").read_text()
    for shown in (
        "model → fake/m",
        "thinking → high",
        "session named “export demo”",
        '<details class="thinking"><summary>thinking · 15 characters</summary>',
        '<span class="tool-name">bash</span>',
        "&quot;command&quot;: &quot;wc -l &lt;script&gt;",
        '<details class="output"><summary>output · 6,001 lines',
        "user shell command",
        "exit code 1",
        "custom message: note &lt;script&gt;",
        "extension state: prune-index",
        "compaction</span>",
        "9,100 tokens before",
        "branch summary",
        "explored counting words",
    ):
        assert shown in page, shown


def test_a_long_output_shows_head_and_tail_with_what_was_cut(tmp_path: Path) -> None:
    store = SessionStore.create(str(tmp_path), tmp_path)
    store.append_message(user("dump it"))
    store.append_message(reply(ToolCall(id="c", name="bash", arguments={}), input_tokens=10))
    huge = "".join(f"line {n}\n" for n in range(400_000))  # ~4.7 MB
    store.append_message(result("c", "FIRST\n" + huge + "LAST", 5))
    store.close()
    assert store.path is not None
    page = export_html(store.path, tmp_path / "out.html").read_text()
    assert len(page) < 4 * TEXT_CAP + 60_000
    assert "FIRST" in page
    assert "LAST" in page
    cut = re.search(r"\[… ([\d,]+) characters \(([\d,]+) lines\) cut here", page)
    assert cut is not None
    assert int(cut.group(1).replace(",", "")) > len(huge) - TEXT_CAP


def test_small_images_are_inlined_and_anything_else_only_named(tmp_path: Path) -> None:
    store = SessionStore.create(str(tmp_path), None)
    pixel = (
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5"
        "ErkJggg=="
    )
    store.append_message(
        UserMessage(
            content=[
                ImageContent(data=pixel, mime_type="image/png"),
                ImageContent(data=pixel, mime_type='image/svg+xml" onload="x'),
                ImageContent(data='"><script>', mime_type="image/png"),
            ]
        )
    )
    page = export_store(store, "p.html", cwd=tmp_path).read_text()
    assert page.count(f'src="data:image/png;base64,{pixel}"') == 1
    assert page.count(", not shown]") == 2
    assert "image (image/svg+xml&quot; onload=&quot;x" in page
    assert page.count("<script") == 1


def test_default_output_is_named_after_the_session_in_the_given_directory(
    tmp_path: Path,
) -> None:
    session = rich_session(tmp_path / "sessions")
    session_id = session.stem.split("_", 1)[1]
    written = export_html(session, cwd=tmp_path)
    assert written == (tmp_path / f"pith-session-{session_id}.html").resolve()
    assert default_export_path("../x y", tmp_path).name == "pith-session-.._x_y.html"
    into_dir = export_html(session, tmp_path)
    assert into_dir == written


def test_an_output_ending_in_a_slash_is_a_folder_made_when_missing(tmp_path: Path) -> None:
    session = rich_session(tmp_path / "sessions")
    session_id = session.stem.split("_", 1)[1]
    written = export_html(session, "exports/", cwd=tmp_path)
    assert written == (tmp_path / "exports" / f"pith-session-{session_id}.html").resolve()
    assert written.read_text().startswith("<!DOCTYPE html>")


def test_an_unsaved_session_exports_from_memory_with_its_leaf(tmp_path: Path) -> None:
    store = SessionStore.create(str(tmp_path), None)
    first = store.append_message(user("kept in memory"))
    store.append_message(reply(TextContent(text="one"), input_tokens=50))
    store.branch(first.id)
    other = store.append_message(reply(TextContent(text="two"), input_tokens=60))
    store.branch(first.id)  # the leaf is not the last entry
    page = export_store(store, "page.html", cwd=tmp_path).read_text()
    assert "(not saved to a file)" in page
    assert "leaf" in entry_block(page, first.id)
    assert "leaf" not in entry_block(page, other.id)


# --- the context chart ------------------------------------------------------------------------


def test_each_request_is_split_into_parts_that_add_up_to_its_reported_input(
    tmp_path: Path,
) -> None:
    timeline = context_timeline(loaded_branch(rich_session(tmp_path)).get_branch())
    assert [r.reported for r in timeline.requests] == [1200, 9000, 1500, 1300]
    for request in timeline.requests:
        assert request.system + request.messages + request.tool_outputs == request.reported
    assert timeline.system_calibrated
    assert timeline.requests[1].tool_outputs > timeline.requests[1].messages


def test_pruned_results_are_counted_from_the_pruners_records(tmp_path: Path) -> None:
    timeline = context_timeline(loaded_branch(rich_session(tmp_path)).get_branch())
    before, after, compacted = timeline.requests[1], timeline.requests[2], timeline.requests[3]
    assert before.pruned == 0  # indexed later, and in the running task
    assert after.pruned_results == 1
    assert after.pruned > MIN_GAIN_TOKENS
    assert compacted.pruned == 0  # the compaction took the result out of the context
    assert timeline.prune_stats == {"batchesMasked": 1, "tokensSaved": 7400}
    [mark] = timeline.compactions
    assert (mark.after_requests, mark.tokens_before) == (3, 9100)


def test_masking_that_frees_less_than_the_minimum_gain_is_not_counted(tmp_path: Path) -> None:
    store = SessionStore.create(str(tmp_path), None)
    store.append_message(user("small", 1))
    store.append_message(reply(ToolCall(id="c", name="bash", arguments={}), input_tokens=500))
    store.append_message(result("c", "x" * 400, 7))
    store.append_message(reply(TextContent(text="ok"), input_tokens=600))
    store.append_message(user("next", 9))
    store.append_custom("prune-index", {"toolCalls": [{"toolCallId": "c", "resultTimestamp": 7}]})
    store.append_message(reply(TextContent(text="ok"), input_tokens=620))
    assert context_timeline(store.get_branch()).requests[-1].pruned == 0


def test_a_summarized_result_is_pruned_even_inside_the_running_task(tmp_path: Path) -> None:
    store = SessionStore.create(str(tmp_path), None)
    store.append_message(user("task", 1))
    store.append_message(reply(ToolCall(id="c", name="read", arguments={}), input_tokens=500))
    store.append_message(result("c", "y" * 4000, 7))
    store.append_custom_message(
        "prune-summary",
        "the file holds y",
        display=False,
        details={"toolCallRefs": [{"shortId": "t1", "toolCallId": "c", "resultTimestamp": 7}]},
    )
    store.append_message(reply(TextContent(text="ok"), input_tokens=600))
    [_, last] = context_timeline(store.get_branch()).requests
    assert last.pruned_results == 1
    assert last.pruned > 0


def test_a_compressed_chain_prunes_its_results_but_not_its_protected_ones(
    tmp_path: Path,
) -> None:
    store = SessionStore.create(str(tmp_path), None)
    store.append_message(user("task one", 1))
    calls = [ToolCall(id=n, name="read", arguments={}) for n in ("a", "b")]
    store.append_message(reply(*calls, input_tokens=500))
    store.append_message(result("a", "a" * 20_000, 7))
    store.append_message(result("b", "b" * 20_000, 8))
    store.append_message(reply(TextContent(text="done"), input_tokens=10_600))
    store.append_message(user("task two", 20))
    chain = {
        "blockId": "b1",
        "droppedToolCallIds": ["a", "b"],
        "droppedOccurrenceKeys": ["a@7", "b@8"],
        "protectedOccurrenceKeys": ["b@8"],
        "body": "read two files " * 40,
    }
    store.append_custom("prune-chain", chain)
    store.append_message(reply(TextContent(text="ok"), input_tokens=5_900))
    [_, before, after] = context_timeline(store.get_branch()).requests
    assert after.pruned_results == 1
    assert after.pruned > 0
    assert after.messages > before.messages  # the chain's body is sent


def test_pi_sessions_use_their_stored_system_prompt_and_mark_both_compactions() -> None:
    path = PI_SESSIONS / "compaction_twice.jsonl"
    timeline = context_timeline(loaded_branch(path).get_branch())
    assert not timeline.system_calibrated
    assert len(timeline.compactions) == 2
    assert all(mark.tokens_before > 0 for mark in timeline.compactions)
    assert all(r.system > 0 for r in timeline.requests)


@pytest.mark.parametrize("name", sorted(p.name for p in PI_SESSIONS.glob("*.jsonl")))
def test_every_pi_written_session_exports(tmp_path: Path, name: str) -> None:
    page = export_html(PI_SESSIONS / name, tmp_path / "out.html").read_text()
    assert '<svg class="chart"' in page
    assert page.count("current leaf</span>") == 1


# --- bad input --------------------------------------------------------------------------------


def test_a_missing_file_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(SessionFileError, match=re.escape(str(tmp_path / "nope.jsonl"))):
        export_html(tmp_path / "nope.jsonl", tmp_path / "out.html")


def test_a_file_that_is_not_a_session_is_an_error_naming_it(tmp_path: Path) -> None:
    other = tmp_path / "notes.jsonl"
    other.write_text('{"hello": "world"}\n')
    with pytest.raises(SessionFileError, match=re.escape("notes.jsonl is not a pith/Pi session")):
        export_html(other, tmp_path / "out.html")


def test_malformed_lines_are_skipped_with_a_warning_and_the_rest_exported(tmp_path: Path) -> None:
    session = rich_session(tmp_path)
    lines = session.read_text().splitlines()
    lines.insert(5, "{not json")
    session.write_text("\n".join(lines) + "\n")
    exported = export_session_file(session, tmp_path / "out.html")
    assert exported.warnings == [f"{session}:6: not a JSON object; line skipped"]
    page = exported.path.read_text()
    assert "line skipped" in page
    assert "fresh start" in page


def test_an_unwritable_output_is_an_error_naming_it(tmp_path: Path) -> None:
    session = rich_session(tmp_path)
    with pytest.raises(PithError, match=r"cannot write the export to .*missing/out\.html"):
        export_html(session, tmp_path / "missing" / "out.html")


# --- through the command line -----------------------------------------------------------------


def run_pith(
    cwd: Path, env: dict[str, str], *args: str, model: bool = True
) -> subprocess.CompletedProcess[str]:
    prefix = ["-p", "--model", "fake/m"] if model else []
    return subprocess.run(
        [sys.executable, "-m", "pith", *prefix, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def pruned_session(tmp_path: Path) -> tuple[Path, dict[str, str], Path]:
    """A real session from `pith -p`: a big bash output, then a second task in which the
    pruner (mask strategy) sends it as a stub. Returns (work dir, env, session file)."""
    work = tmp_path / "work"
    work.mkdir()
    agent = tmp_path / "agent"
    env = subprocess_env(agent)
    script = {
        "turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "seq 1 3000"}}]},
            {"text": "Counted. " + HOSTILE},
            {"text": "second answer"},
        ]
    }
    with FakeServer(script) as server:
        configure_agent_dir(agent, server)
        settings = {"prune": {"strategy": "mask", "minGainTokens": 100}}
        (agent / "settings.json").write_text(json.dumps(settings))
        first = run_pith(work, env, "count to 3000")
        second = run_pith(work, env, "-c", "and then?")
        assert server.problems() == []
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    [session] = sorted((agent / "sessions").glob("*/*.jsonl"))
    return work, env, session


def test_pith_export_writes_the_page_of_a_session_given_by_id(
    pruned_session: tuple[Path, dict[str, str], Path],
) -> None:
    work, env, session = pruned_session
    session_id = session.stem.split("_", 1)[1]
    done = run_pith(work, env, "export", session_id[:13], "-o", "page.html", model=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str((work / "page.html").resolve())
    page = (work / "page.html").read_text()
    assert "Counted. &lt;script&gt;" in page
    assert '<rect class="s-pruned"' in page
    [first, second, third] = context_timeline(loaded_branch(session).get_branch()).requests
    assert third.pruned_results == 1
    assert third.reported < second.reported  # the pruner really took it out
    assert first.pruned == second.pruned == 0


def test_pith_export_without_a_session_takes_the_latest_here(
    pruned_session: tuple[Path, dict[str, str], Path],
) -> None:
    work, env, session = pruned_session
    done = run_pith(work, env, "export", model=False)
    assert done.returncode == 0, done.stderr
    session_id = session.stem.split("_", 1)[1]
    assert Path(done.stdout.strip()) == (work / f"pith-session-{session_id}.html").resolve()


def test_slash_export_writes_the_running_session(
    pruned_session: tuple[Path, dict[str, str], Path],
) -> None:
    work, env, _ = pruned_session
    (work / "out").mkdir()
    done = run_pith(work, env, "-c", "/export out/here.html")
    assert done.returncode == 0, done.stderr
    assert f"Exported to {(work / 'out' / 'here.html').resolve()}" in done.stderr
    assert "second answer" in (work / "out" / "here.html").read_text()


def test_slash_export_into_a_missing_folder_says_so(
    pruned_session: tuple[Path, dict[str, str], Path],
) -> None:
    work, env, _ = pruned_session
    done = run_pith(work, env, "-c", "/export nowhere/here.html")
    target = work / "nowhere" / "here.html"
    assert done.stderr == (
        f"pith: error: cannot write the export to {target}: No such file or directory; "
        "give another output file\n"
    )


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        ("missing", "cannot read session {dir}/gone.jsonl: No such file or directory; give a "),
        ("not-session", "{dir}/notes.jsonl is not a pith/Pi session"),
        ("unknown-id", "export zzz: no session file or id matches; see `pith sessions`"),
    ],
)
def test_bad_input_is_one_line_without_a_traceback(
    tmp_path: Path, setup: str, expected: str
) -> None:
    env = subprocess_env(tmp_path / "agent")
    argument = {"missing": "gone.jsonl", "not-session": "notes.jsonl", "unknown-id": "zzz"}[setup]
    (tmp_path / "notes.jsonl").write_text("just some text\n")
    done = run_pith(tmp_path, env, "export", argument, model=False)
    assert done.returncode == 2
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("pith: ")
    assert expected.format(dir=tmp_path) in line


def test_pith_export_warns_about_malformed_lines_and_exports_the_rest(
    pruned_session: tuple[Path, dict[str, str], Path],
) -> None:
    work, env, session = pruned_session
    lines = session.read_text().splitlines()
    lines.insert(3, "garbage")
    session.write_text("\n".join(lines) + "\n")
    done = run_pith(work, env, "export", str(session), "-o", "p.html", model=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == f"pith: warning: {session}:4: not a JSON object; line skipped\n"
    assert "second answer" in (work / "p.html").read_text()
