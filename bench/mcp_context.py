"""What MCP tool definitions cost the context: every tool `direct` against every tool
`deferred` behind `tool_search`, on five servers and about 120 tools.

    python bench/mcp_context.py [--quick] [--json PATH] [--uses N]

The servers, real where they can be:

- `git` and `time`: the real `mcp-server-git` and `mcp-server-time` (PyPI, in the dev
  extras), started over stdio through the official SDK's client; their tool lists as sent;
- `everything` and `filesystem`: the real `@modelcontextprotocol/server-everything` and
  `@modelcontextprotocol/server-filesystem`, installed with `npm install` into a cache folder
  on the first run (the only network use); without npm, or with `--quick`, Sentry-like and
  filesystem-like stand-ins from tests/mcp/tool_corpus.py take their place;
- `github`: 80 tools modelled on GitHub's server (tests/mcp/tool_corpus.py).

Each tool's definition is what pith declares (`pith.mcp.tool_spec`), beside pith's default
built-in tools. Every figure is measured on the real request bodies: pith's agent loop sends
them, through the OpenAI chat-completions and the Anthropic messages request builders, to
pith's fake model server over HTTP, and tokens are characters / 4 of each body as sent
(compact JSON, the figure the fake server bills).

1. The first request: tokens of the `tools` field with all MCP tools `direct`, and with all
   `deferred` (only `tool_search` declared besides the built-ins), and their ratio.
2. A scripted task of N tool uses over the servers (some tools used twice). Direct: one
   request per use plus the final answer. Deferred: before the first use of a tool that no
   earlier search declared, the model calls `tool_search` with the words a person would use,
   which costs one more request; the tools found stay declared for the rest of the run (as
   the session keeps them on its branch). Reported per mode: requests, total input tokens
   over the task (definitions are re-sent with every request), and the searches whose top
   hits missed the wanted tool.

Target: deferred first-request tool tokens at most a tenth of direct, and fewer total tokens
over the task despite the extra requests.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.mcp.live_tools import ServerTools, list_tools, python_script
from tests.mcp.tool_corpus import SERVERS, server_tools

from _common import summary
from pith.agent import AbortSignal, Agent, AgentOptions, Tool, ToolResult, UpdateCallback
from pith.agent import text_result as agent_text_result
from pith.ai import Model, TextContent, UserMessage
from pith.mcp import (
    TOOL_SEARCH_DESCRIPTION,
    TOOL_SEARCH_NAME,
    TOOL_SEARCH_PARAMETERS,
    McpTool,
    ToolIndex,
    search_limit,
    search_result_text,
    server_summary,
    tool_names,
    tool_spec,
)
from pith.testing import FakeServer
from pith.tools import DEFAULT_TOOL_NAMES, builtin_tools

NPM_PACKAGES = (
    "@modelcontextprotocol/server-everything",
    "@modelcontextprotocol/server-filesystem",
)
NPM_CACHE = Path(tempfile.gettempdir()) / "pith-bench-mcp-npm"
APIS = ("openai-completions", "anthropic-messages")
SYSTEM_PROMPT = "You are a coding agent. Use the tools to do what the user asks."

# (words the model searches with, server, tool): the scripted task, in order of use.
TASK: list[tuple[str, str, str]] = [
    ("git status", "git", "git_status"),
    ("show unstaged changes", "git", "git_diff_unstaged"),
    ("read a text file", "filesystem", "read_text_file"),
    ("edit file", "filesystem", "edit_file"),
    ("git status", "git", "git_status"),
    ("stage files", "git", "git_add"),
    ("commit changes", "git", "git_commit"),
    ("current time in a timezone", "time", "get_current_time"),
    ("open a pull request", "github", "create_pull_request"),
    ("check status of pr", "github", "get_pull_request_status"),
    ("failed ci job logs", "github", "get_job_logs"),
    ("edit file", "filesystem", "edit_file"),
    ("commit changes", "git", "git_commit"),
    ("merge pull request", "github", "merge_pull_request"),
    ("add a comment to an issue", "github", "add_issue_comment"),
]


@dataclass
class Server:
    name: str
    source: str
    tools: list[McpTool]
    summary: str = ""


def mcp_tools(server: str, listed: ServerTools) -> list[McpTool]:
    names = tool_names(server, [tool["name"] for tool in listed.tools])
    return [
        McpTool(
            server=server,
            name=tool["name"],
            full_name=names[tool["name"]],
            description=tool.get("description", ""),
            input_schema=tool["inputSchema"],
            exposure="deferred",
            annotations=tool.get("annotations", {}),
        )
        for tool in listed.tools
    ]


def live(name: str, source: str, command: str, args: list[str], cwd: Path | None) -> Server:
    listed = list_tools(command, args, cwd)
    return Server(name, source, mcp_tools(name, listed), server_summary(None, listed.instructions))


def corpus_server(name: str, note: str = "synthesized") -> Server:
    summary_text, specs = SERVERS[name]
    return Server(name, note, server_tools(name, specs), summary_text)


def npm_bin(package: str) -> Path | None:
    """The package's executable, installed into the cache folder when npm is there."""
    binary = (
        NPM_CACHE
        / "node_modules"
        / ".bin"
        / package.split("/")[-1].replace("server-", "mcp-server-")
    )
    if binary.exists():
        return binary
    if shutil.which("npm") is None:
        return None
    NPM_CACHE.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(NPM_CACHE), *NPM_PACKAGES],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        print(f"npm install failed, using stand-ins: {done.stderr.strip()[-200:]}", file=sys.stderr)
        return None
    return binary if binary.exists() else None


