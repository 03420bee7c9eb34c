"""pith's system prompt equals Pi 1.6's, section for section, for the same inputs.

Golden data: the `system_prompt` group of tests/conformance/resources/golden.json, recorded
from Pi's `buildSystemPrompt` with the built-in tools' snippets and guidelines filled in.
Intended differences, normalized here: the `preamble` and `docs` sections are pith's own words;
the bash guideline names the `PITH_*` environment variables where Pi's names `PI_*`; project
folders are `.pith/` where Pi's are `.pi/`. `powershell` is not a pith tool, so the cases that
select it use a stand-in with Pi's snippet (they pin the rules logic, not the tool).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pith.resources import (
    ContextFile,
    Skill,
    SourceInfo,
    SystemPromptOptions,
    build_system_prompt_sections,
)
from pith.tools import builtin_tools

GOLDEN: dict[str, Any] = json.loads(
    (Path(__file__).parent / "resources" / "golden.json").read_text(encoding="utf-8")
)
CASES = [case for case in GOLDEN["cases"] if case["group"] == "system_prompt"]
BUILD = [
    pytest.param(case, id=case["id"].split("/")[1])
    for case in CASES
    if case["fn"] == "buildSystemPrompt" and "forceSystemPrompt" not in case["args"]
]
"""A forced prompt (`system_prompt/force`) is the whole prompt, not built from sections: in
pith it comes from an extension's `before_agent_start`, tested in tests/extensions."""
OWN_WORDS = {"preamble", "docs"}
_METADATA = next(c for c in CASES if c["fn"] == "builtinToolPromptMetadata")["result"]
PI_DEFAULT_TOOLS = ["read", "bash", "edit", "write"]


@dataclass
class StandIn:
    name: str
    prompt_snippet: str | None = None
    prompt_guidelines: tuple[str, ...] = field(default_factory=tuple)


POWERSHELL = StandIn(
    "powershell",
    _METADATA["toolSnippets"]["powershell"],
    tuple(rule.replace("PI_*", "PITH_*") for rule in _METADATA["toolGuidelines"]["powershell"]),
)


def _builtins() -> dict[str, Any]:
    # bash_env switches on the PITH_* guideline, as in a real session.
    return builtin_tools("/tmp", bash_env=dict)


def _tools(args: dict[str, Any]) -> list[Any]:
    builtins = _builtins()
    snippets = args.get("toolSnippets", {})
    guidelines = args.get("toolGuidelines", {})
    tools: list[Any] = []
    for name in args.get("selectedTools", PI_DEFAULT_TOOLS):
        if name in snippets or name in guidelines:
            tools.append(StandIn(name, snippets.get(name), tuple(guidelines.get(name, ()))))
        elif name in builtins:
            tools.append(builtins[name])
        elif name == "powershell":
            tools.append(POWERSHELL)
        else:
            tools.append(StandIn(name))
    return tools


ROOT = "/srv/fixture-root"
"""Where `<ROOT>` points: skill locations are XML-escaped, so the placeholder cannot stay."""


def _pith_path(path: str) -> str:
    return path.replace("<ROOT>", ROOT).replace("/.pi/", "/.pith/")


def _skill(raw: dict[str, Any]) -> Skill:
    path = _pith_path(raw["filePath"])
    return Skill(
        name=raw["name"],
        description=raw["description"],
        file_path=path,
        base_dir=_pith_path(raw["baseDir"]),
        source_info=SourceInfo(path, "local", "user", "top-level"),
        disable_model_invocation=raw["disableModelInvocation"],
    )


def _options(args: dict[str, Any]) -> SystemPromptOptions:
    return SystemPromptOptions(
        cwd=args["cwd"].replace("<ROOT>", ROOT),
        tools=_tools(args),
        hidden_tools=list(args.get("hiddenTools", [])),
        custom_prompt=args.get("customPrompt"),
        append=args.get("appendSystemPrompt", ""),
        extra_guidelines=list(args.get("promptGuidelines", [])),
        context_files=[
            ContextFile(_pith_path(file["path"]), file["content"])
            for file in args.get("contextFiles", [])
        ],
        skills=[_skill(skill) for skill in args.get("skills", [])],
        sections=dict(args.get("sections", {})),
        docs="pith docs",
    )


def _as_pi(sections: dict[str, str]) -> dict[str, str]:
    """pith's sections in Pi's words where they deliberately differ."""
    out = {}
    for name, text in sections.items():
        if name in OWN_WORDS:
            continue
        text = text.replace("PITH_*", "PI_*").replace("/.pith/", "/.pi/")
        out[name] = text.replace(ROOT, "<ROOT>")
    return out


@pytest.mark.parametrize("case", BUILD)
def test_sections_equal_pis(case: dict[str, Any]) -> None:
    args = case["args"]
    if "error" in case:
        with pytest.raises(ValueError, match=f"^{case['error']}$"):
            build_system_prompt_sections(_options(args))
        return
    ours = build_system_prompt_sections(_options(args))
    theirs = {name: text for name, text in case["result"]["sections"].items()}
    assert list(ours) == list(theirs)  # the same sections, in the same order
    assert _as_pi(ours) == {k: v for k, v in theirs.items() if k not in OWN_WORDS}


def test_builtin_tool_snippets_and_guidelines_equal_pis() -> None:
    (case,) = [case for case in CASES if case["fn"] == "builtinToolPromptMetadata"]
    builtins = _builtins()
    snippets = {name: tool.prompt_snippet for name, tool in builtins.items()}
    guidelines = {
        name: [rule.replace("PITH_*", "PI_*") for rule in tool.prompt_guidelines]
        for name, tool in builtins.items()
        if tool.prompt_guidelines
    }
    theirs = case["result"]
    assert snippets == {k: v for k, v in theirs["toolSnippets"].items() if k in builtins}
    assert guidelines == {k: v for k, v in theirs["toolGuidelines"].items() if k in builtins}
