"""Rules and how one surface judges a value: the last matching rule wins.

A rule says `state` (allow / ask / deny) for values of `surface` matching `pattern`. Within a
surface the **last** matching rule wins (rules are kept in configuration order, defaults
first). The `*` surface is the fallback of tool surfaces: its rules answer only when none of
the tool's own rules matches, and never for `path` and `external_directory`, which have only
their own rules. An MCP tool (`mcp__<server>__<tool>`) has one more step between the two: the
`mcp` surface, on `server:tool` and `server` (`mcp_tool`).

Paths are judged in each lineage of their forms (`PathForms.lineages`: as written, as
resolved) — a relative pattern against the relative form, an absolute one against the absolute
form — and the most restrictive answer of the lineages is the surface's answer.
`external_directory` is about leaving the working directory, so it judges only the lineages
that leave it (a link inside the project pointing out is judged on its target).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from pith.ext.permissions._mcp import MCP_SURFACE, McpName, mcp_name, mcp_pattern_matches
from pith.ext.permissions._paths import PathForms
from pith.glob import command_matches, path_pattern

__all__ = [
    "NO_FALLBACK_SURFACES",
    "PATH_TOOLS",
    "STRICTNESS",
    "Rule",
    "Ruleset",
    "State",
    "Verdict",
    "strictest",
]

State = Literal["allow", "ask", "deny"]
STRICTNESS: dict[State, int] = {"allow": 0, "ask": 1, "deny": 2}

PATH_TOOLS = ("read", "write", "edit", "grep", "find", "ls")
"""The built-in tools whose rules are path patterns matched on the call's `path`."""
NO_FALLBACK_SURFACES = frozenset({"path", "external_directory"})


@dataclass(frozen=True)
class Rule:
    surface: str
    pattern: str
    state: State
    origin: str
    """Where it was written: `default`, a settings file, `session`, `--yes`."""
    reason: str | None = None
    """A deny's explanation, passed on to the model."""
    project: bool = False
    """Written in the project's settings (which may narrow the user's rules, never widen
    them, and never unlock a control path)."""

    def describe(self) -> str:
        """`read["*.env"]=deny (~/.pith/agent/settings.json)`."""
        return f'{self.surface}["{self.pattern}"]={self.state} ({self.origin})'


@dataclass(frozen=True)
class Verdict:
    """One surface's answer for one value, and the rule that gave it."""

    state: State
    surface: str
    value: str
    rule: Rule


def strictest(verdicts: Iterable[Verdict | None]) -> Verdict | None:
    """The most restrictive verdict (deny > ask > allow); the first of equals."""
    best: Verdict | None = None
    for verdict in verdicts:
        if verdict is not None and (
            best is None or STRICTNESS[verdict.state] > STRICTNESS[best.state]
        ):
            best = verdict
    return best


