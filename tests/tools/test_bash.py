"""The bash tool against real bash: tails, full-output files, process groups, endings."""

from __future__ import annotations

import asyncio
import os
import re
import stat
import threading
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pith.agent import AbortController, ToolResult
from pith.tools import BashTool, OutputAccumulator
from pith.tools._bash import BACKGROUND_NOTE
from pith.tools._truncate import truncate_tail
from tests.background import stop_loop

from .conftest import RunTool


def _full_output_path(result: ToolResult) -> str:
    match = re.search(r"Full output: (\S+)\]", result.text())
    assert match, result.text()
    return match.group(1)


def test_small_output_is_returned_whole(run_tool: RunTool) -> None:
    result = run_tool("bash", command="printf 'a\\nb\\n'")
    assert result.text() == "a\nb\n"
    assert not result.is_error


def test_stdout_and_stderr_interleave_in_arrival_order(run_tool: RunTool) -> None:
    result = run_tool("bash", command="echo one; echo two 1>&2; echo three")
    assert result.text() == "one\ntwo\nthree\n"


def test_no_output_says_so(run_tool: RunTool) -> None:
    assert run_tool("bash", command="true").text() == "(no output)"


def test_nonzero_exit_is_an_error_with_the_code(run_tool: RunTool) -> None:
    result = run_tool("bash", command="echo oops; exit 3")
    assert result.is_error
    assert result.text() == "oops\n\n\nCommand exited with code 3"


def test_signal_death_reports_128_plus_signal(run_tool: RunTool) -> None:
    result = run_tool("bash", command="kill -TERM $$")
    assert result.is_error
    assert result.text().endswith("Command exited with code 143")


def test_stdin_is_closed_so_readers_do_not_hang(run_tool: RunTool) -> None:
    result = run_tool("bash", command="cat; echo done")
    assert result.text() == "done\n"


def test_long_output_keeps_the_tail_and_saves_everything(run_tool: RunTool) -> None:
    result = run_tool("bash", command="seq 1 5000")
    text = result.text()
    assert text.startswith("3001\n")
    assert "[Showing lines 3001-5000 of 5000. Full output: " in text
    path = _full_output_path(result)
    try:
        assert Path(path).read_text() == "".join(f"{n}\n" for n in range(1, 5001))
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    finally:
        os.unlink(path)


def test_byte_cap_notice_names_the_limit(run_tool: RunTool) -> None:
    result = run_tool("bash", command="yes 0123456789012345678901234567890123456789 | head -n 1500")
    assert "(50.0KB limit). Full output: " in result.text()
    os.unlink(_full_output_path(result))


def test_one_huge_line_shows_its_end(run_tool: RunTool) -> None:
    result = run_tool("bash", command="head -c 200000 /dev/zero | tr '\\0' x; echo END")
    text = result.text()
    assert "[Showing last 50.0KB of line 1 (line is 195.3KB). Full output: " in text
    assert text.split("\n\n[")[0].endswith("xEND")
    os.unlink(_full_output_path(result))


def test_timeout_kills_the_whole_process_group(run_tool: RunTool, tmp_path: Path) -> None:
    marker = tmp_path / "survivor"
    started = time.monotonic()
    result = run_tool(
        "bash", command=f"(sleep 2; touch {marker}) & echo started; sleep 30", timeout=0.5
    )
    assert time.monotonic() - started < 10
    assert result.is_error
    assert result.text() == "started\n\n\nCommand timed out after 0.5 seconds"
    time.sleep(2.5)
    assert not marker.exists(), "a child of the command survived the timeout"


def test_background_writer_after_shell_exit_is_reported_at_timeout(run_tool: RunTool) -> None:
    # The shell exits at once; the writer outlives a timeout that leaves a slow machine ample
    # time to start the shell (the writer stops by itself after about a minute).
    command = "(for i in $(seq 1 3000); do echo tick; sleep 0.02; done) & exit 4"
    result = run_tool("bash", command=command, timeout=5)
    assert result.is_error
    assert "The shell exited with code 4 after" in result.text()
    assert "kept writing output until the timeout." in result.text()


def test_quiet_background_child_does_not_hold_the_result(run_tool: RunTool) -> None:
    started = time.monotonic()
    result = run_tool("bash", command="sleep 20 & echo parent done")
    assert result.text() == f"parent done\n\n\n{BACKGROUND_NOTE}"
    assert time.monotonic() - started < 15


def test_a_background_child_that_ends_soon_is_waited_for(run_tool: RunTool) -> None:
    # it closes the output pipe long before the grace period ends: no note
    result = run_tool("bash", command="echo early; (echo late) &")
    assert result.text() == "early\nlate\n"


def test_with_a_timeout_a_quiet_background_child_does_not_hold_the_result(
    run_tool: RunTool,
) -> None:
    result = run_tool("bash", command="sleep 20 & echo parent done", timeout=60)
    assert result.text() == "parent done\n"


def _open_descriptors() -> set[tuple[str, str]]:
    """Each open descriptor with what it points at, so a reused number still shows."""
    found = set()
    for name in os.listdir("/proc/self/fd"):
        try:
            found.add((name, os.readlink(f"/proc/self/fd/{name}")))
        except OSError:  # the listing's own descriptor, closed by now
            continue
    return found


