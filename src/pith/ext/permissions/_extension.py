"""The permission system as an extension: it judges every tool call before it runs.

- `session_start`: read the `permission` sections of the settings layers (a section of the
  wrong shape refuses every tool call, saying why, until it is fixed: never fail open).
- A tool gate (`api.set_tool_gate`): a tool denied outright is never declared to the model,
  nor named in the system prompt, whenever it is registered or activated (an MCP server's
  tools arrive while the session runs).
- `before_agent_start`: learn the skills (their folders are pith's own reads; denied skills
  leave the prompt).
- `input`: `/skill:name` of a denied skill is refused.
- `tool_call`: the gates (`_gates.decide`), the loop guard (the same call three times in a
  row asks), approvals given this session (they only ever turn an ask into an allow), then the
  answer: allow; deny, naming the rule and its reason; ask — a question when a person is at
  the keyboard (once, this session, always, deny, deny with a reason), otherwise a refusal
  that says how to allow it. `--yes` (or `/permissions yes`) answers every question with
  allow; denies stay denies.
- `/permissions`: the effective rules and where each comes from.

Every decision goes to the review log (`_log.py`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pith.ext.permissions._config import (
    PermissionConfigError,
    build_ruleset,
    permission_layers,
)
from pith.ext.permissions._control import pith_package_dir
from pith.ext.permissions._gates import Decision, Finding, Situation, decide, decide_root
from pith.ext.permissions._log import LOG_NAME, ReviewLog, mask_secrets
from pith.ext.permissions._persist import add_allow_rule
from pith.ext.permissions._rules import Rule, Ruleset
from pith.ext.permissions._watch import ControlWatch
from pith.extensions import ExtensionAPI, ExtensionContext, InputResult, ToolCallDecision
from pith.extensions.events import BeforeAgentStart, Input, ToolCallEvent, ToolResultEvent
from pith.resources import PROJECT_SETTINGS, SETTINGS_FILE, SettingsWriteError

__all__ = ["Permissions", "describe_decision", "register"]

LOOP_LIMIT = 3
"""The same call with the same arguments this many times in a row asks first."""

ALLOW_ONCE = "Allow once"
DENY = "Deny"
DENY_WITH_REASON = "Deny, and tell the model why"


MCP_ROOTS_CHANNEL = "mcp:roots"
"""The bus message the MCP extension sends the first time a server asks for its roots:
`{"server": name, "roots": [absolute folder, ...]}`; what this extension removes from `roots`
is not offered."""


def _home() -> str:
    return os.path.expanduser("~")


def _what(finding: Finding) -> str:
    """`bash command "rm -rf x"`, `read of .env`, `the path /etc/hosts`."""
    if finding.surface == "bash" and finding.gate == "tool":
        return f"the bash command {finding.value!r}"
    if finding.gate == "loop":
        return f"another identical {finding.surface} call"
    if finding.surface in ("path", "external_directory") or finding.gate == "bash_path":
        return f"the path {finding.value!r}"
    if finding.surface == "mcp" and finding.gate == "tool":
        return f"the MCP tool {finding.value!r}"
    if finding.value == "*":
        return f"the tool {finding.surface!r}"
    return f"{finding.surface} {finding.value!r}"


def describe_decision(decision: Decision) -> str:
    """One line: what was judged, by which rule, and why."""
    finding = decision.finding
    if finding is None:
        return "allowed: no rule applies"
    parts = [f"{decision.state}: {_what(finding)}"]
    if finding.note:
        parts.append(f"({finding.note})")
    if finding.rule is not None and finding.rule.state == decision.state:
        parts.append(f"by the rule {finding.rule.describe()}")
    elif finding.rule is not None:
        # A broad allow that does not reach this far (a wrapper, a control path, pith's CLI).
        parts.append(f"— the rule {finding.rule.describe()} is not enough here")
    text = " ".join(parts)
    if finding.rule is not None and finding.rule.reason and decision.state == "deny":
        text += f". Reason: {finding.rule.reason}"
    return text


def _one_line(text: str) -> str:
    """`text` with its line breaks folded, for a notice on one stderr line."""
    return " ".join(text.split())


def _how_to_allow(asks: Sequence[Finding]) -> str:
    # One entry per surface, its patterns together: a surface named twice would be a repeated
    # key, which settings.json refuses (and JSON decoders would silently keep only the last).
    surfaces: dict[str, dict[str, str]] = {}
    for finding in asks:
        for surface, pattern in finding.approve:
            surfaces.setdefault(surface, {})[pattern] = "allow"
    rules = [
        f"{json.dumps(surface)}: {json.dumps(patterns, ensure_ascii=False)}"
        for surface, patterns in surfaces.items()
    ]
    where = (
        f"add {', '.join(rules)} to the permission section of settings.json, or " if rules else ""
    )
    return f"to allow it, {where}run pith with --yes"


@dataclass
class Permissions:
    """The extension's state for one pith process."""

    api: ExtensionAPI
    rules: Ruleset | None = None
    error: str | None = None
    session_rules: list[Rule] = field(default_factory=list)
    yes: bool = False
    skills: dict[str, str] = field(default_factory=dict)
    last_call: tuple[str, str] | None = None
    repeats: int = 0
    log: ReviewLog | None = None
    layers: list[tuple[str, dict[str, object]]] = field(default_factory=list)
    trusted: bool = False
    watch: ControlWatch | None = None

    # --- set-up ------------------------------------------------------------------------------

    def load(self, ctx: ExtensionContext) -> None:
        """Read the rules from the settings layers (the user's, then a trusted project's)."""
        self.layers = ctx.settings_layers
        self.trusted = ctx.is_project_trusted()
        layers = permission_layers(self.layers, ctx.cwd)
        try:
            self.rules = build_ruleset(layers, _home())
            self.error = None
        except PermissionConfigError as error:
            self.rules = None
            self.error = str(error)
            ctx.ui.notify(f"{error}; every tool call is refused until it is fixed", "error")
        agent_dir = self.api.agent_dir
        self.watch = ControlWatch(agent_dir, ctx.cwd)
        if self.log is None:
            path = agent_dir / "logs" / LOG_NAME if agent_dir is not None else None
            self.log = ReviewLog(path, lambda message: ctx.ui.notify(message, "warning"))

    def notice_changes(self, tool: str, ctx: ExtensionContext) -> None:
        """Tell the person when a tool call changed pith's settings, trust or extensions."""
        if self.watch is None:
            return
        for path in self.watch.changes():
            ctx.ui.notify(
                f"the {tool} call changed {path}: pith's settings, trust or extensions changed "
                "during this run; this run keeps the rules it started with, the next start "
                "uses the new ones",
                "warning",
            )

    def situation(self, cwd: str) -> Situation:
        reads = [str(self.api.agent_dir)] if self.api.agent_dir is not None else []
        reads.extend(self.skills.values())
        agent_dir = str(self.api.agent_dir) if self.api.agent_dir is not None else None
        return Situation(
            cwd, _home(), tuple(reads), dict(self.skills), agent_dir, pith_package_dir()
        )

    def tool_allowed(self, name: str) -> bool:
        """The tool gate: False for a tool the rules deny outright."""
        return self.rules is None or self.rules.tool_state(name) != "deny"

    # --- deciding ----------------------------------------------------------------------------

    def judge(self, cwd: str, tool: str, arguments: Mapping[str, object]) -> Decision:
        """The decision before asking: rules, then this session's approvals, then the loop
        guard."""
        assert self.rules is not None
        situation = self.situation(cwd)
        known = self.api.get_tool(tool)
        schema = getattr(known, "parameters", None)
        parameters = schema if isinstance(schema, Mapping) else None
        decision = decide(self.rules, tool, arguments, situation, parameters=parameters)
        if decision.state == "ask" and self.session_rules:
            # Approvals only ever turn an ask into an allow: nothing here was denied.
            approved = Ruleset([*self.rules.rules, *self.session_rules], self.rules.home)
            decision = decide(approved, tool, arguments, situation, parameters=parameters)
        loop = self._loop(tool, arguments)
        if loop is not None and decision.state == "allow":
            return Decision("ask", loop, (loop, *decision.findings))
        return decision

    def _loop(self, tool: str, arguments: Mapping[str, object]) -> Finding | None:
        signature = (tool, json.dumps(arguments, sort_keys=True, default=str))
        self.repeats = self.repeats + 1 if signature == self.last_call else 1
        self.last_call = signature
        if self.repeats < LOOP_LIMIT:
            return None
        return Finding(
            "ask",
            "loop",
            tool,
            tool,
            None,
            f"the same {tool} call with the same arguments {self.repeats} times in a row; "
            "the model may be stuck",
        )

    def approve(self, asks: Sequence[Finding], origin: str) -> list[tuple[str, str]]:
        """Allow what `asks` asked about for the rest of this process."""
        added = []
        for finding in asks:
            for surface, pattern in finding.approve:
                if (surface, pattern) not in added:
                    added.append((surface, pattern))
                    self.session_rules.append(Rule(surface, pattern, "allow", origin))
        return added

    def settings_file(self, project: bool, cwd: str) -> Path | None:
        if project:
            return Path(cwd) / PROJECT_SETTINGS if self.trusted else None
        agent_dir = self.api.agent_dir
        return agent_dir / SETTINGS_FILE if agent_dir is not None else None

    async def ask(
        self, ctx: ExtensionContext, title: str, decision: Decision
    ) -> tuple[bool, str, str | None]:
        """Ask the person at the keyboard: `(allowed, how, reason for the model)`."""
        asks = decision.asks
        patterns = [pair for finding in asks for pair in finding.approve]
        shown = ", ".join(f"{surface} {pattern}" for surface, pattern in dict.fromkeys(patterns))
        options = [ALLOW_ONCE]
        if patterns and not any(f.gate == "loop" for f in asks):
            options.append(f"Allow for this session: {shown}")
            if self.trusted:
                options.append(f"Always allow in this project: {shown}")
            if self.api.agent_dir is not None:
                options.append(f"Always allow everywhere: {shown}")
        options += [DENY, DENY_WITH_REASON]
        answer = await ctx.ui.select(f"{title} {describe_decision(decision)}", options)
        if answer == ALLOW_ONCE:
            return True, "user: once", None
        if answer is not None and answer.startswith("Allow for this session"):
            self.approve(asks, "session")
            return True, "user: session", None
        if answer is not None and answer.startswith("Always allow"):
            project = "project" in answer
            target = self.settings_file(project, ctx.cwd)
            if target is not None:
                for surface, pattern in dict.fromkeys(patterns):
                    try:
                        add_allow_rule(target, surface, pattern)
                    except SettingsWriteError as error:
                        ctx.ui.notify(f"cannot save the rule: {error}", "error")
                        break
            self.approve(asks, str(target) if target else "session")
            return True, f"user: always ({'project' if project else 'user'})", None
        if answer == DENY_WITH_REASON:
            reason = await ctx.ui.input("Why? (the model is told)")
            return False, "user: deny", reason or None
        return False, "user: deny" if answer is not None else "no answer", None

    # --- the hooks ---------------------------------------------------------------------------

    async def on_tool_call(
        self, event: ToolCallEvent, ctx: ExtensionContext
    ) -> ToolCallDecision | None:
        arguments = event.input
        record: dict[str, object] = {
            "tool": event.tool_name,
            "toolCallId": event.tool_call_id,
            "input": mask_secrets(arguments),
            "cwd": ctx.cwd,
        }
        if self.rules is None:
            message = f"Permission configuration error: {self.error}. Fix it to use tools."
            self._log({**record, "decision": "deny", "how": "config error"})
            return ToolCallDecision(block=True, reason=message)
        decision = self.judge(ctx.cwd, event.tool_name, arguments)
        finding = decision.finding
        record.update(
            decision=decision.state,
            gate=finding.gate if finding else None,
            rule=finding.rule.describe() if finding and finding.rule else None,
        )
        if decision.state == "allow":
            self._log({**record, "how": "rule"})
            return None
        if decision.state == "deny":
            self._log({**record, "how": "rule"})
            if not ctx.has_ui:
                where = finding.rule.origin if finding and finding.rule else "settings.json"
                ctx.ui.notify(
                    _one_line(
                        f"refused {describe_decision(decision)}; to allow it, change that rule "
                        f"({where})"
                    ),
                    "warning",
                )
            return ToolCallDecision(
                block=True, reason=f"Permission denied: {describe_decision(decision)}"
            )
        if self.yes:
            self._log({**record, "decision": "allow", "how": "--yes"})
            return None
        if not ctx.has_ui:
            self._log({**record, "decision": "deny", "how": "no one to ask"})
            how = _how_to_allow(decision.asks)
            ctx.ui.notify(
                f"refused (no one to ask) {describe_decision(decision)}; {how}", "warning"
            )
            return ToolCallDecision(
                block=True,
                reason=(
                    f"Permission needed: {describe_decision(decision)}. There is no one to ask "
                    f"in this mode; {how}."
                ),
            )
        allowed, how, reason = await self.ask(ctx, f"Allow {event.tool_name}?", decision)
        self._log({**record, "decision": "allow" if allowed else "deny", "how": how})
        if allowed:
            return None
        text = f"Permission denied by the user: {_what(finding) if finding else event.tool_name}"
        return ToolCallDecision(block=True, reason=f"{text}. Reason: {reason}" if reason else text)

    async def on_mcp_roots(self, data: object) -> None:
        """The `mcp:roots` bus message: take out of `data["roots"]` the folders the server
        may not be offered (judged like a write there; asks as a tool call would)."""
        if not isinstance(data, dict) or not isinstance(data.get("roots"), list):
            return
        server = str(data.get("server"))
        ctx = self.api.context
        kept = []
        for folder in data["roots"]:
            if isinstance(folder, str) and await self._root_allowed(ctx, server, folder):
                kept.append(folder)
        data["roots"][:] = kept

    async def _root_allowed(self, ctx: ExtensionContext, server: str, folder: str) -> bool:
        record: dict[str, object] = {"mcpRoot": folder, "server": server, "cwd": ctx.cwd}
        what = f"the MCP server {server!r} is not offered the folder {folder} as a root"
        if self.rules is None:
            self._log({**record, "decision": "deny", "how": "config error"})
            ctx.ui.notify(f"{what}: the permission settings have an error", "warning")
            return False
        situation = self.situation(ctx.cwd)
        decision = decide_root(self.rules, folder, situation)
        if decision.state == "ask" and self.session_rules:
            approved = Ruleset([*self.rules.rules, *self.session_rules], self.rules.home)
            decision = decide_root(approved, folder, situation)
        record["decision"] = decision.state
        if decision.state == "allow" or (decision.state == "ask" and self.yes):
            self._log({**record, "how": "rule" if decision.state == "allow" else "--yes"})
            return True
        if decision.state == "deny":
            self._log({**record, "how": "rule"})
            ctx.ui.notify(_one_line(f"{what} ({describe_decision(decision)})"), "warning")
            return False
        if not ctx.has_ui:
            self._log({**record, "decision": "deny", "how": "no one to ask"})
            how = _how_to_allow(decision.asks)
            ctx.ui.notify(
                _one_line(f"{what} (no one to ask: {describe_decision(decision)}; {how})"),
                "warning",
            )
            return False
        title = f"Offer the MCP server {server!r} the folder {folder} as a root?"
        allowed, how, _ = await self.ask(ctx, title, decision)
        self._log({**record, "decision": "allow" if allowed else "deny", "how": how})
        return allowed

    def _log(self, record: dict[str, object]) -> None:
        if self.log is not None:
            self.log.write(record)

    def on_before_agent_start(self, event: BeforeAgentStart, ctx: ExtensionContext) -> None:
        options = event.system_prompt_options
        self.skills = {skill.name: skill.base_dir for skill in options.skills}
        if self.rules is None:
            return
        rules = self.rules
        options.skills = [
            skill for skill in options.skills if rules.state_of("skill", skill.name) != "deny"
        ]

    async def on_input(self, event: Input, ctx: ExtensionContext) -> InputResult | None:
        if not event.text.startswith("/skill:") or self.rules is None:
            return None
        words = event.text.removeprefix("/skill:").split(maxsplit=1)
        name = words[0] if words else ""
        verdict = self.rules.command("skill", name)
        if verdict is None or verdict.state == "allow" or self.yes:
            return None
        question = f"Use the skill {name!r}?"
        if (
            verdict.state == "ask"
            and ctx.has_ui
            and await ctx.ui.confirm(question, verdict.rule.describe())
        ):
            return None
        ctx.ui.notify(f"the skill {name!r} is not allowed ({verdict.rule.describe()})", "error")
        return InputResult("handled")

    async def on_command(self, args: str, ctx: ExtensionContext) -> None:
        words = args.split()
        if words[:1] == ["yes"]:
            self.yes = words[1:2] != ["off"] if len(words) > 1 else not self.yes
            ctx.ui.notify(f"--yes is {'on' if self.yes else 'off'}")
            return
        ctx.ui.notify(self.report())

    def report(self) -> str:
        lines = ["Permission rules (later lines win within a surface):"]
        if self.error is not None:
            lines.append(f"  configuration error: {self.error}")
        rules = [*(self.rules.rules if self.rules else []), *self.session_rules]
        for rule in rules:
            reason = f" ({rule.reason})" if rule.reason else ""
            lines.append(f"  {rule.describe()}{reason}")
        files = [path for path, _ in self.layers] or ["(no settings file)"]
        lines.append(f"Settings: {', '.join(files)}")
        lines.append(f"--yes: {'on' if self.yes else 'off'}")
        return "\n".join(lines)


def register(api: ExtensionAPI) -> None:
    """Load the permission system (the `pith.extensions` entry point `permissions`)."""
    state = Permissions(api)
    api.register_flag(
        "yes",
        description="answer every permission question with allow for this run (denies stay)",
    )

    def on_start(event: object, ctx: ExtensionContext) -> None:
        state.yes = api.get_flag("yes") is True
        state.load(ctx)
        api.set_tool_gate(state.tool_allowed)

    def on_shutdown(event: object, ctx: ExtensionContext) -> None:
        state.session_rules.clear()

    def on_tool_result(event: ToolResultEvent, ctx: ExtensionContext) -> None:
        state.notice_changes(event.tool_name, ctx)

    api.on("session_start", on_start)
    api.on("session_shutdown", on_shutdown)
    api.on("before_agent_start", state.on_before_agent_start)
    api.on("input", state.on_input)
    api.on("tool_call", state.on_tool_call)
    api.on("tool_result", on_tool_result)
    api.events.on(MCP_ROOTS_CHANNEL, state.on_mcp_roots)
    api.register_command(
        "permissions",
        state.on_command,
        description="show the permission rules and where they come from; `yes` toggles --yes",
    )