class Ruleset:
    """Rules in order (defaults, then each settings layer), and how surfaces judge values.

    `floor`: the rules without the project's layer. When given, a deny or ask that the user's
    own rules (not the defaults) give for a value is never weakened by the project's rules:
    the stricter answer wins, so a project may narrow what the user allows but never widen
    what the user denies or asks about."""

    def __init__(self, rules: Sequence[Rule], home: str, floor: Sequence[Rule] = ()) -> None:
        self.rules = list(rules)
        self.home = home
        self.floor_rules = list(floor)
        self._floor = Ruleset(floor, home) if floor else None
        self._by_surface: dict[str, list[Rule]] = {}
        for rule in self.rules:
            self._by_surface.setdefault(rule.surface, []).append(rule)
        self._lists: dict[tuple[str, bool, bool], list[Rule]] = {}

    def _for(self, surface: str, *, fallback: bool, own_only: bool = False) -> list[Rule]:
        """The rules that speak for `surface`, in the order they are tried: the `*` surface's
        first when it falls back (so any rule of the surface's own beats them), then the
        surface's own; `own_only`: the surface's own configured rules, no defaults."""
        key = (surface, fallback, own_only)
        found = self._lists.get(key)
        if found is not None:
            return found
        own = [
            rule
            for rule in self._by_surface.get(surface, ())
            if not (own_only and rule.origin == "default")
        ]
        if not fallback or own_only or surface in NO_FALLBACK_SURFACES or surface == "*":
            found = own
        else:
            found = list(self._by_surface.get("*", ())) + own
        self._lists[key] = found
        return found

    def with_rules(self, extra: Sequence[Rule]) -> Ruleset:
        """These rules with `extra` after them (in the floor too): session approvals."""
        floor = [*self.floor_rules, *extra] if self.floor_rules else []
        return Ruleset([*self.rules, *extra], self.home, floor)

    def _floored(self, verdict: Verdict | None, below: Verdict | None) -> Verdict | None:
        """`verdict`, unless the user's own rules (`below`) are stricter."""
        if below is None or below.rule.origin == "default" or below.state == "allow":
            return verdict
        if verdict is None or STRICTNESS[below.state] > STRICTNESS[verdict.state]:
            return below
        return verdict

    def has_own_rules(self, surface: str) -> bool:
        """Whether the configuration (not the defaults) says anything about `surface`."""
        return bool(self._for(surface, fallback=False, own_only=True))

    def _last_match(self, surface: str, value: str, *, fallback: bool) -> Verdict | None:
        for rule in reversed(self._for(surface, fallback=fallback)):
            if command_matches(rule.pattern, value, self.home):
                return Verdict(rule.state, surface, value, rule)
        return None

    def command(self, surface: str, value: str, *, fallback: bool = True) -> Verdict | None:
        """The last rule of `surface` whose pattern matches `value` (None: no rule does)."""
        found = self._last_match(surface, value, fallback=fallback)
        if self._floor is None:
            return found
        return self._floored(found, self._floor.command(surface, value, fallback=fallback))

    def _mcp_chain(self, tool: str, name: McpName) -> Verdict | None:
        own = self._last_match(tool, "*", fallback=False)
        if own is not None:
            return own
        for rule in reversed(self._for(MCP_SURFACE, fallback=False)):
            if mcp_pattern_matches(rule.pattern, name, self.home):
                return Verdict(rule.state, MCP_SURFACE, name.value, rule)
        fallback = self._last_match("*", "*", fallback=False)
        return None if fallback is None else Verdict(fallback.state, tool, "*", fallback.rule)

    def mcp_tool(self, tool: str, name: McpName) -> Verdict | None:
        """An MCP tool's own answer: the first of its own surface (`mcp__git__git_commit`),
        the `mcp` surface on `server:tool` and `server`, and `*` that has a matching rule —
        the most specific rule speaks. The user's own rules, judged the same way, are the
        floor a project's rules cannot go below."""
        found = self._mcp_chain(tool, name)
        if self._floor is None:
            return found
        return self._floored(found, self._floor.mcp_tool(tool, name))

    def path(
        self, surface: str, forms: PathForms, *, fallback: bool = True, own_only: bool = False
    ) -> Verdict | None:
        """The most restrictive, over the lineages of `forms`, of the last matching rule."""
        rules = self._for(surface, fallback=fallback, own_only=own_only)
        verdicts: list[Verdict | None] = []
        lineages = forms.outside_lineages() if surface == "external_directory" else forms.lineages()
        for relative, absolute in lineages:
            found: Verdict | None = None
            for rule in reversed(rules):
                compiled = path_pattern(rule.pattern, self.home)
                value = absolute if compiled.kind == "absolute" else relative
                if compiled.matches(value):
                    found = Verdict(rule.state, surface, forms.typed, rule)
                    break
            verdicts.append(found)
        best = strictest(verdicts)
        if self._floor is None:
            return best
        below = self._floor.path(surface, forms, fallback=fallback, own_only=own_only)
        return self._floored(best, below)

    def state_of(self, surface: str, value: str) -> State:
        """`command(surface, value)`'s state; allow when no rule matches."""
        verdict = self.command(surface, value)
        return verdict.state if verdict is not None else "allow"

    def tool_state(self, tool: str) -> State:
        """A tool's own answer regardless of its arguments (used to offer it at all): its
        rules judged on the value `*` (an MCP tool's: `mcp_tool`); allow when none matches."""
        name = mcp_name(tool)
        verdict = self.mcp_tool(tool, name) if name is not None else self.command(tool, "*")
        return verdict.state if verdict is not None else "allow"