def test_a_background_writer_does_not_hold_a_call_without_timeout(
    run_tool: RunTool, tmp_path: Path
) -> None:
    pid = tmp_path / "loop.pid"
    command = f"(while true; do echo tick; sleep 0.05; done) & echo $! > {pid}; echo started"
    # A thread or descriptor left by an earlier test may close meanwhile: only what
    # the call itself opened and did not close counts.
    descriptors, threads = _open_descriptors(), set(threading.enumerate())
    try:
        result = run_tool("bash", command=command)
    finally:
        stop_loop(pid)
    assert not result.is_error
    assert result.text().startswith("started\n") or "\nstarted\n" in result.text()
    assert result.text().endswith(f"\n\n{BACKGROUND_NOTE}")
    assert _open_descriptors() - descriptors == set()
    assert set(threading.enumerate()) - threads == set()


def test_a_background_writer_is_left_running(run_tool: RunTool, tmp_path: Path) -> None:
    # It also writes to a file of its own, which keeps growing after the call returned.
    pid, log = tmp_path / "loop.pid", tmp_path / "loop.log"
    command = f"(while true; do echo tick; echo tick >> {log}; sleep 0.05; done) & echo $! > {pid}"
    try:
        result = run_tool("bash", command=command)
        assert result.text().endswith(BACKGROUND_NOTE)
        size = log.stat().st_size
        deadline = time.monotonic() + 30
        while os.path.getsize(log) == size and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(int(pid.read_text()), 0)  # still there
    finally:
        stop_loop(pid)


def test_abort_kills_the_command_and_keeps_what_it_printed(tmp_path: Path) -> None:
    controller = AbortController()
    tool = BashTool(str(tmp_path))

    async def run() -> str:
        task = asyncio.ensure_future(
            tool.execute("c", {"command": "echo before; sleep 30"}, controller.signal, None)
        )
        await asyncio.sleep(0.5)
        controller.abort()
        try:
            await asyncio.wait_for(task, 5)
        except Exception as error:
            return str(error)
        raise AssertionError("an aborted command must fail")

    assert asyncio.run(run()) == "before\n\n\nCommand aborted"


def test_invalid_timeout_is_rejected(run_tool: RunTool) -> None:
    result = run_tool("bash", command="true", timeout=0)
    assert result.is_error
    assert result.text() == "Invalid timeout: must be a finite number of seconds"


def test_live_updates_carry_the_tail(tmp_path: Path) -> None:
    updates: list[ToolResult] = []
    tool = BashTool(str(tmp_path))
    command = "for i in 1 2 3; do echo line$i; sleep 0.15; done"
    asyncio.run(tool.execute("c", {"command": command}, AbortController().signal, updates.append))
    assert updates[0].content == []
    assert any("line1" in update.text() for update in updates[1:])
    assert updates[-1].text() == "line1\nline2\nline3\n"


def test_accumulator_memory_is_bounded_by_the_rolling_tail() -> None:
    accumulator = OutputAccumulator(file_prefix="pith-test")
    chunk = (b"0123456789" * 10 + b"\n") * 1000
    for _ in range(200):  # about 20 MB
        accumulator.append(chunk)
    accumulator.finish()
    snapshot = accumulator.snapshot()
    accumulator.close_file()
    assert len(accumulator._tail) <= 4 * accumulator.max_bytes
    assert snapshot.truncation.total_lines == 200_000
    assert snapshot.full_output_path is not None
    assert os.path.getsize(snapshot.full_output_path) == len(chunk) * 200
    os.unlink(snapshot.full_output_path)


chunks_strategy = st.lists(
    st.sampled_from(
        [
            b"a",
            b"\n",
            b"line\n",
            "é".encode(),
            "😀".encode()[:2],
            "😀".encode()[2:],
            b"\xff",
            b"x" * 700,
        ]
    ),
    max_size=300,
)


@settings(max_examples=150, deadline=None)
@given(chunks_strategy, st.sampled_from([(5, 40), (50, 400), (3, 10_000)]))
def test_accumulator_snapshot_equals_truncating_the_whole_decoded_output(
    chunks: list[bytes], caps: tuple[int, int]
) -> None:
    max_lines, max_bytes = caps
    accumulator = OutputAccumulator(
        max_lines=max_lines, max_bytes=max_bytes, file_prefix="pith-test"
    )
    for chunk in chunks:
        accumulator.append(chunk)
    accumulator.finish()
    snapshot = accumulator.snapshot()
    accumulator.close_file()
    if snapshot.full_output_path:
        assert Path(snapshot.full_output_path).read_bytes() == b"".join(chunks)
        os.unlink(snapshot.full_output_path)
    whole = b"".join(chunks).decode("utf-8", "replace")
    expected = truncate_tail(whole, max_lines=max_lines, max_bytes=max_bytes)
    assert snapshot.truncation.total_lines == expected.total_lines
    assert snapshot.truncation.total_bytes == expected.total_bytes
    assert snapshot.truncation.truncated == expected.truncated
    if expected.total_bytes <= 4 * max_bytes:  # never trimmed: the tail is the whole output
        assert snapshot.content == expected.content
    else:  # trimmed at a line start, as Pi's accumulator does: still the end of the output
        assert whole.endswith(snapshot.content) or whole[:-1].endswith(snapshot.content)


def test_a_wrapper_can_receive_the_output_byte_for_byte(tmp_path: Path) -> None:
    tool = BashTool(str(tmp_path))
    result, output = asyncio.run(
        tool.execute_captured(
            "c1", {"command": "printf 'caf\\351\\n'"}, AbortController().signal, None
        )
    )
    assert result.text() == "caf\ufffd\n"
    assert output.data == b"caf\xe9\n"
    assert output.path is None
    with output.open() as reader:
        assert reader.read() == b"caf\xe9\n"
