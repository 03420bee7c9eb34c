"""The session file under stress: killed writers, competing processes, full disks, damaged files.

Everything is real: the writer is a child process killed with SIGKILL, the second pith is
another process, the disk is a 64 KiB tmpfs (when this process may mount one) or a file size
limit set with `RLIMIT_FSIZE` in the child, and damaged files are real session files cut short.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pith.session import SessionFileError, SessionLockedError, SessionStore

# The child: one script, several roles (argv[1]); it prints with single os.write calls so
# that a line it printed is complete in the pipe even if it is killed right after.
CHILD = r'''
import hashlib, json, os, random, resource, signal, sys, time
from pathlib import Path

from pith.ai import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from pith.session import SessionLockedError, SessionStore, SessionWriteError


def say(*parts):
    os.write(1, (" ".join(str(part) for part in parts) + "\n").encode())


def text(n, size):
    unit = f"entry {n} \u00e9 \u2713 "
    return (unit * (size // len(unit) + 1))[:size]


def message(n):
    """Entry n: user, assistant calling a tool, tool result; every 7th one 50-200 KB."""
    rng = random.Random(n)
    body = text(n, rng.randint(50_000, 200_000) if n % 7 == 3 else rng.randint(20, 3_000))
    if n % 3 == 0:
        return UserMessage(content=[TextContent(text=body)])
    if n % 3 == 1:
        call = ToolCall(id=f"call-{n}", name="bash", arguments={"command": body})
        return AssistantMessage(
            content=[TextContent(text="running it"), call],
            provider="fake",
            model="fake-1",
            stop_reason="toolUse",
        )
    return ToolResultMessage(
        tool_call_id=f"call-{n - 1}", tool_name="bash", content=[TextContent(text=body)]
    )


def crash(path, total):
    store = SessionStore.open(Path(path))
    say("ready", len(store.entries))
    while len(store.entries) < int(total):
        say(store.append_message(message(len(store.entries))).id)
    store.close()
    say("done")


def hold(path):
    store = SessionStore.open(Path(path))
    say("locked", os.getpid())
    sys.stdin.readline()
    store.close()
    say("closed")


def churn(size, *paths):
    """In each session in turn: announce, then append one big entry."""
    body = text(0, int(size))
    for path in paths:
        store = SessionStore.open(Path(path))
        say("writing", path)
        say("wrote", store.append_message(UserMessage(content=[TextContent(text=body)])).id)
        store.close()


def contend(path, seconds):
    """Open and close the session in a loop; count the times another process was inside too."""
    inside = path + ".inside"
    acquired = overlaps = 0
    deadline = time.monotonic() + float(seconds)
    while time.monotonic() < deadline:
        try:
            store = SessionStore.open(Path(path))
        except SessionLockedError:
            continue
        acquired += 1
        try:
            os.close(os.open(inside, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            overlaps += 1
        else:
            os.unlink(inside)
        store.close()
    say(json.dumps({"acquired": acquired, "overlaps": overlaps}))


def slow_lock(path):
    """Open the session with a pause (until a line on stdin) between opening the lock file
    and locking it: the moment another process may release the lock."""
    import fcntl

    real_flock = fcntl.flock
    paused = []

    def flock(descriptor, operation):
        if not paused:
            paused.append(True)
            say("lock file opened")
            sys.stdin.readline()
        return real_flock(descriptor, operation)

    fcntl.flock = flock
    try:
        store = SessionStore.open(Path(path))
    except SessionLockedError:
        say("refused")
        return
    say("locked", os.getpid())
    sys.stdin.readline()
    store.close()


def limit_file_size(size):
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # get EFBIG instead of dying
    _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))


def digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest() if Path(path).exists() else None


BIG = UserMessage(content=[TextContent(text="x" * 300_000)])
SMALL = UserMessage(content=[TextContent(text="after the failure")])


def write_fail(path, disk):
    store = SessionStore.open(Path(path))
    result = {"entries_before": [e.id for e in store.entries], "leaf_before": store.leaf_id}
    if disk == "rlimit":
        limit_file_size(os.path.getsize(path) + 16_384)  # part of the entry fits
    try:
        store.append_message(BIG)
    except SessionWriteError as error:
        result["error"] = str(error)
    result["entries_after"] = [e.id for e in store.entries]
    result["by_id_after"] = sorted(store.by_id)
    result["leaf_after"] = store.leaf_id
    result["digest_after_failure"] = digest(path)
    entry = store.append_message(SMALL)
    result["recovered"] = [entry.id, entry.parent_id]
    store.close()
    say(json.dumps(result))


def write_fail_new(directory, disk):
    if disk == "rlimit":
        limit_file_size(4_096)
    store = SessionStore.create("/project", Path(directory))
    result = {"path": str(store.path)}
    try:
        store.append_message(BIG)
    except SessionWriteError as error:
        result["error"] = str(error)
    result["entries_after"] = len(store.entries)
    result["leaf_after"] = store.leaf_id
    result["persisted_after"] = store.persisted
    result["files_after"] = sorted(p.name for p in Path(directory).glob("*.jsonl"))
    entry = store.append_message(SMALL)
    result["recovered"] = [entry.id, entry.parent_id]
    store.close()
    say(json.dumps(result))


roles = {
    "crash": crash,
    "hold": hold,
    "churn": churn,
    "contend": contend,
    "slow-lock": slow_lock,
    "write-fail": write_fail,
    "write-fail-new": write_fail_new,
}
roles[sys.argv[1]](*sys.argv[2:])
'''

MIN_KILLS = 50
SEED = 20261129


# --- helpers ----------------------------------------------------------------------------------


def _user(text: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)])


def _new_session(directory: Path, messages: int = 1) -> Path:
    """A session file with `messages` alternating user/assistant messages; closed."""
    store = SessionStore.create("/project", directory)
    for n in range(messages):
        if n % 2:
            store.append_message(
                AssistantMessage(content=[TextContent(text=f"answer {n}")], provider="fake")
            )
        else:
            store.append_message(_user(f"question {n} é"))
    store.close()
    assert store.path is not None
    assert store.path.exists()
    return store.path


def _sibling(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Child:
    """A child process running one role of `CHILD`; its lines are read with a deadline so a
    stuck child fails the test instead of hanging it."""

    def __init__(self, directory: Path, role: str, *args: object, stdin: bool = False) -> None:
        script = directory / "session_child.py"
        if not script.exists():
            script.write_text(CHILD)
        self.process = subprocess.Popen(
            [sys.executable, str(script), role, *map(str, args)],
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self.process.stdout is not None
        self._fd = self.process.stdout.fileno()
        self._buffer = b""
        self._eof = False
        self._stderr: str | None = None
        self.rest: list[str] = []

    @property
    def pid(self) -> int:
        return self.process.pid

    def line(self, timeout: float = 30.0) -> str | None:
        """The next complete line; None at end of output."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            if self._eof:
                return None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.process.kill()
                raise AssertionError(f"child printed nothing for {timeout} s{self.stderr()}")
            if select.select([self._fd], [], [], remaining)[0]:
                chunk = os.read(self._fd, 65536)
                self._eof = not chunk
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode()

    def has_line(self) -> bool:
        """True when a complete line (or the end of output) can be read without waiting."""
        waiting = b"\n" not in self._buffer and not self._eof
        if waiting and select.select([self._fd], [], [], 0)[0]:
            chunk = os.read(self._fd, 65536)
            self._eof = not chunk
            self._buffer += chunk
        return b"\n" in self._buffer or self._eof

    def send(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text.encode())
        self.process.stdin.flush()

    def finish(self) -> int:
        """Wait for the child to end; keep its remaining lines (`rest`) and stderr."""
        code = self.process.wait(timeout=60)
        self.rest = []
        while (line := self.line()) is not None:
            self.rest.append(line)
        self.stderr()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        return code

    def stderr(self) -> str:
        """The child's stderr once it has ended (for assertion messages)."""
        if self._stderr is None and self.process.poll() is not None:
            assert self.process.stderr is not None
            self._stderr = self.process.stderr.read().decode(errors="replace")
        return f"\nchild stderr:\n{self._stderr}" if self._stderr else ""


