"""Pruning and compaction measured in money, with the provider's prompt cache modelled.

    python bench/cost.py [--quick]

Providers bill a prompt prefix they have cached at a tenth of the input price (Anthropic also
bills writing it, at 1.25x), so a strategy that rewrites what was already sent can send fewer
tokens and still cost more. This bench replays the 150-call session of bench/prune.py (six
tasks of file reads, test runs and greps through the real `read` and `bash` tools) through the
fake model server with its prompt-cache model on (`"promptCache": true`, see
`pith.testing._cache`: Anthropic caches up to the `cache_control` breakpoints pith sends,
OpenAI caches the longest common prefix from 1 024 tokens in 128-token steps; tokens are
characters / 4 of each block's compact JSON), once per strategy and provider:

- `none`: no pruning, no compaction (the baseline);
- `mask`, `summarize`: the pruner's two strategies, compaction off;
- `budget`: `mask` with a budget trigger (`autoBudgetThreshold` 0.15), so the current task's
  older turns are masked mid-task too, compaction off;
- `compaction`: pith's automatic compaction (default settings), the pruner off;
- `default`: pith as it ships, the pruner (strategy unset: `summarize`, as the session has a
  model) and compaction both on with their defaults.

The providers are Anthropic's `claude-sonnet-4-5` (Messages API) and OpenAI's `gpt-5`
(Responses API, with `prompt_cache_key`), with the prices, context window and output cap of
pith's built-in entry for each. Every request is billed from the usage the server reported,
with pith's own `apply_cost` at those prices: the agent's turns, the pruner's summarizer calls
and the compaction summaries. The agent's turns are checked against pith's own accounting (the
cost on each stored assistant message), and the summarizer calls against the pruner's
`prune-stats`. Target: `default` costs at most 0.6x of `none` in money, for both providers.

`--quick` replays a 48-call session for Anthropic only (a smoke test).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import prune as session_bench
from _common import summary
from pith.ai import Model, ModelRegistry, Usage, apply_cost, builtin_models
from pith.app import AgentSession, SessionOptions, build_agent_session
from pith.compaction import SUMMARIZER_SYSTEM_PROMPT
from pith.ext.prune import register
from pith.extensions import ExtensionRunner, ExtensionSpec, load_extensions
from pith.resources import load_settings
from pith.session import SessionStore
from pith.testing import FakeServer, configure_agent_dir

AGENT_MARK = '"name":"bash","description"'
"""Only the agent's own requests declare the bash tool (in every wire format): summarizer and
compaction requests never get an agent turn, and an agent request never gets a summary."""
COMPACTION_MARK = SUMMARIZER_SYSTEM_PROMPT.splitlines()[0]

PROVIDERS: dict[str, tuple[str, str, str]] = {
    "anthropic": ("anthropic", "claude-sonnet-4-5", "anthropic-messages"),
    "openai": ("openai", "gpt-5", "openai-responses"),
}
STRATEGIES: dict[str, tuple[dict[str, object], dict[str, object]]] = {
    "none": ({"enabled": False}, {"enabled": False}),
    "mask": ({"strategy": "mask"}, {"enabled": False}),
    "summarize": ({"strategy": "summarize"}, {"enabled": False}),
    "budget": ({"strategy": "mask", "autoBudgetThreshold": 0.15}, {"enabled": False}),
    "compaction": ({"enabled": False}, {}),
    "default": ({}, {}),
}
"""strategy -> (`prune` settings, `compaction` settings)."""

CHECKPOINT = (
    "## Goal\nFix the failing pruner test, add `pith context --json`, investigate resumes.\n\n"
    "## Progress\n"
    + "".join(
        f"- Read src/pith/module_{k}.py: the function at line {10 * k} builds the request; "
        f"its caller in tests/test_{k}.py passes a stale list.\n"
        for k in range(40)
    )
    + "\n## Next Steps\n1. Run the whole suite.\n"
)
"""A compaction summary of realistic size (~1 000 tokens)."""

PRUNE_SUMMARY = (
    "Read and ran what the task needed: the outputs showed the relevant functions, their "
    "callers and a passing suite; nothing in them is needed verbatim."
)


def script_turns(tasks: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    turns = [{**turn, "match": [AGENT_MARK]} for task in tasks for turn in task]
    turns += [{"text": CHECKPOINT, "match": [COMPACTION_MARK]} for _ in range(40)]
    turns += [{"text": PRUNE_SUMMARY, "unless": [AGENT_MARK]} for _ in range(400)]
    return turns


def builtin(provider: str, model_id: str) -> Model:
    for model in builtin_models():
        if model.provider == provider and model.id == model_id:
            return model
    raise SystemExit(f"bench/cost.py: pith has no built-in model {provider}/{model_id}")


def open_session(
    root: Path,
    work: Path,
    server: FakeServer,
    price: Model,
    api: str,
    settings: dict[str, object],
    store: SessionStore,
) -> AgentSession:
    cost = price.cost
    agent = configure_agent_dir(
        root / "agent",
        server,
        model=price.id,
        api=api,
        contextWindow=price.context_window,
        maxTokens=price.max_tokens,
        cost={
            "input": cost.input,
            "output": cost.output,
            "cacheRead": cost.cache_read,
            "cacheWrite": cost.cache_write,
        },
    )
    (agent / "settings.json").write_text(json.dumps(settings))
    runner = ExtensionRunner(str(work), agent_dir=agent)
    spec = ExtensionSpec("prune", "builtin", "<prune>", lambda: register)  # type: ignore[arg-type,return-value]
    asyncio.run(load_extensions(runner, [spec]))
    registry = ModelRegistry.load(agent)
    return build_agent_session(
        cwd=str(work),
        store=store,
        registry=registry,
        model=registry.find(f"fake/{price.id}").model,
        thinking="off",
        options=SessionOptions(),
        extensions=runner,
        mode="interactive",
        ui=session_bench.NoticeUI(),
        settings=load_settings(agent),
    )


@dataclass
class Bill:
    """Tokens and dollars of one kind of request."""

    requests: int = 0
    input: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0
    usd: float = 0.0

    @property
    def prompt(self) -> int:
        return self.input + self.cache_read + self.cache_write

    def add(self, usage: Usage) -> None:
        self.requests += 1
        self.input += usage.input
        self.cache_read += usage.cache_read
        self.cache_write += usage.cache_write
        self.output += usage.output
        self.usd += usage.cost.total


@dataclass
class Run:
    provider: str
    strategy: str
    bills: dict[str, Bill] = field(default_factory=dict)
    largest: int = 0
    compactions: int = 0
    rewrites: int = 0
    """Agent requests that read under 90 % of what the agent request before left cached."""
    rewritten: int = 0
    """Tokens those requests had sent before and paid for again."""
    pith_agent_usd: float = 0.0
    """What pith's own accounting says the agent's turns cost (stored assistant messages)."""
    pith_summarizer_usd: float = 0.0
    """What the pruner's `prune-stats` says its summarizer cost."""

    @property
    def usd(self) -> float:
        return sum(bill.usd for bill in self.bills.values())

    @property
    def tokens(self) -> int:
        return sum(bill.prompt for bill in self.bills.values())


