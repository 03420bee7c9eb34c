"""Huge session files: listing and opening stay small in memory; a repair moves only bad bytes.

Each command runs in a real child process started by a small wrapper whose only child it is, so
the wrapper's `RUSAGE_CHILDREN` peak is that command's own peak resident memory. The files are a
few hundred MB, written quickly by repeating one line; the bounds are a fraction of the file
size, far above what pith needs to start and far below any whole-file read.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from pith.testing import FakeServer

MB = 1 << 20
SIZE = 256 * MB
LIMIT = SIZE // 4  # pith itself starts in about 40 MB; reading the file whole takes 2-3x SIZE

MEASURE = """
import json, resource, subprocess, sys
run = subprocess.run(sys.argv[1:], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(json.dumps({"rc": run.returncode, "out": run.stdout, "err": run.stderr, "peak": peak}))
"""


def _measured(args: list[str], cwd: Path, agent: Path) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PITH_AGENT_DIR"] = str(agent)
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, sys.executable, "-m", "pith", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def _line(value: dict[str, object], pad: int = 0) -> bytes:
    return json.dumps(value).encode() + b" " * pad + b"\n"


def _header(cwd: Path) -> bytes:
    return _line(
        {
            "type": "session",
            "version": 3,
            "id": "0195f000-0000-7000-8000-000000000001",
            "timestamp": "2026-01-01T10:00:00.000Z",
            "cwd": str(cwd),
        }
    )


def _message(entry_id: str, parent: str | None, role: str, text: str, millis: int) -> bytes:
    message: dict[str, object] = {"role": role, "content": [{"type": "text", "text": text}]}
    if role == "assistant":
        message.update(provider="fake", model="fake-model", stopReason="stop")
    message["timestamp"] = millis
    return _line(
        {
            "type": "message",
            "id": entry_id,
            "parentId": parent,
            "timestamp": "2026-01-01T10:00:01.000Z",
            "message": message,
        }
    )


def _repeat(handle: object, line: bytes, total: int) -> int:
    """Write `line` until about `total` bytes are written; the number of lines written."""
    count = max(1, total // len(line))
    batch = 1024
    write = handle.write  # type: ignore[attr-defined]
    for _ in range(count // batch):
        write(line * batch)
    write(line * (count % batch))
    return count


def _setup(tmp_path: Path, server: FakeServer | None = None) -> tuple[Path, Path]:
    work = tmp_path / "work"
    work.mkdir()
    agent = tmp_path / "agent"
    agent.mkdir()
    if server is not None:
        models = {
            "providers": {
                "fake": {
                    "baseUrl": server.base_url,
                    "api": "openai-completions",
                    "apiKey": "fake-key",
                    "models": [{"id": "fake-model", "contextWindow": 128000, "maxTokens": 4096}],
                }
            }
        }
        (agent / "models.json").write_text(json.dumps(models))
    return work, agent


def _digest(path: Path, start: int = 0, end: int | None = None) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        handle.seek(start)
        remaining = (end if end is not None else os.path.getsize(path)) - start
        while remaining > 0:
            block = handle.read(min(8 * MB, remaining))
            if not block:
                break
            digest.update(block)
            remaining -= len(block)
    return digest.hexdigest()


def test_listing_a_huge_session_reads_it_in_small_pieces(tmp_path: Path) -> None:
    work, agent = _setup(tmp_path)
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    path = sessions / "big.jsonl"
    last = 1_767_400_000_000
    with open(path, "wb") as handle:
        handle.write(_header(work))
        handle.write(
            _line(
                {
                    "type": "session_info",
                    "id": "00000001",
                    "parentId": None,
                    "timestamp": "2026-01-01T10:00:00.500Z",
                    "name": "the big one",
                }
            )
        )
        handle.write(_message("00000002", "00000001", "user", "first question", 1_767_261_601_000))
        filler = _message("00000003", "00000002", "assistant", "words " * 700, 1_767_261_602_000)
        count = _repeat(handle, filler, SIZE)
        handle.write(_message("00000004", "00000003", "user", "last question", last))
        handle.write(
            _line(
                {
                    "type": "label",
                    "id": "00000005",
                    "parentId": "00000004",
                    "timestamp": "2026-06-01T00:00:00.000Z",
                    "targetId": "00000004",
                    "label": "later",
                }
            )
        )
    assert path.stat().st_size > SIZE - MB
    result = _measured(["sessions", "--session-dir", str(sessions), "--json"], work, agent)
    assert result["rc"] == 0, result["err"]
    assert result["peak"] < LIMIT, f"peak RSS {result['peak'] // MB} MB"  # type: ignore[operator]
    [listed] = [json.loads(line) for line in str(result["out"]).splitlines()]
    assert listed["name"] == "the big one"
    assert listed["firstMessage"] == "first question"
    assert listed["entries"] == count + 4
    assert listed["modified"] == last / 1000


def test_opening_a_huge_session_streams_it(tmp_path: Path) -> None:
    """Lines padded with JSON whitespace decode to small entries, so the peak measures how the
    file is read, not what is kept of it."""
    with FakeServer({"turns": [{"text": "still here"}]}) as server:
        work, agent = _setup(tmp_path, server)
        path = tmp_path / "big.jsonl"
        with open(path, "wb") as handle:
            handle.write(_header(work))
            custom = {
                "type": "custom",
                "customType": "filler",
                "data": None,
                "id": "0000000a",
                "parentId": None,
                "timestamp": "2026-01-01T10:00:01.000Z",
            }
            count = _repeat(handle, _line(custom, pad=64 * 1024), SIZE)
        size = path.stat().st_size
        result = _measured(
            ["--model", "fake/fake-model", "-p", "--session", str(path), "hello"], work, agent
        )
    assert result["rc"] == 0, result["err"]
    assert result["out"] == "still here\n"
    assert result["peak"] < LIMIT, f"peak RSS {result['peak'] // MB} MB"  # type: ignore[operator]
    with open(path, "rb") as handle:
        handle.seek(size)
        added = [json.loads(line) for line in handle.read().splitlines()]
    assert [entry["message"]["role"] for entry in added if entry["type"] == "message"] == [
        "user",
        "assistant",
    ]
    assert count > 1000


def test_a_huge_cut_off_last_line_is_moved_aside_in_small_pieces(tmp_path: Path) -> None:
    """The reproduction: a crash left a huge unfinished last line. Opening moves exactly those
    bytes to `<file>.corrupt` without holding them, and keeps every complete line in place."""
    with FakeServer({"turns": [{"text": "repaired"}]}) as server:
        work, agent = _setup(tmp_path, server)
        path = tmp_path / "torn.jsonl"
        with open(path, "wb") as handle:
            handle.write(_header(work))
            handle.write(_message("00000001", None, "user", "before the crash", 1_767_261_601_000))
            handle.write(
                _message("00000002", "00000001", "assistant", "an answer", 1_767_261_602_000)
            )
            good = handle.tell()
            handle.write(b'{"type":"message","id":"00000003","parentId":"00000002","message":')
            handle.write(b'{"role":"user","content":"')
            _repeat(handle, b"x" * 4096, SIZE)
        size = path.stat().st_size
        good_digest = _digest(path, 0, good)
        tail_digest = _digest(path, good, size)
        result = _measured(
            ["--model", "fake/fake-model", "-p", "--session", str(path), "go on"], work, agent
        )
    assert result["rc"] == 0, result["err"]
    assert result["out"] == "repaired\n"
    assert "moved to torn.jsonl.corrupt" in str(result["err"])
    assert result["peak"] < LIMIT, f"peak RSS {result['peak'] // MB} MB"  # type: ignore[operator]
    corrupt = path.with_name("torn.jsonl.corrupt")
    assert corrupt.stat().st_size == size - good + 1  # the cut-off bytes and a newline
    assert _digest(corrupt, 0, size - good) == tail_digest
    assert _digest(path, 0, good) == good_digest  # the complete lines, untouched
    with open(path, "rb") as handle:
        handle.seek(good)
        added = [json.loads(line) for line in handle.read().splitlines()]
    assert [entry["message"]["role"] for entry in added if entry["type"] == "message"] == [
        "user",
        "assistant",
    ]
    assert added[0]["parentId"] == "00000002"
