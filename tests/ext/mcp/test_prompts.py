"""MCP prompts as `/mcp__<server>__<prompt>` commands through the real `pith -p`, the toolbox
server (its `review` prompt takes `path`, required, and `focus`) and the fake model server;
the argument reading itself as a pure function."""

from __future__ import annotations

import json

from pith.ai import ImageContent, TextContent
from pith.ext.mcp._prompts import argument_completions, parse_prompt_arguments, prompt_text
from pith.testing import FakeServer, configure_agent_dir
from tests.ext.mcp.test_runs import Run, run, toolbox

__all__ = ["run"]


def last_user_text(request: dict[str, object]) -> str:
    body = request.get("body", request)
    assert isinstance(body, dict)
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else content[0]["text"]


def test_a_prompt_command_sends_the_prompt_as_the_users_message(run: Run) -> None:
    run.servers(box=toolbox())
    with FakeServer({"turns": [{"text": "reviewed"}]}) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith('/mcp__box__review path=a.py focus="error handling"')
        requests = server.requests
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "reviewed"
    assert last_user_text(requests[0]) == "Review a.py for error handling."


def test_a_missing_required_argument_is_one_line_and_nothing_is_sent(run: Run) -> None:
    run.servers(box=toolbox())
    with FakeServer({"turns": [{"text": "never"}]}) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("/mcp__box__review focus=style")
        requests = server.requests
    assert requests == []
    assert "/mcp__box__review needs path=…" in result.stderr
    assert "Traceback" not in result.stderr


def test_prompt_commands_are_remembered_for_the_next_run(run: Run) -> None:
    run.servers(box=toolbox())
    with FakeServer({"turns": [{"text": "one"}, {"text": "two"}]}) as server:
        configure_agent_dir(run.agent, server)
        first = run.pith("/mcp__box__review path=a.py")
        second = run.pith("/mcp__box__review path=b.py")
        requests = server.requests
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    cache = json.loads((run.agent / "mcp-prompts.json").read_text())
    assert [p["name"] for p in cache["servers"]["box"]] == ["review"]
    assert last_user_text(requests[1]) == "Review b.py for bugs."


def test_arguments_are_key_value_words_or_the_whole_text_for_one_argument() -> None:
    names, required = ["path", "focus"], ["path"]
    assert parse_prompt_arguments("path=a.py", names, required, "p").values == {"path": "a.py"}
    unknown = parse_prompt_arguments("colour=red path=a", names, required, "p")
    assert unknown.problem == "/p: no argument 'colour' (its arguments: path, focus)"
    bare = parse_prompt_arguments("a.py", names, required, "p")
    assert bare.problem == "/p: give arguments as key=value (path=… focus=…)"
    one = parse_prompt_arguments("fix the login bug", ["task"], ["task"], "p")
    assert one.values == {"task": "fix the login bug"}
    assert parse_prompt_arguments("", ["task"], ["task"], "p").problem == "/p needs task=…"
    quoted = parse_prompt_arguments("path='a b.py'", names, required, "p")
    assert quoted.values == {"path": "a b.py"}


def test_completion_offers_the_names_not_given_yet() -> None:
    assert argument_completions("", ["path", "focus"]) == ["path=", "focus="]
    assert argument_completions("path=a.py f", ["path", "focus"]) == ["path=a.py focus="]


def test_prompt_text_keeps_roles_when_the_prompt_has_several_and_counts_images() -> None:
    pixel = ImageContent(data="AAAA", mime_type="image/png")
    text, images = prompt_text(
        [("user", [TextContent(text="Q")]), ("assistant", [TextContent(text="A"), pixel])]
    )
    assert text == "[user]\nQ\n\n[assistant]\nA"
    assert images == 1
