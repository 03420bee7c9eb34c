"""A real `pith -p` run sends the model the same system prompt, tools and user text as Pi 1.6.

Golden data: tests/conformance/resources/golden.json, groups `session` (the exact
`session.systemPrompt` and active tools of a real Pi `createAgentSession` for a fixture
project) and `cli` (real `pi -p` runs with several messages, `-a` then `-na`). Each case is
replayed through pith's real command line against the fake model server, and the request the
model received is compared with Pi's.

Deliberate differences, asserted explicitly rather than skipped silently:

- the `preamble` (unless a SYSTEM.md replaces it) and the `<docs>` section are pith's own words,
  pointing at pith's documentation;
- the bash guideline names the `PITH_*` environment variables where Pi's names `PI_*`;
- project folders are `.pith/` where Pi's are `.pi/`, and the agent dir comes from
  `PITH_AGENT_DIR` (Pi: `PI_CODING_AGENT_DIR`).

Everything else (section order, the separators between sections, every other section's text,
the active tools and their order, the expanded user text) must be equal.

Two cases at the end go beyond golden.json: they were run through the same oracle call by hand
(tool order of `--tools`; `defaultTools` modifiers in a project's settings).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import pytest

from pith.resources import PREAMBLE, docs_section
from pith.testing import FakeServer, configure_agent_dir, subprocess_env
from tests.conformance.resources_golden import (
    build_fixture,
    case_ids,
    cases,
    check_ancestors,
    pith_path,
    rename_segments,
    unroot,
)

SESSION_CASES = cases("session", "agentSessionSystemPrompt")
(CLI_CASE,) = cases("cli")
PI_PREAMBLE = (
    "You are a coding assistant running inside pi, a coding agent harness. Help users inspect "
    "files, run commands, and modify code."
)
MODEL = ["--model", "fake/m"]
_OPEN = re.compile(r"<([a-z][a-z0-9_-]*)>\n")
_FIRST = re.compile(r"\n\n<([a-z][a-z0-9_-]*)>\n")


def test_every_session_and_cli_case_is_covered() -> None:
    assert len(SESSION_CASES) == len(cases("session")) == 9
    assert CLI_CASE["fn"] == "pi -p"


# --- splitting a prompt into its sections ----------------------------------------------------


def split_sections(prompt: str) -> list[tuple[str, str]]:
    """`prompt` as `[(name, text)]`: the preamble raw, then each top-level `<name>…</name>`
    block. Joining the texts with blank lines gives `prompt` back (checked), so the separators
    are compared too."""
    first = _FIRST.search(prompt)
    if first is None:
        return [("preamble", prompt)]
    sections = [("preamble", prompt[: first.start()])]
    pos = first.start() + 2
    while pos < len(prompt):
        opening = _OPEN.match(prompt, pos)
        assert opening is not None, f"no section starts at {prompt[pos : pos + 40]!r}"
        close = f"\n</{opening.group(1)}>"
        end = prompt.find(close, opening.end() - 1)
        # A section ends at its closing tag when the prompt ends there or the next one opens.
        while end != -1 and not _ends_section(prompt, end + len(close)):
            end = prompt.find(close, end + 1)
        assert end != -1, f"section {opening.group(1)!r} is not closed"
        sections.append((opening.group(1), prompt[pos : end + len(close)]))
        pos = end + len(close) + 2
    assert "\n\n".join(text for _, text in sections) == prompt
    return sections


def _ends_section(prompt: str, pos: int) -> bool:
    if pos == len(prompt):
        return True
    return prompt.startswith("\n\n", pos) and _OPEN.match(prompt, pos + 2) is not None


def test_split_sections_keeps_a_custom_preamble_ending_in_a_newline() -> None:
    prompt = "Custom.\n\n\n<addendum>\nA\n</addendum>\n\n<cwd>\n/x\n</cwd>"
    assert split_sections(prompt) == [
        ("preamble", "Custom.\n"),
        ("addendum", "<addendum>\nA\n</addendum>"),
        ("cwd", "<cwd>\n/x\n</cwd>"),
    ]


def test_split_sections_does_not_end_a_section_at_a_nested_block() -> None:
    prompt = "P\n\n<skills>\n<available_skills>\n</available_skills>\n</skills>"
    assert split_sections(prompt) == [
        ("preamble", "P"),
        ("skills", "<skills>\n<available_skills>\n</available_skills>\n</skills>"),
    ]


# --- comparing pith's prompt with Pi's ---------------------------------------------------------


def _as_pi(text: str) -> str:
    """pith's wording where it deliberately differs from Pi's, turned into Pi's."""
    return text.replace("PITH_*", "PI_*").replace("/.pith/", "/.pi/")


