"""trust.json: reading, nearest-ancestor lookup, the file format, corrupt files and concurrent
writers (real processes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pith.errors import ConfigError
from pith.resources._trust_store import TrustEntry, TrustStore


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return Path(os.path.realpath(tmp_path))


def test_missing_file_has_no_decisions(root: Path) -> None:
    store = TrustStore(root / "agent")
    assert store.read() == {}
    assert store.get(root) is None


def test_nearest_saved_ancestor_decides(root: Path) -> None:
    (root / "a" / "b" / "c").mkdir(parents=True)
    store = TrustStore(root / "agent")
    store.save(root / "a", True)
    store.save(root / "a" / "b", False)
    assert store.entry(root / "a" / "b" / "c") == TrustEntry(str(root / "a" / "b"), False)
    assert store.get(root / "a") is True
    assert store.get(root) is None


def test_decisions_are_saved_under_the_real_path(root: Path) -> None:
    (root / "real").mkdir()
    (root / "link").symlink_to("real")
    store = TrustStore(root / "agent")
    store.save(root / "link", True)
    assert store.read() == {str(root / "real"): True}
    assert store.get(root / "link") is True


def test_none_removes_a_decision(root: Path) -> None:
    store = TrustStore(root / "agent")
    store.save(root / "x", True)
    store.save(root / "y", False)
    store.save(root / "x", None)
    assert store.read() == {str(root / "y"): False}


def test_file_is_sorted_two_space_json_with_a_final_newline(root: Path) -> None:
    store = TrustStore(root / "agent")
    store.save(root / "b", False)
    store.save(root / "a", True)
    assert store.path.read_text(encoding="utf-8") == (
        f'{{\n  "{root}/a": true,\n  "{root}/b": false\n}}\n'
    )
    assert sorted(p.name for p in store.path.parent.iterdir()) == ["trust.json", "trust.json.lock"]


def test_null_entries_are_kept_and_ignored_by_lookup(root: Path) -> None:
    store = TrustStore(root / "agent")
    store.path.parent.mkdir()
    store.path.write_text(json.dumps({str(root / "p"): None, str(root): True}), encoding="utf-8")
    assert store.get(root / "p") is True
    store.save(root / "q", False)
    assert store.read() == {str(root): True, str(root / "p"): None, str(root / "q"): False}


def test_unnormalised_keys_still_match_and_are_replaced(root: Path) -> None:
    store = TrustStore(root / "agent")
    store.path.parent.mkdir()
    store.path.write_text(json.dumps({f"{root}/p/": False}), encoding="utf-8")
    assert store.get(root / "p") is False
    store.save(root / "p", True)
    assert store.read() == {str(root / "p"): True}


def test_bom_is_accepted(root: Path) -> None:
    store = TrustStore(root / "agent")
    store.path.parent.mkdir()
    store.path.write_bytes(b"\xef\xbb\xbf" + json.dumps({str(root): True}).encode())
    assert store.get(root) is True


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"/a": tru', "not valid JSON"),
        ("", "not valid JSON"),
        ('["/a"]', "expected a JSON object"),
        ('{"/a": "yes"}', 'the value for "/a" must be true, false or null'),
        (b'{"/\xff": true}', "not valid UTF-8"),
    ],
)
def test_corrupt_file_is_a_one_line_error_and_is_never_overwritten(
    root: Path, text: str | bytes, problem: str
) -> None:
    store = TrustStore(root / "agent")
    store.path.parent.mkdir()
    raw = text if isinstance(text, bytes) else text.encode()
    store.path.write_bytes(raw)
    for action in (lambda: store.get(root), lambda: store.save(root, True)):
        with pytest.raises(ConfigError) as raised:
            action()
        message = str(raised.value)
        assert message.startswith(f"{store.path}:")
        assert problem in message
        assert "\n" not in message
        assert raised.value.exit_code == 2
    assert store.path.read_bytes() == raw


_WRITER = textwrap.dedent(
    """
    import os, sys, time
    from pith.resources._trust_store import TrustStore

    agent, base, name, count, go = sys.argv[1:]
    while not os.path.exists(go):
        time.sleep(0.001)
    store = TrustStore(agent)
    for i in range(int(count)):
        store.save(os.path.join(base, f"{name}-{i}"), i % 2 == 0)
    """
)


def test_concurrent_writers_keep_every_entry(root: Path) -> None:
    writers, count = 8, 25
    go = root / "go"
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                _WRITER,
                str(root / "agent"),
                str(root),
                f"w{n}",
                str(count),
                str(go),
            ]
        )
        for n in range(writers)
    ]
    go.touch()
    assert [p.wait(timeout=60) for p in processes] == [0] * writers
    saved = TrustStore(root / "agent").read()
    expected = {str(root / f"w{n}-{i}"): i % 2 == 0 for n in range(writers) for i in range(count)}
    assert saved == expected
    assert not [p for p in (root / "agent").iterdir() if p.name.endswith(".tmp")]
