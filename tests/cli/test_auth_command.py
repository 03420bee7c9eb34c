"""`pith auth login|list|logout` and the keys in `<agent dir>/auth.json`: real pith processes,
a temporary agent dir, and the fake model server where a request is made."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from pith.testing import FakeServer, subprocess_env

KEY = "zq-Stored-K3y-7f3a9c"
ENV_KEY = "zq-Env-K3y-41be02"

# Written as Pi writes auth.json (`JSON.stringify(data, null, 2)`), with an OAuth entry pith
# does not use and must keep.
PI_FILE = json.dumps(
    {
        "anthropic": {
            "type": "oauth",
            "access": "acc-ü",
            "refresh": "ref",
            "expires": 1767225600000,
        },
        "groq": {"type": "api_key", "key": "gsk-other"},
    },
    indent=2,
    ensure_ascii=False,
)


def pith(
    tmp_path: Path, *args: str, stdin: str = "", **env: str
) -> subprocess.CompletedProcess[str]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "pith", *args],
        cwd=work,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=subprocess_env(tmp_path / "agent", **env),
    )


def auth_file(tmp_path: Path) -> Path:
    return tmp_path / "agent" / "auth.json"


def write_models(tmp_path: Path, providers: Mapping[str, object]) -> None:
    agent = tmp_path / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    (agent / "models.json").write_text(json.dumps({"providers": providers}))


def digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def fragments(key: str) -> list[str]:
    """Every piece of `key` of 6 characters or more: none may show anywhere."""
    return [key[i : i + 6] for i in range(len(key) - 5)]


def assert_hidden(text: str, key: str = KEY) -> None:
    for piece in fragments(key):
        assert piece not in text, f"{piece!r} of the key shows in: {text[:400]!r}"


# --- login ----------------------------------------------------------------------------------


def test_login_reads_the_key_from_stdin_and_saves_it_0600_in_pis_layout(tmp_path: Path) -> None:
    result = pith(tmp_path, "auth", "login", "openai", stdin=KEY + "\n")
    assert result.returncode == 0, result.stderr
    path = auth_file(tmp_path)
    assert result.stdout == f"Saved the API key for openai in {path}.\n"
    assert_hidden(result.stdout + result.stderr)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert json.loads(path.read_text()) == {"openai": {"type": "api_key", "key": KEY}}
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_login_keeps_the_other_entries_byte_for_byte(tmp_path: Path) -> None:
    path = auth_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(PI_FILE)
    path.chmod(0o600)
    assert pith(tmp_path, "auth", "login", "openai", stdin=KEY).returncode == 0
    text = path.read_text()
    assert text.startswith(PI_FILE[: PI_FILE.rindex("\n}")])
    assert json.loads(text)["openai"] == {"type": "api_key", "key": KEY}
    assert json.loads(text)["anthropic"]["type"] == "oauth"


def test_login_refuses_an_unknown_provider_naming_the_known_ones(tmp_path: Path) -> None:
    write_models(
        tmp_path, {"vllm": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions"}}
    )
    result = pith(tmp_path, "auth", "login", "opnai", stdin=KEY)
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("pith: unknown provider 'opnai'; known providers: anthropic, ")
    assert "openai" in lines[0]
    assert "vllm" in lines[0]
    assert not auth_file(tmp_path).exists()


def test_login_takes_a_provider_from_models_json(tmp_path: Path) -> None:
    write_models(
        tmp_path, {"vllm": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions"}}
    )
    assert pith(tmp_path, "auth", "login", "vllm", stdin=KEY).returncode == 0
    assert json.loads(auth_file(tmp_path).read_text())["vllm"]["key"] == KEY


def test_login_with_no_key_saves_nothing(tmp_path: Path) -> None:
    result = pith(tmp_path, "auth", "login", "openai", stdin="\n")
    assert result.returncode == 2
    assert result.stderr == "pith: no key given for openai; nothing was saved\n"
    assert not auth_file(tmp_path).exists()


def test_login_says_when_the_environment_wins_over_the_saved_key(tmp_path: Path) -> None:
    result = pith(tmp_path, "auth", "login", "openai", stdin=KEY, OPENAI_API_KEY=ENV_KEY)
    assert result.returncode == 0
    assert "environment variable OPENAI_API_KEY gives openai a key now" in result.stderr
    assert_hidden(result.stderr, ENV_KEY)


def test_login_refuses_to_rewrite_a_file_that_is_not_json(tmp_path: Path) -> None:
    path = auth_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text('{"groq": {"type": "api_key", "key": "gsk-other"},}')
    before = path.read_bytes()
    result = pith(tmp_path, "auth", "login", "openai", stdin=KEY)
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"pith: {path}")
    assert "fix the file or move it aside" in lines[0]
    assert "Traceback" not in result.stderr
    assert path.read_bytes() == before


# --- logout ---------------------------------------------------------------------------------


def test_logout_removes_the_entry_and_keeps_the_others_byte_for_byte(tmp_path: Path) -> None:
    path = auth_file(tmp_path)
    path.parent.mkdir(parents=True)
    extra = json.loads(PI_FILE) | {"openai": {"type": "api_key", "key": KEY}}
    path.write_text(json.dumps(extra, indent=2, ensure_ascii=False))
    path.chmod(0o600)
    result = pith(tmp_path, "auth", "logout", "openai")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"Removed the saved key for openai from {path}.\n"
    assert path.read_text() == PI_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_logout_of_a_missing_entry_is_one_line_and_exit_1(tmp_path: Path) -> None:
    path = auth_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(PI_FILE)
    result = pith(tmp_path, "auth", "logout", "openai")
    assert result.returncode == 1
    assert result.stderr == f"pith: no saved key for openai in {path}; nothing removed\n"
    assert path.read_text() == PI_FILE


def test_logout_removes_an_entry_of_the_wrong_shape(tmp_path: Path) -> None:
    path = auth_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps(
            {"openai": {"type": "api_key", "key": 5}, "groq": {"type": "api_key", "key": "g"}},
            indent=2,
        )
    )
    assert pith(tmp_path, "auth", "logout", "openai").returncode == 0
    assert json.loads(path.read_text()) == {"groq": {"type": "api_key", "key": "g"}}


# --- list -----------------------------------------------------------------------------------


def test_list_says_where_each_key_comes_from_and_never_shows_one(tmp_path: Path) -> None:
    write_models(
        tmp_path,
        {
            "vllm": {
                "baseUrl": "http://127.0.0.1:9/v1",
                "api": "openai-completions",
                "apiKey": "$VLLM_KEY",
            },
        },
    )
    for provider in ("openai", "anthropic", "mistral"):
        assert pith(tmp_path, "auth", "login", provider, stdin=KEY).returncode == 0
    result = pith(tmp_path, "auth", "list", OPENAI_API_KEY=ENV_KEY, GROQ_API_KEY=ENV_KEY)
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line for line in result.stdout.splitlines()[1:-1]}
    assert set(rows) == {"anthropic", "groq", "mistral", "openai", "vllm"}
    assert rows["anthropic"].split(None, 1)[1].split() == ["auth.json", "yes"]
    assert "environment variable OPENAI_API_KEY" in rows["openai"]
    assert rows["openai"].endswith("yes (not used)")
    assert "environment variable GROQ_API_KEY" in rows["groq"]
    assert rows["groq"].endswith("no")
    assert "  models.json: providers.vllm.apiKey ($VLLM_KEY, which is not set)" in rows["vllm"]
    assert_hidden(result.stdout + result.stderr)
    assert_hidden(result.stdout + result.stderr, ENV_KEY)


def test_list_with_no_key_anywhere_says_how_to_save_one(tmp_path: Path) -> None:
    result = pith(tmp_path, "auth", "list")
    assert result.returncode == 0
    assert "pith auth login PROVIDER" in result.stdout


def test_a_malformed_entry_is_one_line_naming_the_file_and_field(tmp_path: Path) -> None:
    path = auth_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"openai": {"type": "api_key", "key": ["sk"]}}))
    path.chmod(0o600)
    for args in (("auth", "list"), ("-p", "--no-session", "hi")):
        result = pith(tmp_path, *args)
        assert result.returncode == 2
        assert result.stderr == (
            f"pith: {path}: openai.key: expected a string; fix it, or remove it with "
            "`pith auth logout openai`\n"
        )


def test_a_file_others_can_read_is_a_warning_naming_chmod(tmp_path: Path) -> None:
    assert pith(tmp_path, "auth", "login", "openai", stdin=KEY).returncode == 0
    path = auth_file(tmp_path)
    path.chmod(0o644)
    result = pith(tmp_path, "auth", "list")
    assert result.returncode == 0
    assert result.stderr == (
        f"pith: warning: {path} holds API keys but other users may read it (mode 0644); "
        f"run `chmod 600 {path}`\n"
    )


# --- the key a run sends --------------------------------------------------------------------


def openai_through(server: FakeServer) -> dict[str, dict[str, object]]:
    """The built-in openai provider pointed at the fake server, with no apiKey of its own."""
    return {"openai": {"baseUrl": server.base_url, "models": [{"id": "m"}]}}


def sent_credential(server: FakeServer) -> object:
    return server.requests[0]["credentials"]


def test_a_run_sends_the_saved_key(tmp_path: Path) -> None:
    with FakeServer({"turns": [{"text": "hello"}]}) as server:
        write_models(tmp_path, openai_through(server))
        assert pith(tmp_path, "auth", "login", "openai", stdin=KEY).returncode == 0
        result = pith(tmp_path, "-p", "--model", "openai/m", "hi")
        credential = sent_credential(server)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello\n"
    assert credential == {"authorization": digest(f"Bearer {KEY}")}


def test_the_environment_and_api_key_win_over_the_saved_key(tmp_path: Path) -> None:
    with FakeServer({"turns": [{"text": "a"}]}) as server:
        write_models(tmp_path, openai_through(server))
        assert pith(tmp_path, "auth", "login", "openai", stdin=KEY).returncode == 0
        result = pith(
            tmp_path, "-p", "--no-session", "--model", "openai/m", "hi", OPENAI_API_KEY=ENV_KEY
        )
        from_env = sent_credential(server)
    assert result.returncode == 0, result.stderr
    assert from_env == {"authorization": digest(f"Bearer {ENV_KEY}")}
    with FakeServer({"turns": [{"text": "b"}]}) as server:
        write_models(tmp_path, openai_through(server))
        result = pith(
            tmp_path, "-p", "--no-session", "--model", "openai/m", "--api-key", "flag-key", "hi"
        )
        from_flag = sent_credential(server)
    assert result.returncode == 0, result.stderr
    assert from_flag == {"authorization": digest("Bearer flag-key")}


def test_a_models_json_api_key_wins_over_the_saved_key(tmp_path: Path) -> None:
    with FakeServer({"turns": [{"text": "a"}]}) as server:
        providers = openai_through(server)
        providers["openai"]["apiKey"] = "proxy-key"
        write_models(tmp_path, providers)
        assert pith(tmp_path, "auth", "login", "openai", stdin=KEY).returncode == 0
        result = pith(tmp_path, "-p", "--no-session", "--model", "openai/m", "hi")
        credential = sent_credential(server)
    assert result.returncode == 0, result.stderr
    assert credential == {"authorization": digest("Bearer proxy-key")}


def test_the_saved_key_is_in_no_session_file_context_or_export(tmp_path: Path) -> None:
    with FakeServer({"turns": [{"text": "hello"}]}) as server:
        write_models(tmp_path, openai_through(server))
        assert pith(tmp_path, "auth", "login", "openai", stdin=KEY).returncode == 0
        run = pith(tmp_path, "-p", "--model", "openai/m", "hi")
    assert run.returncode == 0, run.stderr
    context = pith(tmp_path, "context", "--model", "openai/m")
    assert context.returncode == 0, context.stderr
    exported = pith(tmp_path, "export", "-o", str(tmp_path / "out.html"))
    assert exported.returncode == 0, exported.stderr
    seen = [run.stdout, run.stderr, context.stdout, context.stderr, exported.stdout]
    seen.append((tmp_path / "out.html").read_text())
    for folder, _, files in os.walk(tmp_path / "agent"):
        for name in files:
            if name != "auth.json":
                seen.append((Path(folder) / name).read_text(errors="replace"))
    assert_hidden("\n".join(seen))


def test_login_on_a_terminal_asks_without_echoing_the_key(tmp_path: Path) -> None:
    import pty
    import select

    env = subprocess_env(tmp_path / "agent")
    (tmp_path / "work").mkdir()
    pid, master = pty.fork()
    if pid == 0:  # the child: pith on a terminal
        os.chdir(tmp_path / "work")
        os.execve(sys.executable, [sys.executable, "-m", "pith", "auth", "login", "openai"], env)
    seen = b""
    sent = False
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 1024)
        except OSError:  # the terminal closes when pith exits
            break
        if not chunk:
            break
        seen += chunk
        if not sent and b"(not shown): " in seen:
            os.write(master, KEY.encode() + b"\r")
            sent = True
    _, status = os.waitpid(pid, 0)
    os.close(master)
    text = seen.decode(errors="replace")
    assert os.waitstatus_to_exitcode(status) == 0, text
    assert "API key for openai (not shown): " in text
    assert "Saved the API key for openai" in text
    assert_hidden(text)
    assert json.loads(auth_file(tmp_path).read_text())["openai"]["key"] == KEY


def test_a_missing_key_names_pith_auth_login(tmp_path: Path) -> None:
    write_models(
        tmp_path, {"openai": {"baseUrl": "http://127.0.0.1:9/v1", "models": [{"id": "m"}]}}
    )
    result = pith(tmp_path, "-p", "--no-session", "--model", "openai/m", "hi")
    assert result.returncode == 2
    assert result.stderr == (
        "pith: no API key for openai/m: set OPENAI_API_KEY, save one with "
        "`pith auth login openai`, or pass --api-key\n"
    )
