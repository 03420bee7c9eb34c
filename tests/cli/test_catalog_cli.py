"""The model catalog and the built-in providers through a real `pith` process: `--list-models`
with and without a search, a catalog model run with nothing but its provider's key in the
environment (the fake model server standing in for the provider, through a models.json
`baseUrl`), models.json adding and overriding catalog models, and the one-line errors."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from pith.ai import builtin_models
from pith.testing import FakeServer
from tests.cli import pith_process

HELLO = {"turns": [{"text": "hello"}]}
SONNET = "anthropic/claude-sonnet-4.5"
"""An OpenRouter model of the catalog (1M window, 64K output, $3 / $15)."""


def write_models(tmp_path: Path, providers: dict[str, object]) -> None:
    pith_process.write_models(tmp_path / "agent", providers)


def run_pith(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    # No local server is asked: the table is the catalog's and models.json's alone.
    return pith_process.run_pith(tmp_path, *args, PITH_LOCAL_SERVERS="", **env)


def table(stdout: str) -> tuple[list[str], dict[str, list[str]]]:
    """`--list-models`' header cells, and its rows by `provider/id` (mark cell dropped)."""
    header, *lines = stdout.splitlines()
    rows = {}
    for line in lines:
        cells = line[1:].split()
        rows[f"{cells[0]}/{cells[1]}"] = cells[2:]
    return header.split(), rows


def digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


# --- --list-models -----------------------------------------------------------------------


def test_list_models_prints_the_whole_catalog_as_a_table(tmp_path: Path) -> None:
    result = run_pith(tmp_path, "--list-models")
    assert result.returncode == 0, result.stderr
    header, rows = table(result.stdout)
    columns = "provider model api context max-out thinking images $in/M $out/M from"
    assert " ".join(header) == columns
    assert set(rows) == {model.key for model in builtin_models()}
    assert rows["anthropic/claude-sonnet-4-5"] == [
        "anthropic-messages",
        "200K",
        "64K",
        "yes",
        "yes",
        "3",
        "15",
        "catalog",
    ]
    assert rows["openai/gpt-5"][0] == "openai-responses"
    assert rows["google/gemini-2.5-pro"][0] == "google-generative-ai"
    assert rows[f"openrouter/{SONNET}"][0] == "openai-completions"
    assert "prices in US dollars per million tokens" in result.stderr


def test_a_search_lists_only_the_models_it_names(tmp_path: Path) -> None:
    # Every word must match; the words after the first are part of the search too.
    result = run_pith(tmp_path, "--list-models", "claude", "sonnet 4.5")
    assert result.returncode == 0, result.stderr
    _, rows = table(result.stdout)
    assert {"anthropic/claude-sonnet-4-5", f"openrouter/{SONNET}"} <= set(rows)
    for key in rows:
        folded = "".join(char for char in key.lower() if char.isalnum())
        assert "claudesonnet45" in folded, key
    only = run_pith(tmp_path, "--list-models", "openrouter")
    _, openrouter = table(only.stdout)
    assert openrouter
    assert {key.split("/")[0] for key in openrouter} == {"openrouter"}


def test_a_search_that_names_no_model_says_so_and_exits_1(tmp_path: Path) -> None:
    result = run_pith(tmp_path, "--list-models", "no-such-model-anywhere")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (
        "pith: no model matches 'no-such-model-anywhere'; `pith --list-models` lists them all\n"
    )


def test_list_models_marks_the_providers_whose_key_is_set(tmp_path: Path) -> None:
    result = run_pith(tmp_path, "--list-models", "sonnet 4.5", OPENROUTER_API_KEY="or-key")
    assert result.returncode == 0, result.stderr
    marks = {line[1:].split()[1]: line[0] for line in result.stdout.splitlines()[1:]}
    assert marks[SONNET] == "*"
    assert marks["claude-sonnet-4-5"] == " "


# --- a catalog model with only its provider's key ----------------------------------------