def _is_json_object(line: bytes) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def _check_consistent(store: SessionStore) -> None:
    """Every parent resolves, ids are unique, and the writer's entries form one chain that
    the projection follows from the leaf back to the first entry."""
    ids = [entry.id for entry in store.entries]
    assert len(ids) == len(set(ids)), "duplicate entry ids"
    for entry in store.entries:
        assert entry.parent_id is None or entry.parent_id in store.by_id, (
            f"entry {entry.id} points to missing parent {entry.parent_id}"
        )
    assert [entry.id for entry in store.get_branch()] == ids
    assert len(store.projection().messages) == len(ids)


# --- crash safety -----------------------------------------------------------------------------


def _check_after_run(
    path: Path, corrupt: Path, raw: bytes, corrupt_before: bytes, reported: list[str]
) -> bool:
    """Check the file after one writer run ended (killed or not); True when the kill tore a
    line (cut it before its newline)."""
    with SessionStore.open(path) as store:
        ids = [entry.id for entry in store.entries]
        position = {entry_id: index for index, entry_id in enumerate(ids)}
        missing = [entry_id for entry_id in reported if entry_id not in position]
        assert not missing, f"reported entries lost: {missing[:5]}"
        assert [position[i] for i in reported] == sorted(position[i] for i in reported)
        _check_consistent(store)
        tail = raw[raw.rfind(b"\n") + 1 :]
        if tail and _is_json_object(tail):  # cut exactly before its newline: kept
            assert path.read_bytes() == raw + b"\n"
            assert (corrupt.read_bytes() if corrupt.exists() else b"") == corrupt_before
            return False
        if tail:
            assert path.read_bytes() == raw[: len(raw) - len(tail)]
            assert corrupt.read_bytes() == corrupt_before + tail + b"\n"
            assert any(".corrupt" in warning for warning in store.warnings), store.warnings
            return True
        assert path.read_bytes() == raw
        assert store.warnings == []
        return False