def assert_prompt_matches(ours: str, theirs: str) -> None:
    """`ours` (placeholders already put back) equals Pi's `theirs` section for section."""
    mine, pis = dict(split_sections(ours)), dict(split_sections(theirs))
    assert list(mine) == list(pis)  # the same sections, in the same order
    if pis["preamble"] == PI_PREAMBLE:
        # pith's own introduction in place of Pi's.
        assert mine.pop("preamble") == PREAMBLE
        pis.pop("preamble")
    if "docs" in pis:
        # pith points the model at its own documentation, not Pi's package.
        assert mine.pop("docs") == f"<docs>\n{docs_section()}\n</docs>"
        pis.pop("docs")
    assert {name: _as_pi(text) for name, text in mine.items()} == pis


# --- running pith -----------------------------------------------------------------------------


def run_pith(
    args: list[str], *, cwd: Path, agent: Path, home: Path, prompts: int
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """`pith args` in `cwd` against a fake model answering `prompts` requests; the process and
    the request bodies the model received."""
    with FakeServer({"turns": [{"text": "ok"} for _ in range(prompts)]}) as server:
        configure_agent_dir(agent, server)
        result = subprocess.run(
            [sys.executable, "-m", "pith", *args],
            cwd=cwd,
            env=subprocess_env(agent, HOME=str(home)),
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        bodies = [request["body"] for request in server.requests]
        assert server.problems() == []
    assert result.returncode == 0, result.stderr
    assert len(bodies) == prompts
    assert all(isinstance(body, dict) for body in bodies)
    return result, cast("list[dict[str, Any]]", bodies)


def system_prompt_of(body: dict[str, Any]) -> str:
    first = body["messages"][0]
    assert first["role"] == "system"
    return str(first["content"])


def tool_names_of(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def user_text_of(body: dict[str, Any]) -> str:
    """The text of the request's last user message (the prompt just sent)."""
    last = [message for message in body["messages"] if message["role"] == "user"][-1]
    content = last["content"]
    if isinstance(content, str):
        return content
    return "".join(part["text"] for part in content if part.get("type") == "text")


# --- `session`: one project, one prompt -------------------------------------------------------


def _session_flags(args: dict[str, Any]) -> list[str]:
    flags = ["--approve" if args["projectTrusted"] else "--no-approve"]
    if args.get("noTools"):
        flags.append("--no-tools")
    if "tools" in args:
        # `=` keeps a leading `-name` modifier from being read as an option.
        flags.append(f"--tools={','.join(args['tools'])}")
    return flags


@pytest.mark.parametrize("case", SESSION_CASES, ids=case_ids(SESSION_CASES))
def test_session_prompt_and_tools_match_pi(case: dict[str, Any], tmp_path: Path) -> None:
    root = build_fixture(case["fixture"], tmp_path)
    args = case["args"]
    assert case["env"]["HOME"] == "<ROOT>/home"
    agent = Path(pith_path(args["agentDir"], root))
    result, (body,) = run_pith(
        ["-p", *MODEL, *_session_flags(args), "hello"],
        cwd=Path(pith_path(args["cwd"], root)),
        agent=agent,
        home=root / "home",
        prompts=1,
    )
    assert_prompt_matches(unroot(system_prompt_of(body), root), case["result"]["systemPrompt"])
    # Only the active tools reach the model. Pi's `toolNames` (every registered tool) is not
    # compared: Pi registers `powershell` too, which is not a pith tool.
    assert tool_names_of(body) == case["result"]["activeTools"]
    assert user_text_of(body) == "hello"
    # These fixtures are clean: nothing to report but the untrusted project's kept-out files.
    untrusted = "pith: warning: this project is not trusted, so pith does not load "
    expected_lines = 0 if args["projectTrusted"] else 1
    assert len(result.stderr.splitlines()) == expected_lines, result.stderr
    assert all(line.startswith(untrusted) for line in result.stderr.splitlines())


# --- `cli`: `pi -p` with several messages, -a then -na ----------------------------------------


def _write_tree(base: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = base / rename_segments(relative)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


UNKNOWN_TO_PITH = {("-a", "/unknown x"), ("-na", "/args x"), ("-na", "/skill:proj-skill y")}
"""Recorded prompts whose first word names no command, template or skill for pith (without
`-a` the project's templates and skills are not loaded). pith refuses such a `/word` where Pi
sends it as text (docs/differences.md); a pith user sends it with a leading space, and the
model then gets the text with that space."""


def _cli_argv(invocation: list[str]) -> tuple[list[str], int]:
    """pith's arguments for one recorded `pi` invocation, and how many prompts it sends."""
    argv: list[str] = []
    prompts = 0
    for arg in invocation:
        if arg == "{MODEL}":
            argv.extend(MODEL)
        elif any((flag, arg) in UNKNOWN_TO_PITH for flag in invocation):
            argv.append(" " + arg)
            prompts += 1
        else:
            argv.append(arg)
            prompts += not arg.startswith("-")
    return argv, prompts


def test_print_mode_sends_the_expanded_prompts_pi_sends(tmp_path: Path) -> None:
    args = CLI_CASE["args"]
    e2e = Path(os.path.realpath(tmp_path)) / "e2e"
    work, agent, home = e2e / "work", e2e / "agent", e2e / "home"
    for directory in (work, agent, home):
        directory.mkdir(parents=True)
    check_ancestors(work)
    _write_tree(work, args["files"])
    _write_tree(agent, args["agentFiles"])

    system_prompts: list[str] = []
    requests: list[dict[str, Any]] = []
    for invocation in args["invocations"]:
        argv, prompts = _cli_argv(invocation)
        _, bodies = run_pith(argv, cwd=work, agent=agent, home=home, prompts=prompts)
        for body in bodies:
            prompt = system_prompt_of(body).replace(str(e2e), "<E2E>")
            if prompt not in system_prompts:
                system_prompts.append(prompt)
            user = _as_pi(user_text_of(body).replace(str(e2e), "<E2E>"))
            user = user.removeprefix(" ") if user.startswith(" /") else user
            requests.append({"system": system_prompts.index(prompt), "user": user})

    expected = CLI_CASE["result"]
    assert requests == expected["requests"]
    assert len(system_prompts) == len(expected["systemPrompts"])
    for ours, theirs in zip(system_prompts, expected["systemPrompts"], strict=True):
        assert_prompt_matches(ours, theirs)


# --- beyond golden.json: observed with the Pi 1.6.0 oracle, not yet recorded ------------------
# Both cases below were run through the oracle's `agentSessionSystemPrompt` (the same call as
# the `session` group); they belong in record_resources.py at the next re-recording.


def _bare_project(tmp_path: Path) -> tuple[Path, Path, Path]:
    """`(home, agent dir, project)` of an empty project; nothing needs trust."""
    home = Path(os.path.realpath(tmp_path)) / "home"
    agent, project = home / ".pith" / "agent", home / "proj"
    project.mkdir(parents=True)
    agent.mkdir(parents=True)
    check_ancestors(project)
    return home, agent, project


def test_tools_are_declared_in_the_order_given(tmp_path: Path) -> None:
    home, agent, project = _bare_project(tmp_path)
    _, (body,) = run_pith(
        ["-p", *MODEL, "--tools=ls,read", "hello"], cwd=project, agent=agent, home=home, prompts=1
    )
    # Pi 1.6: activeTools ['ls', 'read'], and the <tools> section in that order.
    assert tool_names_of(body) == ["ls", "read"]
    assert dict(split_sections(system_prompt_of(body)))["tools"] == (
        "<tools>\n- ls: List directory contents\n- read: Read file contents\n\n"
        "Additional tools may be available.\n</tools>"
    )


def test_project_default_tool_modifiers_extend_the_users_default_tools(tmp_path: Path) -> None:
    home, agent, project = _bare_project(tmp_path)
    (agent / "settings.json").write_text('{"defaultTools": ["read", "grep"]}\n')
    (project / ".pith").mkdir()
    (project / ".pith" / "settings.json").write_text('{"defaultTools": ["+ls"]}\n')
    _, (body,) = run_pith(
        ["-p", *MODEL, "--approve", "hello"], cwd=project, agent=agent, home=home, prompts=1
    )
    # Pi 1.6: activeTools ['read', 'grep', 'ls'] (untrusted: ['read', 'grep']).
    assert tool_names_of(body) == ["read", "grep", "ls"]