@pytest.mark.parametrize(
    ("model", "variable", "base", "path", "credential"),
    [
        (
            f"openrouter/{SONNET}",
            "OPENROUTER_API_KEY",
            "base_url",
            "/v1/chat/completions",
            ("authorization", "Bearer {key}"),
        ),
        (
            "openai/gpt-5",
            "OPENAI_API_KEY",
            "base_url",
            "/v1/responses",
            ("authorization", "Bearer {key}"),
        ),
        (
            "minimax/MiniMax-M2.5",
            "MINIMAX_API_KEY",
            "anthropic_base_url",
            "/v1/messages",
            ("x-api-key", "{key}"),
        ),
        (
            "google/gemini-2.5-flash",
            "GEMINI_API_KEY",
            "gemini_base_url",
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
            ("x-goog-api-key", "{key}"),
        ),
    ],
)
def test_a_catalog_model_runs_with_only_its_provider_s_key(
    tmp_path: Path,
    model: str,
    variable: str,
    base: str,
    path: str,
    credential: tuple[str, str],
) -> None:
    provider, model_id = model.split("/", 1)
    with FakeServer(HELLO) as server:
        # Only the address moves; the api, the key variable and the limits are the built-ins'.
        write_models(tmp_path, {provider: {"baseUrl": getattr(server, base)}})
        result = run_pith(tmp_path, "-p", "--model", model, "hi", **{variable: "the-key"})
        requests = server.requests
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello\n"
    assert result.stderr == ""
    assert len(requests) == 1
    request = requests[0]
    assert str(request["path"]).split("?")[0] == path
    credentials = request["credentials"]
    assert isinstance(credentials, dict)
    assert "the-key" not in json.dumps(request)
    header, value = credential
    assert credentials == {header: digest(value.format(key="the-key"))}
    body = request["body"]
    assert isinstance(body, dict)
    if "model" in body:  # Gemini names the model in the path
        assert body["model"] == model_id


def test_openrouter_sends_the_catalog_s_limits(tmp_path: Path) -> None:
    with FakeServer(HELLO) as server:
        write_models(tmp_path, {"openrouter": {"baseUrl": server.base_url}})
        result = run_pith(
            tmp_path, "-p", "--model", f"openrouter/{SONNET}", "hi", OPENROUTER_API_KEY="k"
        )
        body = server.requests[0]["body"]
    assert result.returncode == 0, result.stderr
    assert isinstance(body, dict)
    # 64K output from the catalog, well inside its 1M window; a reasoning model.
    assert body["max_completion_tokens"] == 64_000
    assert "reasoning_effort" in body


def test_a_missing_key_is_one_line_naming_the_variable(tmp_path: Path) -> None:
    with FakeServer(HELLO) as server:
        write_models(tmp_path, {"openrouter": {"baseUrl": server.base_url}})
        result = run_pith(tmp_path, "-p", "--model", f"openrouter/{SONNET}", "hi")
        requests = len(server.requests)
    assert result.returncode == 2
    assert requests == 0
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"pith: no API key for openrouter/{SONNET}: set OPENROUTER_API_KEY")


def test_an_id_the_catalog_lacks_runs_with_defaults_said_once(tmp_path: Path) -> None:
    with FakeServer(HELLO) as server:
        write_models(tmp_path, {"openrouter": {"baseUrl": server.base_url}})
        result = run_pith(
            tmp_path, "-p", "--model", "openrouter/acme/unlisted", "hi", OPENROUTER_API_KEY="k"
        )
        body = server.requests[0]["body"]
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello\n"
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "openrouter/acme/unlisted is not in pith's model list" in lines[0]
    assert "providers.openrouter.models in models.json" in lines[0]
    assert isinstance(body, dict)
    assert body["model"] == "acme/unlisted"


# --- models.json over the catalog --------------------------------------------------------


def openrouter_with(server: FakeServer, **fields: object) -> dict[str, object]:
    return {"openrouter": {"baseUrl": server.base_url, **fields}}