def test_killed_writer_never_loses_a_reported_entry(tmp_path: Path) -> None:
    # The test decides how many kills there are: in each of MIN_KILLS runs the writer has no
    # end of its own (its target is out of reach), so only the kill stops it, however fast
    # or slow the machine; a last run then finishes the file.
    path = _new_session(tmp_path / "sessions")
    corrupt = _sibling(path, ".corrupt")
    rng = random.Random(SEED)
    reported: list[str] = []
    torn = 0
    for kill in range(MIN_KILLS):
        child = Child(tmp_path, "crash", path, 10**9)
        ready = child.line()
        assert (ready or "").startswith("ready"), child.stderr()
        # Kill after a random number of reported entries, plus a random pause of up to a few
        # entries' worth, so the kill lands anywhere in the loop: encoding, write(), print.
        for _ in range(rng.randint(0, 20)):
            line = child.line()
            assert line is not None, f"the writer stopped by itself{child.stderr()}"
            reported.append(line)
        pause = rng.uniform(0, 0.0005)
        started = time.perf_counter()
        while time.perf_counter() - started < pause:
            pass
        child.process.send_signal(signal.SIGKILL)
        code = child.finish()
        reported += [line for line in child.rest if line != "done"]
        assert code == -signal.SIGKILL, f"child exited with {code}{child.stderr()}"
        raw = path.read_bytes()
        corrupt_before = corrupt.read_bytes() if corrupt.exists() else b""
        try:
            torn += _check_after_run(path, corrupt, raw, corrupt_before, reported)
        except AssertionError as error:
            raise AssertionError(f"after kill {kill + 1}: {error}") from None
    with SessionStore.open(path) as store:
        total = len(store.entries) + 10
    child = Child(tmp_path, "crash", path, total)
    assert (child.line() or "").startswith("ready"), child.stderr()
    assert child.finish() == 0, child.stderr()
    assert child.rest[-1:] == ["done"]
    reported += child.rest[:-1]
    raw = path.read_bytes()
    _check_after_run(
        path, corrupt, raw, corrupt.read_bytes() if corrupt.exists() else b"", reported
    )
    with SessionStore.open(path) as store:
        assert len(store.entries) == total
        assert store.warnings == []
    print(f"{MIN_KILLS} kills, {torn} torn tails, {len(reported)} entries reported")


