"""`<agent dir>/auth.json` as a file: what concurrent saves, links and odd contents do to it.
Real files and real processes; the commands themselves are tested in tests/cli."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from pith.ai import AuthFile, AuthFileError

SAVE = """
import sys
from pathlib import Path
from pith.ai import AuthFile
AuthFile(Path(sys.argv[1])).save_key(sys.argv[2], "key-" + sys.argv[2])
"""


def test_saves_running_at_once_keep_every_entry(tmp_path: Path) -> None:
    providers = [f"p{index}" for index in range(8)]
    running = [
        subprocess.Popen([sys.executable, "-c", SAVE, str(tmp_path), name]) for name in providers
    ]
    assert [process.wait(timeout=120) for process in running] == [0] * len(providers)
    saved = json.loads((tmp_path / "auth.json").read_text())
    assert saved == {name: {"type": "api_key", "key": f"key-{name}"} for name in providers}


def test_a_save_through_a_link_changes_the_target_and_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "secrets" / "auth.json"
    real.parent.mkdir()
    real.write_text("{}")
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "auth.json").symlink_to(real)
    AuthFile(agent).save_key("openai", "sk-1")
    assert (agent / "auth.json").is_symlink()
    assert json.loads(real.read_text()) == {"openai": {"type": "api_key", "key": "sk-1"}}
    assert stat.S_IMODE(real.stat().st_mode) == 0o600


def test_a_save_makes_a_loose_file_0600(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    path.write_text("{}")
    path.chmod(0o644)
    assert AuthFile(tmp_path).loose_mode() is not None
    AuthFile(tmp_path).save_key("openai", "sk-1")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert AuthFile(tmp_path).loose_mode() is None


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("[1, 2]", "expected a JSON object at the top level"),
        ('{"openai": "sk-1"}', "openai: expected an object"),
        ('{"openai": {"key": "sk-1"}}', "openai.type: expected"),
        ('{"openai": {"type": "api_key", "key": 1}}', "openai.key: expected a string"),
        ('{"openai": {"type": "api_key", "key": "k", "env": {"A": 1}}}', "openai.env: expected"),
        ('{"openai": ', "fix the file or move it aside"),
    ],
)
def test_a_malformed_file_names_the_file_and_the_field(
    tmp_path: Path, text: str, field: str
) -> None:
    (tmp_path / "auth.json").write_text(text)
    with pytest.raises(AuthFileError) as raised:
        AuthFile(tmp_path).entries()
    message = str(raised.value)
    assert message.startswith(str(tmp_path / "auth.json"))
    assert field in message
    assert "\n" not in message


def test_an_empty_file_a_bom_and_unknown_types_are_read(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    path.write_text("")
    assert AuthFile(tmp_path).entries().keys == {}
    body = {"a": {"type": "api_key", "key": "k", "env": {"X": "1"}}, "b": {"type": "oauth"}}
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(body).encode())
    entries = AuthFile(tmp_path).entries()
    assert entries.keys["a"].key == "k"
    assert entries.keys["a"].env == {"X": "1"}
    assert entries.other == {"b": "oauth"}


def test_removing_a_missing_entry_leaves_no_file_behind(tmp_path: Path) -> None:
    assert AuthFile(tmp_path).remove("openai") is False
    assert not (tmp_path / "auth.json").exists()
