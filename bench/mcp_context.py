"""What MCP tool definitions cost the context: every tool `direct` against every tool
`deferred` behind `tool_search`, on five servers and about 120 tools, measured on the requests
the real `pith -p` sends.

    python bench/mcp_context.py [--quick] [--json PATH] [--uses N]

The servers are MCP servers pith starts from an `mcp.json`, as a user's would be:

- `git` and `time`: the real `mcp-server-git` and `mcp-server-time` (PyPI, in the dev
  extras), on a fresh git repository;
- `everything` and `filesystem`: the real `@modelcontextprotocol/server-everything` and
  `@modelcontextprotocol/server-filesystem`, installed with `npm install` into a cache folder
  on the first run (the only network use); without npm, or with `--quick`, Sentry-like and
  filesystem-like servers from tests/mcp/tool_corpus.py take their place;
- `github`: 80 tools modelled on GitHub's server (tests/mcp/tool_corpus.py).

The tool-corpus servers are real MCP servers too (tests/mcp/servers/corpus.py): pith connects to
them over stdio and lists their tools like any other. Each run is `pith -p` against pith's fake
model server, with pith's system prompt, its default built-in tools, the MCP extension and the
permission system as a user has them; the fake model follows a script, and every figure comes
from the request bodies the fake server received. Tokens are characters / 4 of each body as
sent (compact JSON, the figure the fake server bills). Both request shapes are measured, OpenAI
chat completions and Anthropic messages (`--quick`: the OpenAI one only).

1. The first request: tokens of the `tools` field with all MCP tools `direct`, and with all
   `deferred` (only `tool_search` declared besides the built-ins), and their ratio.
2. A scripted task of N tool uses over the servers (some tools used twice). Direct: one
   request per use plus the final answer. Deferred: before the first use of a tool that no
   earlier search declared, the model calls `tool_search` with the words a person would use,
   which costs one more request; the tools found stay declared for the rest of the run (the
   session records them on its branch). The script is planned with the same ranking pith's
   `tool_search` uses (`pith.mcp.ToolIndex`), and the run checks the plan: a scripted call of a
   tool that the search did not declare fails and is reported as a problem. Reported per mode:
   requests, total input tokens over the task (definitions are re-sent with every request),
   and the searches whose top hits missed the wanted tool.

Target: deferred first-request tool tokens at most a tenth of direct, and fewer total tokens
over the task despite the extra requests.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.mcp.live_tools import ServerTools, list_tools
from tests.mcp.tool_corpus import SERVERS, server_tools

from _common import summary
from pith.mcp import TOOL_SEARCH_NAME, McpTool, ToolIndex, server_summary, tool_names
from pith.testing import FakeServer, configure_agent_dir, subprocess_env

ROOT = Path(__file__).resolve().parent.parent

NPM_PACKAGES = (
    "@modelcontextprotocol/server-everything",
    "@modelcontextprotocol/server-filesystem",
)
NPM_CACHE = Path(tempfile.gettempdir()) / "pith-bench-mcp-npm"
CORPUS_SERVER = ROOT / "tests" / "mcp" / "servers" / "corpus.py"
APIS = ("openai-completions", "anthropic-messages")
PROMPT = "Ship the fix."
RUN_TIMEOUT = 600
"""A hang guard for one `pith -p` run, never a measure."""

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
    """One server as `mcp.json` names it, and the tools it listed (for planning the script)."""

    name: str
    source: str
    entry: dict[str, object]
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


def server(name: str, source: str, entry: dict[str, Any]) -> Server:
    """Start the server once to read its tools and instructions, as pith will see them."""
    cwd = entry.get("cwd")
    listed = list_tools(entry["command"], entry.get("args", []), Path(cwd) if cwd else None)
    summary_text = server_summary(entry.get("description"), listed.instructions)
    return Server(name, source, entry, mcp_tools(name, listed), summary_text)


def corpus_server(name: str, note: str = "synthesized") -> Server:
    """A tool-corpus server: its tools are known here, so it need not be started to plan."""
    summary_text, specs = SERVERS[name]
    entry = {"command": sys.executable, "args": [str(CORPUS_SERVER), name]}
    return Server(name, note, entry, server_tools(name, specs), summary_text)


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


def make_repo(repo: Path) -> None:
    """A repository with one commit and one changed file, for the git and filesystem tools."""
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "README.md").write_text("# demo\n")
    for args in (
        ["config", "user.email", "bench@example.com"],
        ["config", "user.name", "Bench"],
        ["add", "README.md"],
        ["commit", "-q", "-m", "Start"],
    ):
        subprocess.run(["git", "-C", str(repo), *args], check=True)
    (repo / "README.md").write_text("# demo\n\nA change.\n")


def build_servers(root: Path, quick: bool) -> list[Server]:
    repo = root / "repo"
    make_repo(repo)
    python = sys.executable
    live: list[tuple[str, str, dict[str, Any]]] = [
        (
            "git",
            "live: mcp-server-git",
            {"command": python, "args": ["-m", "mcp_server_git", "--repository", str(repo)]},
        ),
        ("time", "live: mcp-server-time", {"command": python, "args": ["-m", "mcp_server_time"]}),
    ]
    everything = None if quick else npm_bin(NPM_PACKAGES[0])
    filesystem = None if quick else npm_bin(NPM_PACKAGES[1])
    if everything is not None:
        entry = {"command": str(everything), "args": ["stdio"], "cwd": str(root)}
        live.append(("everything", "live: " + NPM_PACKAGES[0], entry))
    if filesystem is not None:
        entry = {"command": str(filesystem), "args": [str(repo)], "cwd": str(root)}
        live.append(("filesystem", "live: " + NPM_PACKAGES[1], entry))
    with ThreadPoolExecutor() as pool:
        servers = list(pool.map(lambda spec: server(*spec), live))
    if everything is None:
        servers.append(corpus_server("sentry", "synthesized (stand-in for everything)"))
    if filesystem is None:
        servers.append(corpus_server("filesystem"))
    servers.append(corpus_server("github"))
    return servers


# --- the script the fake model follows ---------------------------------------------------------


def example_value(schema: object, name: str, repo: Path) -> object:
    if not isinstance(schema, dict):
        return "x"
    if name in ("repo_path", "path"):
        return str(repo / "README.md") if name == "path" else str(repo)
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        for variant in schema.get(key, []):
            if isinstance(variant, dict) and variant.get("type") != "null":
                return example_value(variant, name, repo)
    kind = schema.get("type")
    if kind == "array":
        return [example_value(schema.get("items"), name, repo)]
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        return {
            key: example_value(properties.get(key), key, repo) for key in schema.get("required", [])
        }
    return {"integer": 1, "number": 1, "boolean": False, "array": [], "object": {}}.get(
        kind if isinstance(kind, str) else "string", "x"
    )


def example_arguments(tool: McpTool, repo: Path) -> dict[str, object]:
    """Arguments the tool's schema accepts: every required field, with a value of its type
    (paths inside the benchmark's repository, so no call asks for permission)."""
    value = example_value(dict(tool.input_schema), "", repo)
    return value if isinstance(value, dict) else {}


def plan(
    uses: list[tuple[str, McpTool]],
    tools: list[McpTool],
    summaries: dict[str, str],
    deferred: bool,
    repo: Path,
) -> tuple[list[dict[str, Any]], int, list[str]]:
    """The fake model's turns, the number of searches and the searches that missed."""
    turns: list[dict[str, Any]] = []
    declared: set[str] = set()
    searches, misses = 0, []

    def search(query: str) -> None:
        nonlocal searches
        candidates = [t for t in tools if t.full_name not in declared]
        declared.update(hit.tool.full_name for hit in ToolIndex(candidates, summaries).rank(query))
        searches += 1
        turns.append({"tool_calls": [{"name": TOOL_SEARCH_NAME, "arguments": {"query": query}}]})

    for query, tool in uses:
        if deferred and tool.full_name not in declared:
            search(query)
            if tool.full_name not in declared:
                misses.append(f"{query!r} -> {tool.full_name}")
                search(tool.full_name)  # the model searches again by name; counted as a miss
        turns.append(
            {"tool_calls": [{"name": tool.full_name, "arguments": example_arguments(tool, repo)}]}
        )
    turns.append({"text": "All done."})
    return turns, searches, misses


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
    tool_errors: int = 0
    """Calls the servers answered with an error (the same in both modes: arguments made up
    from the schema); not a problem of the benchmark."""
    search_misses: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def tokens(value: object) -> int:
    return -(-len(json.dumps(value, separators=(",", ":"), ensure_ascii=False)) // 4)


def mcp_json(servers: list[Server], exposure: str) -> dict[str, object]:
    return {"mcpServers": {s.name: {**s.entry, "exposure": exposure} for s in servers}}


def run(
    api: str, mode: str, servers: list[Server], uses: list[tuple[str, McpTool]], root: Path
) -> Run:
    """One `pith -p` run of the task with every MCP tool `mode`, its requests measured."""
    tools = [tool for s in servers for tool in s.tools]
    summaries = {s.name: s.summary for s in servers}
    turns, searches, misses = plan(uses, tools, summaries, mode == "deferred", root / "repo")
    result = Run(api, mode, searches=searches, search_misses=misses)
    agent = root / f"agent-{api}-{mode}"
    agent.mkdir()
    (agent / "mcp.json").write_text(json.dumps(mcp_json(servers, mode)))
    with FakeServer({"turns": turns}) as fake:
        configure_agent_dir(agent, fake, api=api)
        done = subprocess.run(
            [sys.executable, "-m", "pith", "-p", "--mode", "json", "--model", "fake/m", PROMPT],
            cwd=root / "repo",
            env=subprocess_env(agent),
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
        )
        bodies = [
            r["body"]
            for r in fake.requests
            if str(r["path"]).endswith(("/chat/completions", "/messages"))
        ]
        result.problems += fake.problems()
        result.problems += [f"unused turn {n}" for n in fake.unused_turns()]
    if done.returncode != 0:
        result.problems.append(f"pith exited {done.returncode}: {done.stderr.strip()[-300:]}")
    for line in done.stdout.splitlines():
        event = json.loads(line) if line.startswith("{") else {}
        if event.get("type") != "tool_execution_end" or not event.get("isError"):
            continue
        text = "".join(b.get("text", "") for b in event["result"]["content"])
        if "not found" in text or event["toolName"] == TOOL_SEARCH_NAME:
            result.problems.append(f"{event['toolName']}: {text[:160]}")
        else:
            result.tool_errors += 1
    result.requests = len(bodies)
    if bodies:
        result.first_request_tokens = tokens(bodies[0])
        result.first_request_tool_tokens = tokens(bodies[0].get("tools", []))
    result.total_tokens = sum(tokens(body) for body in bodies)
    return result


def task_uses(servers: list[Server], count: int) -> list[tuple[str, McpTool]]:
    by_name = {(tool.server, tool.name): tool for s in servers for tool in s.tools}
    uses = [(query, by_name[(s, t)]) for query, s, t in TASK if (s, t) in by_name]
    return [uses[k % len(uses)] for k in range(count)]


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="no npm servers, a short task, one API"
    )
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    parser.add_argument("--uses", type=int, help=f"tool uses in the task (default {len(TASK)})")
    args = parser.parse_args(argv)
    uses_wanted = args.uses or (5 if args.quick else len(TASK))
    with tempfile.TemporaryDirectory(prefix="pith-bench-mcp-") as temp:
        root = Path(temp)
        servers = build_servers(root, args.quick)
        uses = task_uses(servers, uses_wanted)
        apis = APIS[:1] if args.quick else APIS
        runs = [
            run(api, mode, servers, uses, root) for api in apis for mode in ("direct", "deferred")
        ]
    tool_count = sum(len(server.tools) for server in servers)
    print(f"{'server':<12} {'tools':>5}  source")
    for server in servers:
        print(f"{server.name:<12} {len(server.tools):>5}  {server.source}")
    print(f"{'total':<12} {tool_count:>5}\n")
    print(f"task: {len(uses)} tool uses of {len({t.full_name for _, t in uses})} distinct tools\n")
    columns = ("1st tools tok", "1st req tok", "requests", "searches", "task tokens", "tool errors")
    print(f"{'api':<20} {'mode':<9} " + " ".join(f"{c:>13}" for c in columns))
    for r in runs:
        values = (r.first_request_tool_tokens, r.first_request_tokens, r.requests, r.searches)
        cells = " ".join(f"{v:>13}" for v in (*values, r.total_tokens, r.tool_errors))
        print(f"{r.api:<20} {r.mode:<9} {cells}")
    figures: dict[str, Any] = {
        "servers": [{"name": s.name, "tools": len(s.tools), "source": s.source} for s in servers],
        "tools": tool_count,
        "task_uses": len(uses),
        "runs": [asdict(r) for r in runs],
        "apis": {},
    }
    for api in dict.fromkeys(r.api for r in runs):
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