# --- the lock ---------------------------------------------------------------------------------


def test_second_process_gets_locked_error_naming_the_holder_pid(tmp_path: Path) -> None:
    path = _new_session(tmp_path / "sessions", messages=3)
    holder = Child(tmp_path, "hold", path, stdin=True)
    assert holder.line() == f"locked {holder.pid}", holder.stderr()
    before = path.read_bytes()
    with pytest.raises(SessionLockedError) as caught:
        SessionStore.open(path)
    assert f"pid {holder.pid}" in str(caught.value)
    assert path.name in str(caught.value)
    assert path.read_bytes() == before
    holder.send("close\n")
    assert holder.line() == "closed", holder.stderr()
    assert holder.finish() == 0
    with SessionStore.open(path) as store:
        assert len(store.entries) == 3
        assert _sibling(path, ".lock").read_text().strip() == str(os.getpid())


def test_lock_of_a_killed_process_does_not_block_the_next_open(tmp_path: Path) -> None:
    path = _new_session(tmp_path / "sessions", messages=2)
    holder = Child(tmp_path, "hold", path, stdin=True)
    assert holder.line() == f"locked {holder.pid}", holder.stderr()
    with pytest.raises(SessionLockedError):
        SessionStore.open(path)
    holder.process.send_signal(signal.SIGKILL)
    assert holder.finish() == -signal.SIGKILL
    lock = _sibling(path, ".lock")
    assert lock.read_text().strip() == str(holder.pid)  # the stale pid is still written there
    with SessionStore.open(path) as store:
        assert len(store.entries) == 2
        assert lock.read_text().strip() == str(os.getpid())
        store.append_message(_user("still writable"))
    with SessionStore.open(path) as store:
        assert len(store.entries) == 3


def test_lock_admits_one_process_at_a_time(tmp_path: Path) -> None:
    path = _new_session(tmp_path / "sessions")
    children = [Child(tmp_path, "contend", path, 2) for _ in range(3)]
    results = []
    for child in children:
        line = child.line()
        assert line is not None, child.stderr()
        assert child.finish() == 0
        results.append(json.loads(line))
    assert all(result["acquired"] > 0 for result in results), results
    assert sum(result["overlaps"] for result in results) == 0, results


def test_lock_released_while_another_process_acquires_it_stays_exclusive(tmp_path: Path) -> None:
    # The child stops between opening what it locks and flock(), the holder releases, then the
    # child locks. A lock on a file that release() unlinks would now be on a nameless inode,
    # and this process would get a second, separate lock. (The pause hooks `fcntl.flock`.)
    path = _new_session(tmp_path / "sessions")
    first = SessionStore.open(path)
    second = Child(tmp_path, "slow-lock", path, stdin=True)
    try:
        assert second.line() == "lock file opened", second.stderr()
        first.close()
        second.send("go\n")
        assert second.line() == f"locked {second.pid}", second.stderr()
        with pytest.raises(SessionLockedError, match=f"pid {second.pid}"):
            SessionStore.open(path).close()
    finally:
        second.send("close\n")
        second.finish()


V2_SESSION = (
    '{"type":"session","version":2,"id":"old-session","timestamp":"2026-01-01T00:00:00.000Z",'
    '"cwd":"/project"}\n'
    '{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",'
    '"message":{"role":"user","content":"hello","timestamp":1}}\n'
)


