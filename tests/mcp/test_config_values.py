"""`${NAME}`, `$NAME` and `!command` in `env`, `headers` and `oauth.clientSecret` values."""

from __future__ import annotations

from pathlib import Path

import pytest

from pith.mcp._config_values import ValueExpansionError, expand_value


def expand(text: str, environ: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    return expand_value(text, environ or {}, cwd or Path.cwd(), {})


def test_literal_text_is_kept() -> None:
    assert expand("plain value") == "plain value"


def test_braced_and_bare_variables() -> None:
    env = {"TOKEN": "abc", "USER_1": "me"}
    assert expand("Bearer ${TOKEN}", env) == "Bearer abc"
    assert expand("$USER_1@host", env) == "me@host"


def test_dollar_escapes_and_lone_dollars() -> None:
    assert expand("cost $$5 and $!x", {}) == "cost $5 and !x"
    assert expand("a $ b ${not a name} ${open", {}) == "a $ b ${not a name} ${open"


def test_unset_and_empty_variables_name_the_variable() -> None:
    with pytest.raises(ValueExpansionError) as raised:
        expand("${A}-${B}-${A}", {"B": ""})
    assert raised.value.missing == ("A", "B")
    assert "A, B" in str(raised.value)


def test_a_command_value_runs_through_bash_in_the_cwd(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("s3cret\n")
    assert expand("!cat secret.txt", {"PATH": "/usr/bin:/bin"}, tmp_path) == "s3cret"
    assert expand("!echo $WHO", {"PATH": "/usr/bin:/bin", "WHO": "x y"}, tmp_path) == "x y"


def test_a_failing_or_silent_command_is_a_problem(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin"}
    with pytest.raises(ValueExpansionError, match="exited with status 3"):
        expand("!echo out; exit 3", env, tmp_path)
    with pytest.raises(ValueExpansionError, match="printed nothing"):
        expand("!true", env, tmp_path)


def test_one_command_runs_once_per_load(tmp_path: Path) -> None:
    counter = tmp_path / "count"
    cache: dict[str, str] = {}
    command = f"!echo x >> {counter}; echo value"
    env = {"PATH": "/usr/bin:/bin"}
    assert expand_value(command, env, tmp_path, cache) == "value"
    assert expand_value(command, env, tmp_path, cache) == "value"
    assert counter.read_text() == "x\n"


def test_a_command_only_counts_as_the_whole_value() -> None:
    assert expand("not !a command") == "not !a command"


def test_a_command_that_hangs_is_stopped(tmp_path: Path) -> None:
    with pytest.raises(ValueExpansionError, match=r"did not finish within 0\.5 seconds"):
        expand_value("!sleep 60 | cat", {"PATH": "/usr/bin:/bin"}, tmp_path, {}, timeout=0.5)