def build_servers(root: Path, quick: bool) -> list[Server]:
    repo = root / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    servers = []
    git = python_script("mcp-server-git")
    time = python_script("mcp-server-time")
    servers.append(
        live("git", "live: mcp-server-git", git, ["--repository", str(repo)], None)
        if git
        else corpus_server("git")
    )
    servers.append(
        live("time", "live: mcp-server-time", time, [], None) if time else corpus_server("time")
    )
    everything = None if quick else npm_bin(NPM_PACKAGES[0])
    filesystem = None if quick else npm_bin(NPM_PACKAGES[1])
    if everything is not None:
        servers.append(
            live("everything", "live: " + NPM_PACKAGES[0], str(everything), ["stdio"], root)
        )
    else:
        servers.append(corpus_server("sentry", "synthesized (stand-in for everything)"))
    if filesystem is not None:
        servers.append(
            live("filesystem", "live: " + NPM_PACKAGES[1], str(filesystem), [str(repo)], root)
        )
    else:
        servers.append(corpus_server("filesystem"))
    servers.append(corpus_server("github"))
    return servers


# --- the tools the agent loop runs -------------------------------------------------------------


def example_value(schema: object) -> object:
    if not isinstance(schema, dict):
        return "x"
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        for variant in schema.get(key, []):
            if isinstance(variant, dict) and variant.get("type") != "null":
                return example_value(variant)
    kind = schema.get("type")
    if kind == "array":
        return [example_value(schema.get("items"))]
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        return {name: example_value(properties.get(name)) for name in schema.get("required", [])}
    return {"integer": 1, "number": 1, "boolean": False, "array": [], "object": {}}.get(
        kind if isinstance(kind, str) else "string", "x"
    )


def example_arguments(tool: McpTool) -> dict[str, object]:
    """Arguments the tool's schema accepts: every required field, with a value of its type."""
    value = example_value(dict(tool.input_schema))
    return value if isinstance(value, dict) else {}