def test_lock_still_excludes_after_open_migrated_the_file(tmp_path: Path) -> None:
    # Migrating replaces the file (a new inode); the lock must move with it.
    path = tmp_path / "old.jsonl"
    path.write_text(V2_SESSION)
    holder = Child(tmp_path, "hold", path, stdin=True)
    try:
        assert holder.line() == f"locked {holder.pid}", holder.stderr()
        assert _sibling(path, ".bak").read_text() == V2_SESSION  # it was migrated
        with pytest.raises(SessionLockedError, match=f"pid {holder.pid}"):
            SessionStore.open(path).close()
    finally:
        holder.send("close\n")
        holder.finish()


def test_opening_a_locked_session_never_changes_it(tmp_path: Path) -> None:
    # One big write per session, opened again and again while it is in progress: an open that
    # read the file before checking the lock would take the half-written entry for a torn tail
    # and cut it off, losing an entry the writer was told was recorded.
    paths = [_new_session(tmp_path / f"sessions-{n}") for n in range(12)]
    before = {path: [e.id for e in SessionStore.open(path, lock=False).entries] for path in paths}
    writer = Child(tmp_path, "churn", 4_000_000, *paths)
    written: dict[Path, str] = {}
    refused = 0
    for path in paths:
        assert writer.line() == f"writing {path}", writer.stderr()
        while not writer.has_line():
            try:
                SessionStore.open(path).close()
            except SessionLockedError:
                refused += 1
        wrote = writer.line() or ""
        assert wrote.startswith("wrote "), wrote + writer.stderr()
        written[path] = wrote.removeprefix("wrote ")
    assert writer.finish() == 0, writer.stderr()
    assert refused > 0
    damaged = {}
    for path in paths:
        with SessionStore.open(path) as store:
            ids = [entry.id for entry in store.entries]
            if ids != [*before[path], written[path]] or _sibling(path, ".corrupt").exists():
                damaged[path.parent.name] = f"holds {ids}, expected the written {written[path]}"
    assert damaged == {}


# --- a failing disk ---------------------------------------------------------------------------


def _mount_tmpfs(directory: Path) -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(directory)],
        capture_output=True,
        check=False,
    )
    return mounted.returncode == 0