def kind_of(body: object) -> str:
    text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    if AGENT_MARK in text:
        return "agent"
    return "compaction" if COMPACTION_MARK in text else "summarizer"


def replay(root: Path, fixture: dict[str, list[str]], provider: str, strategy: str) -> Run:
    price_provider, model_id, api = PROVIDERS[provider]
    price = builtin(price_provider, model_id)
    prune, compaction = STRATEGIES[strategy]
    work = root / "work"
    prompts, tasks = session_bench.session_script(fixture)
    store = SessionStore.create(str(work), root / f"sessions-{provider}-{strategy}")
    run = Run(provider, strategy)
    script = {"promptCache": True, "turns": script_turns(tasks)}
    with FakeServer(script) as server:
        settings = {"prune": prune, "compaction": compaction}
        session = open_session(root, work, server, price, api, settings, store)
        session_bench.play(session, prompts)
        requests = server.requests
        problems = server.problems()
    if problems:
        raise SystemExit(f"bench/cost.py: {provider}/{strategy}: {problems[0]}")
    previous = 0
    for request in requests:
        logged = request.get("usage")
        if not isinstance(logged, dict):
            continue
        usage = apply_cost(
            price,
            Usage(
                input=logged["input"],
                output=logged["output"],
                cache_read=logged["cache_read"],
                cache_write=logged["cache_write"],
            ),
        )
        kind = kind_of(request["body"])
        run.bills.setdefault(kind, Bill()).add(usage)
        if kind == "agent":
            prompt = usage.input + usage.cache_read + usage.cache_write
            run.largest = max(run.largest, prompt)
            # What the request before left cached: Anthropic's read + write, OpenAI's whole
            # prompt. A read under 90 % of it re-sent part of a cached prefix (the cache's
            # steps and the body's JSON framing stay under that).
            if usage.cache_read < 0.9 * previous:
                run.rewrites += 1
                run.rewritten += previous - usage.cache_read
            previous = usage.cache_read + usage.cache_write if usage.cache_write else prompt
    if store.path is not None:
        for line in store.path.read_text().splitlines():
            entry = json.loads(line)
            message = entry.get("message") or {}
            if entry.get("type") == "message" and message.get("role") == "assistant":
                run.pith_agent_usd += message.get("usage", {}).get("cost", {}).get("total", 0)
            if entry.get("type") == "compaction":
                run.compactions += 1
            if entry.get("customType") == "prune-stats":
                run.pith_summarizer_usd = float(entry["data"].get("cost", 0))
    return run