def test_models_json_adds_a_model_and_overrides_a_catalog_field(tmp_path: Path) -> None:
    with FakeServer({"turns": [{"text": "one"}, {"text": "two"}]}) as server:
        write_models(
            tmp_path,
            openrouter_with(
                server,
                models=[{"id": "acme/new-coder", "contextWindow": 40_000, "maxTokens": 2_000}],
                modelOverrides={SONNET: {"contextWindow": 50_000, "cost": {"input": 2}}},
            ),
        )
        listed = run_pith(tmp_path, "--list-models", "openrouter", OPENROUTER_API_KEY="k")
        added = run_pith(
            tmp_path, "-p", "--model", "openrouter/acme/new-coder", "hi", OPENROUTER_API_KEY="k"
        )
        changed = run_pith(
            tmp_path, "-p", "--model", f"openrouter/{SONNET}", "hi", OPENROUTER_API_KEY="k"
        )
        bodies = [request["body"] for request in server.requests]
    assert listed.returncode == 0, listed.stderr
    _, rows = table(listed.stdout)
    assert rows["openrouter/acme/new-coder"] == [
        "openai-completions",
        "40K",
        "2K",
        "no",
        "no",
        "-",
        "-",
        "models.json",
    ]
    # The patched fields win, the others stay the catalog's (the output price, reasoning).
    assert rows[f"openrouter/{SONNET}"] == [
        "openai-completions",
        "50K",
        "64K",
        "yes",
        "yes",
        "2",
        "15",
        "models.json",
    ]
    assert rows["openrouter/openai/gpt-4.1"][-1] == "catalog"
    # A model models.json adds is no stranger: no note about assumed defaults.
    assert (added.returncode, added.stdout, added.stderr) == (0, "one\n", "")
    assert (changed.returncode, changed.stdout, changed.stderr) == (0, "two\n", "")
    first, second = bodies
    assert isinstance(first, dict)
    assert isinstance(second, dict)
    assert (first["model"], first["max_completion_tokens"]) == ("acme/new-coder", 2_000)
    # The 64K output cap no longer fits the overridden 50K window: the request asks for less.
    assert second["model"] == SONNET
    assert second["max_completion_tokens"] < 50_000


def test_a_models_entry_with_a_catalog_id_replaces_the_whole_model(tmp_path: Path) -> None:
    with FakeServer(HELLO) as server:
        write_models(tmp_path, openrouter_with(server, models=[{"id": SONNET}]))
        result = run_pith(tmp_path, "--list-models", "sonnet 4.5", OPENROUTER_API_KEY="k")
    assert result.returncode == 0, result.stderr
    _, rows = table(result.stdout)
    # models.json's defaults, not the catalog's facts: `modelOverrides` is the way to patch.
    assert rows[f"openrouter/{SONNET}"] == [
        "openai-completions",
        "128K",
        "16.4K",
        "no",
        "no",
        "-",
        "-",
        "models.json",
    ]


@pytest.mark.parametrize("args", [("--list-models",), ("-p", "--model", f"openrouter/{SONNET}")])
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"providers": {', "models.json:1:16: not valid JSON"),
        (
            json.dumps(
                {
                    "providers": {
                        "openrouter": {"modelOverrides": {SONNET: {"contextWindow": "big"}}}
                    }
                }
            ),
            f"models.json: providers.openrouter.modelOverrides.{SONNET}.contextWindow: "
            "expected `int`, got `str`; fix that field",
        ),
        (
            json.dumps({"providers": {"openrouter": {"api": "openai-chat"}}}),
            "models.json: providers.openrouter.api: 'openai-chat' is not supported",
        ),
    ],
)
def test_a_malformed_models_json_is_one_line(
    tmp_path: Path, args: tuple[str, ...], text: str, expected: str
) -> None:
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "models.json").write_text(text)
    result = run_pith(tmp_path, *args, "hi", OPENROUTER_API_KEY="k")
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("pith: ")
    assert expected in lines[0], lines[0]
    assert "Traceback" not in result.stderr