@pytest.fixture(params=["tmpfs", "rlimit"])
def small_disk(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A directory where big writes fail: a 64 KiB tmpfs (ENOSPC) when this process may mount
    one, otherwise a plain directory whose writer child sets RLIMIT_FSIZE (EFBIG)."""
    directory = tmp_path / "disk"
    directory.mkdir()
    if request.param == "tmpfs" and _mount_tmpfs(directory):
        try:
            yield directory, "tmpfs"
        finally:
            subprocess.run(["umount", str(directory)], check=True)
    else:
        yield directory, "rlimit"


def _expected_reason(disk: str) -> str:
    return os.strerror(errno.ENOSPC if disk == "tmpfs" else errno.EFBIG)


def test_failed_write_keeps_memory_and_file_as_they_were(
    tmp_path: Path, small_disk: tuple[Path, str]
) -> None:
    directory, disk = small_disk
    path = _new_session(directory, messages=3)
    digest_before = _digest(path)
    child = Child(tmp_path, "write-fail", path, disk)
    line = child.line()
    assert line is not None, child.stderr()
    assert child.finish() == 0
    result = json.loads(line)
    assert "error" in result, "the big write did not fail"
    assert str(path) in result["error"]
    assert _expected_reason(disk) in result["error"]
    assert "not recorded" in result["error"]
    assert result["entries_after"] == result["entries_before"]
    assert result["by_id_after"] == sorted(result["entries_before"])
    assert result["leaf_after"] == result["leaf_before"]
    assert result["digest_after_failure"] == digest_before
    recovered_id, recovered_parent = result["recovered"]
    assert recovered_parent == result["leaf_before"]
    with SessionStore.open(path) as store:
        assert [entry.id for entry in store.entries] == [*result["entries_before"], recovered_id]
        assert store.warnings == []
        _check_consistent(store)
    assert not _sibling(path, ".corrupt").exists()


def test_failed_first_write_leaves_no_session_file(
    tmp_path: Path, small_disk: tuple[Path, str]
) -> None:
    directory, disk = small_disk
    child = Child(tmp_path, "write-fail-new", directory, disk)
    line = child.line()
    assert line is not None, child.stderr()
    assert child.finish() == 0
    result = json.loads(line)
    assert "error" in result, "the first write did not fail"
    assert result["path"] in result["error"]
    assert _expected_reason(disk) in result["error"]
    assert result["entries_after"] == 0
    assert result["leaf_after"] is None
    assert result["persisted_after"] is False
    assert result["files_after"] == []
    recovered_id, recovered_parent = result["recovered"]
    assert recovered_parent is None
    with SessionStore.open(Path(result["path"])) as store:
        assert [entry.id for entry in store.entries] == [recovered_id]


# --- damaged files ----------------------------------------------------------------------------


def test_torn_last_line_goes_to_corrupt_and_earlier_entries_load(tmp_path: Path) -> None:
    path = _new_session(tmp_path, messages=4)
    with SessionStore.open(path) as store:
        kept = [entry.id for entry in store.entries]
    intact = path.read_bytes()
    torn = b'{"type":"message","id":"deadbeef","parentId":"' + kept[-1].encode() + b'","mess'
    path.write_bytes(intact + torn)
    with SessionStore.open(path) as store:
        assert [entry.id for entry in store.entries] == kept
        assert len(store.warnings) == 1
        assert "cut off" in store.warnings[0]
        assert f"{path.name}.corrupt" in store.warnings[0]
        assert store.leaf_id == kept[-1]
        store.append_message(_user("after the repair"))
    assert _sibling(path, ".corrupt").read_bytes() == torn + b"\n"
    with SessionStore.open(path) as store:
        assert len(store.entries) == 5
        assert store.warnings == []
        _check_consistent(store)


def test_torn_line_cut_inside_a_utf8_character_is_repaired(tmp_path: Path) -> None:
    path = _new_session(tmp_path, messages=2)
    intact = path.read_bytes()
    with SessionStore.open(path) as store:
        store.append_message(_user("é" * 100))
    full = path.read_bytes()
    cut = full.index("é".encode(), len(intact)) + 1  # between the two bytes of an é
    path.write_bytes(full[:cut])
    with SessionStore.open(path) as store:
        assert len(store.entries) == 2
        assert len(store.warnings) == 1
    assert path.read_bytes() == intact
    assert _sibling(path, ".corrupt").read_bytes() == full[len(intact) : cut] + b"\n"


def test_malformed_line_in_the_middle_is_reported_by_number_and_skipped(tmp_path: Path) -> None:
    path = _new_session(tmp_path, messages=4)
    lines = path.read_bytes().split(b"\n")  # header, 4 entries, ""
    lines.insert(3, b'{"type":"message","id":')
    lines.insert(5, b"[1, 2, 3]")
    path.write_bytes(b"\n".join(lines))
    with SessionStore.open(path) as store:
        assert len(store.entries) == 4
        assert [warning.split(": ", 1)[0] for warning in store.warnings] == [
            f"{path}:4",
            f"{path}:6",
        ]
        assert all("skipped" in warning for warning in store.warnings)
        _check_consistent(store)
    assert not _sibling(path, ".corrupt").exists()


NOT_A_SESSION = b'{"type":"message","id":"a1","parentId":null}\n{"hello": "world"}\nplain text'


def test_non_session_file_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_bytes(NOT_A_SESSION)
    with pytest.raises(SessionFileError, match="not a pith/Pi session") as caught:
        SessionStore.open(path)
    assert str(path) in str(caught.value)
    assert not _sibling(path, ".lock").exists()


def test_refusing_a_non_session_file_leaves_it_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_bytes(NOT_A_SESSION)
    with pytest.raises(SessionFileError):
        SessionStore.open(path)
    assert path.read_bytes() == NOT_A_SESSION
    assert not _sibling(path, ".corrupt").exists()


def test_text_file_is_refused_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "README.md"
    content = "# Notes\n\nnot json at all é\nlast line without newline".encode()
    path.write_bytes(content)
    with pytest.raises(SessionFileError, match="not a pith/Pi session"):
        SessionStore.open(path)
    assert path.read_bytes() == content
    assert not _sibling(path, ".corrupt").exists()


def test_an_empty_file_opened_for_writing_becomes_a_new_session(tmp_path: Path) -> None:
    """A zero-byte file holds nothing to lose: it gets a fresh header at once, as in Pi."""
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    with SessionStore.open(path, cwd="/project") as store:
        assert store.entries == []
        assert store.persisted
        assert store.cwd == "/project"
        header = json.loads(path.read_bytes())
        assert header == {
            "type": "session",
            "version": 3,
            "id": store.id,
            "timestamp": store.header.timestamp,
            "cwd": "/project",
        }
        store.append_message(_user("hello"))
    with SessionStore.open(path) as reopened:
        assert reopened.id == header["id"]
        assert [entry.id for entry in reopened.entries] == [store.entries[0].id]


def test_a_read_only_look_at_an_empty_file_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    with pytest.raises(SessionFileError, match="is empty") as caught:
        SessionStore.open(path, lock=False)
    assert str(path) in str(caught.value)
    assert path.read_bytes() == b""
    assert not _sibling(path, ".lock").exists()


def test_a_file_of_blank_lines_is_not_taken_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"\n  \n")
    with pytest.raises(SessionFileError, match="only blank lines") as caught:
        SessionStore.open(path)
    assert str(path) in str(caught.value)
    assert path.read_bytes() == b"\n  \n"
    assert not _sibling(path, ".lock").exists()


def test_a_repair_moves_only_the_cut_off_line_aside(tmp_path: Path) -> None:
    """One bad (cut-off) line among many: every good line stays, byte for byte, where it was;
    the bad bytes are in `<file>.corrupt`; together they are the whole original file."""
    path = _new_session(tmp_path, messages=40)
    good = path.read_bytes()
    bad = b'{"type":"message","id":"0badbad0","parentId":null,"message":{"role":"us'
    path.write_bytes(good + bad)
    with SessionStore.open(path) as store:
        assert len(store.entries) == 40
    assert path.read_bytes() == good
    assert _sibling(path, ".corrupt").read_bytes() == bad + b"\n"
    assert not _sibling(path, ".bak").exists()


def test_missing_file_is_a_session_file_error(tmp_path: Path) -> None:
    path = tmp_path / "gone.jsonl"
    with pytest.raises(SessionFileError) as caught:
        SessionStore.open(path)
    assert str(path) in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_tool_results_survive_a_reopen(tmp_path: Path) -> None:
    """The message kinds the crash test writes round-trip through the file unchanged."""
    store = SessionStore.create("/project", tmp_path)
    call = ToolCall(id="call-1", name="bash", arguments={"command": "ls é"})
    written: list[AgentMessage] = [
        _user("list files"),
        AssistantMessage(content=[call], provider="fake", model="m", stop_reason="toolUse"),
        ToolResultMessage(
            tool_call_id="call-1", tool_name="bash", content=[TextContent(text="a b")]
        ),
    ]
    for message in written:
        store.append_message(message)
    store.close()
    assert store.path is not None
    with SessionStore.open(store.path) as reopened:
        assert reopened.projection().messages == written


def test_a_read_only_look_at_an_old_file_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    path.write_text(V2_SESSION)
    store = SessionStore.open(path, lock=False)
    assert store.header.version == 3
    assert path.read_text() == V2_SESSION
    assert not _sibling(path, ".bak").exists()
    assert store.warnings == [
        f"{path}: read as session format v3; the file is migrated when it is next opened for "
        "writing"
    ]