def report(runs: list[Run]) -> dict[str, object]:
    figures: dict[str, object] = {}
    print(
        f"{'provider':<10} {'strategy':<11} {'requests':>8} {'input tok':>11} {'cache read':>11} "
        f"{'cache write':>11} {'output':>7} {'USD':>8} {'vs none':>8} {'tokens vs':>9}"
    )
    ratios: list[float] = []
    for run in runs:
        base = next(r for r in runs if r.provider == run.provider and r.strategy == "none")
        requests = sum(b.requests for b in run.bills.values())
        total = Bill()
        for bill in run.bills.values():
            total.input += bill.input
            total.cache_read += bill.cache_read
            total.cache_write += bill.cache_write
            total.output += bill.output
        money = run.usd / base.usd if base.usd else 0.0
        tokens = run.tokens / base.tokens if base.tokens else 0.0
        print(
            f"{run.provider:<10} {run.strategy:<11} {requests:>8} {total.input:>11,} "
            f"{total.cache_read:>11,} {total.cache_write:>11,} {total.output:>7,} "
            f"{run.usd:>8.3f} {money:>7.2f}x {tokens:>8.2f}x"
        )
        extras = [
            f"{kind}: {bill.requests} requests, {bill.prompt:,} tokens ({bill.cache_read:,} "
            f"read, {bill.cache_write:,} written), ${bill.usd:.3f}"
            for kind, bill in sorted(run.bills.items())
            if kind != "agent"
        ]
        if run.rewrites:
            extras.append(
                f"{run.rewrites} agent requests broke the cached prefix "
                f"(~{run.rewritten:,} tokens the request before had cached stopped matching)"
            )
        if run.compactions:
            extras.append(f"{run.compactions} compactions")
        agent = run.bills.get("agent", Bill())
        if abs(run.pith_agent_usd - agent.usd) > 1e-6:
            extras.append(f"pith's own accounting of the agent's turns: ${run.pith_agent_usd:.4f}")
        summarizer = run.bills.get("summarizer", Bill())
        if abs(run.pith_summarizer_usd - summarizer.usd) > 1e-6:
            extras.append(f"the pruner's prune-stats: ${run.pith_summarizer_usd:.4f}")
        for extra in extras:
            print(f"{'':<22} {extra}")
        key = f"{run.provider}_{run.strategy}"
        figures[f"{key}_usd"] = round(run.usd, 4)
        figures[f"{key}_tokens"] = run.tokens
        figures[f"{key}_money_ratio"] = round(money, 3)
        figures[f"{key}_token_ratio"] = round(tokens, 3)
        if run.strategy == "default":
            ratios.append(money)
    figures["default_money_ratio"] = round(max(ratios), 3) if ratios else "n/a"
    figures["target"] = "default_money_ratio<=0.6"
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a 48-call session, Anthropic only")
    args = parser.parse_args()
    providers = ["anthropic"] if args.quick else list(PROVIDERS)
    if args.quick:
        session_bench.CALLS = 48
    with tempfile.TemporaryDirectory(prefix="pith-bench-cost-") as temporary:
        root = Path(temporary)
        fixture = session_bench.build_fixture(root / "work")
        runs = [
            replay(root, fixture, provider, strategy)
            for provider in providers
            for strategy in STRATEGIES
        ]
    print(
        f"session: {session_bench.TASKS} tasks, {session_bench.CALLS} tool calls; "
        "tokens = characters / 4; prompt cache modelled per provider"
    )
    figures = report(runs)
    print(summary("cost", calls=session_bench.CALLS, **figures))


if __name__ == "__main__":
    main()