class StandIn:
    """An MCP tool as the agent loop sees it; answers with a short fixed result (both modes
    get the same results, so only the definitions differ)."""

    def __init__(self, tool: McpTool) -> None:
        spec = tool_spec(tool)
        self.name, self.label = spec.name, spec.name
        self.description, self.parameters = spec.description, spec.parameters

    async def execute(
        self,
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        return agent_text_result(f"{self.name}: done.")


class SearchTool:
    """`tool_search` for the benchmark: ranks the undeclared tools, declares the hits."""

    name = label = TOOL_SEARCH_NAME
    description = TOOL_SEARCH_DESCRIPTION
    parameters: ClassVar[dict[str, object]] = TOOL_SEARCH_PARAMETERS

    def __init__(
        self, agent_tools: dict[str, Tool], deferred: list[McpTool], summaries: dict[str, str]
    ):
        self.agent_tools, self.deferred, self.summaries = agent_tools, deferred, summaries

    async def execute(
        self,
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        query = str(args["query"])
        candidates = [t for t in self.deferred if t.full_name not in self.agent_tools]
        hits = ToolIndex(candidates, self.summaries).rank(query, search_limit(args.get("limit")))
        for hit in hits:
            self.agent_tools[hit.tool.full_name] = StandIn(hit.tool)
        return agent_text_result(search_result_text(query, hits))


# --- the runs ----------------------------------------------------------------------------------


@dataclass
class Run:
    api: str
    mode: str
    requests: int = 0
    first_request_tool_tokens: int = 0
    first_request_tokens: int = 0
    total_tokens: int = 0
    searches: int = 0
    search_misses: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def tokens(value: object) -> int:
    return -(-len(json.dumps(value, separators=(",", ":"), ensure_ascii=False)) // 4)


def plan(
    uses: list[tuple[str, McpTool]], tools: list[McpTool], summaries: dict[str, str], deferred: bool
) -> tuple[list[dict[str, Any]], int, list[str]]:
    """The fake model's turns, the number of searches and the searches that missed."""
    turns: list[dict[str, Any]] = []
    declared: set[str] = set()
    searches, misses = 0, []
    for k, (query, tool) in enumerate(uses):
        if deferred and tool.full_name not in declared:
            candidates = [t for t in tools if t.full_name not in declared]
            hits = ToolIndex(candidates, summaries).rank(query)
            declared |= {hit.tool.full_name for hit in hits}
            searches += 1
            turns.append(
                {
                    "tool_calls": [
                        {"id": f"s{k}", "name": TOOL_SEARCH_NAME, "arguments": {"query": query}}
                    ]
                }
            )
            if tool.full_name not in declared:
                misses.append(f"{query!r} -> {tool.full_name}")
                declared.add(tool.full_name)  # the model searches again by name; counted as a miss
                turns.append(
                    {
                        "tool_calls": [
                            {
                                "id": f"r{k}",
                                "name": TOOL_SEARCH_NAME,
                                "arguments": {"query": tool.full_name},
                            }
                        ]
                    }
                )
                searches += 1
        turns.append(
            {
                "tool_calls": [
                    {"id": f"c{k}", "name": tool.full_name, "arguments": example_arguments(tool)}
                ]
            }
        )
    turns.append({"text": "All done."})
    return turns, searches, misses


def run(
    api: str, mode: str, servers: list[Server], uses: list[tuple[str, McpTool]], work: Path
) -> Run:
    tools = [tool for server in servers for tool in server.tools]
    summaries = {server.name: server.summary for server in servers}
    deferred = mode == "deferred"
    turns, searches, misses = plan(uses, tools, summaries, deferred)
    result = Run(api, mode, searches=searches, search_misses=misses)
    agent_tools: dict[str, Tool] = {
        name: tool for name, tool in builtin_tools(str(work)).items() if name in DEFAULT_TOOL_NAMES
    }
    if not deferred:
        agent_tools.update({tool.full_name: StandIn(tool) for tool in tools})
    with FakeServer({"turns": turns}) as server:
        base = server.base_url if api == "openai-completions" else server.anthropic_base_url
        model = Model(id="fake-model", provider="fake", api=api, base_url=base, max_tokens=4096)
        agent = Agent(
            model=model,
            system_prompt=SYSTEM_PROMPT,
            tools=agent_tools,
            options=AgentOptions(api_key=lambda _: "fake-key"),
        )
        if deferred:
            # The agent keeps its own dict of tools; the search declares into that one.
            agent.tools[TOOL_SEARCH_NAME] = SearchTool(agent.tools, tools, summaries)
        asyncio.run(agent.prompt([UserMessage(content=[TextContent(text="Ship the fix.")])]))
        bodies = [
            r["body"]
            for r in server.requests
            if str(r["path"]).endswith(("/chat/completions", "/messages"))
        ]
        result.problems += server.problems()
        result.problems += [f"unused turn {n}" for n in server.unused_turns()]
    for message in agent.messages:
        if getattr(message, "role", None) == "toolResult" and getattr(message, "is_error", False):
            text = "".join(getattr(b, "text", "") for b in message.content)
            result.problems.append(f"{message.tool_name}: {text[:120]}")
    result.requests = len(bodies)
    if bodies:
        result.first_request_tokens = tokens(bodies[0])
        result.first_request_tool_tokens = tokens(bodies[0].get("tools", []))
    result.total_tokens = sum(tokens(body) for body in bodies)
    return result


def task_uses(servers: list[Server], count: int) -> list[tuple[str, McpTool]]:
    by_name = {(tool.server, tool.name): tool for server in servers for tool in server.tools}
    uses = [(query, by_name[(s, t)]) for query, s, t in TASK if (s, t) in by_name]
    return [uses[k % len(uses)] for k in range(count)]


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="no npm servers, a short task")
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    parser.add_argument("--uses", type=int, help=f"tool uses in the task (default {len(TASK)})")
    args = parser.parse_args(argv)
    uses_wanted = args.uses or (5 if args.quick else len(TASK))
    with tempfile.TemporaryDirectory(prefix="pith-bench-mcp-") as temp:
        root = Path(temp)
        servers = build_servers(root, args.quick)
        uses = task_uses(servers, uses_wanted)
        runs = [
            run(api, mode, servers, uses, root) for api in APIS for mode in ("direct", "deferred")
        ]
    tool_count = sum(len(server.tools) for server in servers)
    print(f"{'server':<12} {'tools':>5}  source")
    for server in servers:
        print(f"{server.name:<12} {len(server.tools):>5}  {server.source}")
    print(f"{'total':<12} {tool_count:>5}\n")
    print(f"task: {len(uses)} tool uses of {len({t.full_name for _, t in uses})} distinct tools\n")
    columns = ("1st tools tok", "1st req tok", "requests", "searches", "task tokens")
    print(f"{'api':<20} {'mode':<9} " + " ".join(f"{c:>13}" for c in columns))
    for r in runs:
        values = (r.first_request_tool_tokens, r.first_request_tokens, r.requests, r.searches)
        cells = " ".join(f"{v:>13}" for v in (*values, r.total_tokens))
        print(f"{r.api:<20} {r.mode:<9} {cells}")
    figures: dict[str, Any] = {
        "servers": [{"name": s.name, "tools": len(s.tools), "source": s.source} for s in servers],
        "tools": tool_count,
        "task_uses": len(uses),
        "runs": [asdict(r) for r in runs],
        "apis": {},
    }
    for api in APIS:
        direct, deferred = (
            next(r for r in runs if r.api == api and r.mode == m) for m in ("direct", "deferred")
        )
        figures["apis"][api] = {
            "first_request_tool_tokens_ratio": round(
                deferred.first_request_tool_tokens / direct.first_request_tool_tokens, 4
            ),
            "task_tokens_ratio": round(deferred.total_tokens / direct.total_tokens, 4),
            "extra_requests": deferred.requests - direct.requests,
        }
    problems = [
        f"{r.api}/{r.mode}: {p}"
        for r in runs
        for p in [*r.problems, *(f"search missed {m}" for m in r.search_misses)]
    ]
    for line in problems:
        print(f"problem: {line}", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    openai = figures["apis"]["openai-completions"]
    print()
    print(
        summary(
            "mcp_context",
            servers=len(servers),
            tools=tool_count,
            first_request_tool_ratio=openai["first_request_tool_tokens_ratio"],
            task_token_ratio=openai["task_tokens_ratio"],
            extra_requests=openai["extra_requests"],
            problems=len(problems),
            target="first<=0.1,task<1",
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
