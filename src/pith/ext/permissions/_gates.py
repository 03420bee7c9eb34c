"""Whether one tool call may run: the gates, in order, and the most restrictive answer.

Gates, in this order (pi-permission-system's, with pith's stronger path handling; see
docs/permissions.md, "How a call is judged"):

1. **skill**: reading a file of a skill whose name the `skill` surface denies or asks about;
2. **path**: the `path` surface on the path the tool touches (its `path` argument);
3. **external_directory**: that path when it is outside the working directory (resolved);
4. **bash paths**: every path a bash command reads or writes — operands, redirect targets,
   `cd` targets — through `path`, `external_directory`, and the own rules of `read` (for what
   it reads) or `write` and `edit` (for what it modifies), never the `*` fallback;
5. **tool**: the tool's own surface — each bash command unit on `bash` (a wrapper's allow
   becomes an ask), a path tool on its path, an MCP tool on its own surface, then `mcp`
   (`server:tool`, `server`), then `*`, any other tool on `*`.

A tool pith does not know (an MCP tool, an extension's) has no `path` of its own: the
arguments named like paths (`_path_arguments`) go through gates 1 to 3 and the control gate,
each as a possible write.

Every gate answers; the call gets the most restrictive answer (deny > ask > allow), and the
first gate giving it is the one reported. Pure policy: the only I/O is resolving paths and
the bash parse (`analyze_bash`).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from pith.ext.permissions._control import ControlArea, control_area, names_area, secret_area
from pith.ext.permissions._mcp import mcp_name
from pith.ext.permissions._path_arguments import MAX_PATH_ARGUMENTS, PathArgument, path_arguments
from pith.ext.permissions._paths import PathForms, path_forms, tool_path_forms
from pith.ext.permissions._rules import PATH_TOOLS, STRICTNESS, Rule, Ruleset, State, Verdict
from pith.ext.permissions._suggest import suggest_command, suggest_path

if TYPE_CHECKING:
    # The bash analysis is imported by the first bash call it judges: most of the gates'
    # weight, which a run that never calls bash (or never calls a tool) need not load.
    from pith.ext.permissions._bash import BashAnalysis, CommandUnit, PathAccess

__all__ = ["Decision", "Finding", "Gate", "Situation", "decide", "decide_root", "tool_path"]

Gate = Literal["skill", "path", "external_directory", "control", "bash_path", "tool", "loop"]


@dataclass(frozen=True)
class Finding:
    """One gate's answer about one value."""

    state: State
    gate: Gate
    surface: str
    value: str
    """What was judged: a path, a command unit, `*`."""
    rule: Rule | None
    """The rule that answered (None for pith's own judgements: a command that cannot be
    parsed, an unresolved path, a repeated call)."""
    note: str | None = None
    """Why, when the rule alone does not say it (a wrapper, a path outside, ...)."""
    approve: tuple[tuple[str, str], ...] = ()
    """The `(surface, pattern)` rules that would allow this next time."""

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "decision": self.state,
            "gate": self.gate,
            "surface": self.surface,
            "value": self.value,
            "rule": None
            if self.rule is None
            else {
                "surface": self.rule.surface,
                "pattern": self.rule.pattern,
                "state": self.rule.state,
                "origin": self.rule.origin,
            },
        }
        if self.rule is not None and self.rule.reason and self.state == "deny":
            out["reason"] = self.rule.reason
        if self.note:
            out["note"] = self.note
        if self.approve:
            out["approve"] = [{"surface": s, "pattern": p} for s, p in self.approve]
        return out


@dataclass(frozen=True)
class Decision:
    state: State
    finding: Finding | None
    """The finding that decided (the first of the strictest); None when nothing had a say."""
    findings: tuple[Finding, ...] = ()
    """Every gate's answers, in gate order."""

    @property
    def asks(self) -> tuple[Finding, ...]:
        return tuple(finding for finding in self.findings if finding.state == "ask")


@dataclass(frozen=True)
class Situation:
    """What the gates need to know besides the rules and the call."""

    cwd: str
    home: str
    trusted_reads: tuple[str, ...] = ()
    """Folders pith itself reads from outside the project (the agent directory, skill
    folders): reading there is not an outside access."""
    skills: Mapping[str, str] = field(default_factory=dict)
    """Skill name → its folder, for the skill gate."""
    agent_dir: str | None = None
    """pith's agent directory (settings, trust store, keys): a control path."""
    package_dir: str | None = None
    """Where pith's own code is installed: a control path."""


def tool_path(tool: str, arguments: Mapping[str, object]) -> str | None:
    """The path a call touches: its `path` argument when it is non-empty text."""
    value = arguments.get("path")
    return value if isinstance(value, str) and value.strip() else None


def _finding(
    verdict: Verdict,
    gate: Gate,
    note: str | None = None,
    approve: tuple[tuple[str, str], ...] = (),
) -> Finding:
    return Finding(verdict.state, gate, verdict.surface, verdict.value, verdict.rule, note, approve)


def _inside_any(absolute: str, folders: Sequence[str]) -> bool:
    return any(absolute == f or absolute.startswith(f.rstrip("/") + "/") for f in folders)


def _trusted_read(forms: PathForms, situation: Situation) -> bool:
    target = forms.resolved or forms.absolute
    return _inside_any(target, situation.trusted_reads) or _inside_any(
        forms.absolute, situation.trusted_reads
    )


def _suggest_for(forms: PathForms) -> str:
    """The folder pattern to approve for a path: a path written with a trailing `/` names
    the folder itself (`/other/src/` → `/other/src/*`), any other its parent's contents."""
    return suggest_path(forms.resolved or forms.absolute, directory=forms.typed.endswith("/"))


def _path_findings(
    rules: Ruleset,
    forms: PathForms,
    situation: Situation,
    *,
    reading: bool,
    gate_path: Gate,
    gate_outside: Gate,
) -> list[Finding]:
    """The `path` and `external_directory` answers for one path."""
    out: list[Finding] = []
    pattern = _suggest_for(forms)
    verdict = rules.path("path", forms, fallback=False)
    if verdict is not None:
        out.append(_finding(verdict, gate_path, approve=(("path", pattern),)))
    harmless = forms.harmless_read or _trusted_read(forms, situation)
    if forms.outside and not (reading and harmless):
        verdict = rules.path("external_directory", forms, fallback=False)
        if verdict is not None:
            out.append(
                _finding(
                    verdict,
                    gate_outside,
                    f"outside the working directory: {forms.shown}",
                    approve=(("external_directory", pattern),),
                )
            )
    return out


def _control_findings(
    rules: Ruleset, forms: PathForms, situation: Situation, surfaces: Sequence[str]
) -> list[Finding]:
    """An ask for a change to a control path (see `_control`), unless the user allowed that
    path by a rule that names it."""
    area = control_area(
        forms,
        home=situation.home,
        agent_dir=situation.agent_dir,
        package_dir=situation.package_dir,
    )
    if area is None or _named_allow(rules, forms, situation, area, surfaces):
        return []
    exact = forms.resolved or forms.absolute
    return [
        Finding(
            "ask",
            "control",
            surfaces[0],
            forms.typed,
            None,
            f"{forms.shown} is {area.what}; changing it changes what pith allows or runs, so "
            "a broad rule does not allow it",
            approve=((surfaces[0], exact),),
        )
    ]


def _named_allow(
    rules: Ruleset,
    forms: PathForms,
    situation: Situation,
    area: ControlArea,
    surfaces: Sequence[str],
) -> bool:
    """Whether one of the user's own rules on `surfaces` allows `forms` by naming `area`."""
    for surface in surfaces:
        verdict = rules.path(surface, forms, fallback=False)
        if (
            verdict is not None
            and verdict.state == "allow"
            and not verdict.rule.project
            and names_area(verdict.rule.pattern, area, cwd=situation.cwd, home=situation.home)
        ):
            return True
    return False


def _secret_findings(
    rules: Ruleset,
    forms: PathForms,
    situation: Situation,
    surfaces: Sequence[str],
    *,
    contents: bool,
) -> list[Finding]:
    """An ask for a read of the agent directory's key files (see `_control`), unless the user
    allowed that path by a rule that names it."""
    area = secret_area(forms, agent_dir=situation.agent_dir, contents=contents)
    if area is None or _named_allow(rules, forms, situation, area, surfaces):
        return []
    return [
        Finding(
            "ask",
            "control",
            surfaces[0],
            forms.typed,
            None,
            f"{forms.shown} is {area.what}; reading it is always asked, a broad rule does not "
            "allow it",
            approve=((surfaces[0], area.folder or forms.absolute),),
        )
    ]


def _skill_findings(rules: Ruleset, forms: PathForms, situation: Situation) -> list[Finding]:
    target = forms.resolved or forms.absolute
    out = []
    for name, folder in situation.skills.items():
        if _inside_any(target, (folder,)) or _inside_any(forms.absolute, (folder,)):
            verdict = rules.command("skill", name)
            if verdict is not None and verdict.state != "allow":
                out.append(_finding(verdict, "skill", f"a file of the skill {name!r}"))
    return out


_READS_ONLY = frozenset({"read", "grep", "find", "ls"})
_WRITES = frozenset({"write", "edit"})
_READS_CONTENT = frozenset({"read", "grep"})
"""The path tools that read what files hold (`find` and `ls` only list names)."""


def _bash_path_findings(rules: Ruleset, access: PathAccess, situation: Situation) -> list[Finding]:
    """One path a bash command touches: `path`, `external_directory`, and the own rules of
    the file tools for what it does to it."""
    if access.directory is None and not access.path.startswith("/"):
        # After a `cd` to somewhere unknown, only the text as written can be judged.
        forms = PathForms(access.path, access.path, access.path, None, None, outside=False)
    else:
        forms = path_forms(access.path, situation.cwd, situation.home, access.directory)
    reading = access.mode == "read"
    out = _path_findings(
        rules, forms, situation, reading=reading, gate_path="bash_path", gate_outside="bash_path"
    )
    if reading:
        out.extend(_secret_findings(rules, forms, situation, ("read", "path"), contents=True))
    if access.mode == "write":
        out.extend(_control_findings(rules, forms, situation, ("write", "edit", "path")))
    elif access.directory is None and not access.path.startswith("/") and _outside_denied(rules):
        out.append(
            Finding(
                "ask",
                "bash_path",
                "external_directory",
                access.path,
                None,
                f"where {access.path} is depends on a folder only known when the command runs, "
                "and paths outside the working directory have a deny rule",
            )
        )
    surfaces = {"read": ("read",), "write": ("write", "edit")}.get(access.mode, ())
    pattern = _suggest_for(forms)
    for surface in surfaces:
        if rules.has_own_rules(surface):
            verdict = rules.path(surface, forms, own_only=True)
            if verdict is not None:
                note = f"`{access.command}` {'reads' if reading else 'modifies'} {access.path}"
                out.append(_finding(verdict, "bash_path", note, approve=((surface, pattern),)))
    return out


def _bash_findings(
    rules: Ruleset, command: str, analysis: BashAnalysis, situation: Situation
) -> list[Finding]:
    if analysis.error is not None:
        return [
            Finding(
                "ask",
                "tool",
                "bash",
                command,
                None,
                f"the command could not be parsed ({analysis.error}), so it cannot be judged",
            )
        ]
    out: list[Finding] = []
    for access in analysis.paths:
        out.extend(_bash_path_findings(rules, access, situation))
    unresolved = [
        operand
        for operand in analysis.unresolved_path_operands
        if _unresolved_matters(rules, analysis.unresolved_modes.get(operand, frozenset()))
    ]
    if unresolved:
        operands = ", ".join(unresolved)
        out.append(
            Finding(
                "ask",
                "bash_path",
                "bash",
                operands,
                None,
                f"paths that are only known when the command runs ({operands}) cannot be "
                "checked against the path rules",
            )
        )
    if not analysis.units:
        stripped = [
            line for line in command.splitlines() if line.strip() and line.strip()[:1] != "#"
        ]
        if stripped:
            out.append(
                Finding("ask", "tool", "bash", command, None, "no command could be recognized")
            )
        else:
            verdict = rules.command("bash", command)
            if verdict is not None:
                out.append(_finding(verdict, "tool"))
        return out
    for unit in analysis.units:
        verdicts = [rules.command("bash", text) for text in unit.texts]
        best: Verdict | None = None
        for verdict in verdicts:
            if verdict is not None and (
                best is None or STRICTNESS[verdict.state] > STRICTNESS[best.state]
            ):
                best = verdict
        approve = (("bash", suggest_command(unit.texts[0])),) if unit.texts else ()
        if best is None:
            continue
        guarded = unit.wrapper == "control" or _privileged(unit)
        if best.state == "allow" and guarded and not _names_command(best):
            out.append(_guarded(unit, best, approve))
            continue
        if unit.wrapper == "control":
            out.append(_finding(best, "tool", approve=approve))
            continue
        if unit.wrapper is not None and best.state == "allow" and _floors(unit.wrapper, rules):
            kind = "runs a command it hides" if unit.wrapper == "opaque" else "runs another command"
            if unit.note:
                kind = unit.note
            out.append(
                Finding(
                    "ask",
                    "tool",
                    "bash",
                    best.value,
                    best.rule,
                    f"`{unit.source}` {kind}; a wrapper is never allowed without asking",
                    approve,
                )
            )
        else:
            out.append(_finding(best, "tool", approve=approve))
    return out


def _outside_denied(rules: Ruleset) -> bool:
    """Whether the configuration denies some path outside the working directory."""
    return any(
        rule.surface == "external_directory" and rule.state == "deny" and rule.origin != "default"
        for rule in rules.rules
    )


_MODE_SURFACES = {"read": ("read", "path"), "write": ("write", "edit", "path"), "access": ("path",)}


def _unresolved_matters(rules: Ruleset, modes: frozenset[str]) -> bool:
    """Whether a path only known at run time must be asked about: some rule could judge it —
    the own rules of the surfaces for what the command does to it (a read on `read` and
    `path`, a write on `write`, `edit` and `path`), or a deny on paths outside."""
    if _outside_denied(rules):
        return True
    surfaces = {s for mode in (modes or {"read", "write"}) for s in _MODE_SURFACES[mode]}
    return any(rules.has_own_rules(surface) for surface in surfaces)


def _privileged(unit: CommandUnit) -> bool:
    """`sudo …`, `doas …`, `su -c …`, `pkexec …`, `runuser …`: runs as another user."""
    from pith.ext.permissions._bash_wrappers import PRIVILEGE

    return any(text.split(" ", 1)[0].rsplit("/", 1)[-1] in PRIVILEGE for text in unit.texts)


def _names_command(verdict: Verdict) -> bool:
    """Whether the allow came from a rule of the user's that names the command (`sudo apt *`,
    `pith trust *`), not from `*` or the project's settings."""
    head = verdict.rule.pattern.split("*", 1)[0].split("?", 1)[0].strip()
    return bool(head) and not verdict.rule.project and verdict.rule.origin != "default"


def _guarded(unit: CommandUnit, best: Verdict, approve: tuple[tuple[str, str], ...]) -> Finding:
    if unit.wrapper == "control":
        why = f"`{unit.source}` runs {unit.note}" if unit.note else f"`{unit.source}`"
        note = f"{why}; only a rule naming this command allows it"
    else:
        note = f"`{unit.source}` runs a command as another user; only a rule naming it allows it"
    return Finding("ask", "tool", "bash", best.value, best.rule, note, approve)


def _floors(wrapper: str, rules: Ruleset) -> bool:
    """Whether a wrapper's allow becomes an ask. A command that hides what it runs (`eval`,
    `bash -c`, a name that is not literal) always asks. One that runs a visible command
    (`timeout`, `env`, `xargs`, …) — which is judged as well — asks only when bash commands
    are restricted at all (rules on `bash` or `*`): with nothing to get around, `timeout 60
    pytest` is as allowed as `pytest`."""
    if wrapper == "opaque":
        return True
    return rules.has_own_rules("bash") or rules.has_own_rules("*")


def _declared(parameters: Mapping[str, object] | None) -> frozenset[str] | None:
    """The argument names a schema declares; None when it declares none (any may come)."""
    properties = parameters.get("properties") if parameters is not None else None
    if not isinstance(properties, Mapping) or not properties:
        return None
    return frozenset(str(key) for key in properties)


def _about(finding: Finding, argument: PathArgument) -> Finding:
    """`finding`, saying which argument it is about."""
    where = f"the argument {argument.name}"
    return replace(finding, note=f"{where}; {finding.note}" if finding.note else where)


def _other_tool_findings(
    rules: Ruleset,
    tool: str,
    arguments: Mapping[str, object],
    situation: Situation,
    parameters: Mapping[str, object] | None,
) -> list[Finding]:
    """A tool pith does not know (an MCP tool, an extension's): the paths its arguments name
    (`_path_arguments`) through the skill, `path`, `external_directory` and control gates —
    as possible writes, since what the tool does with them is not known — and the tool's own
    answer (an MCP tool's: its own surface, then `mcp`, then `*`). An MCP server may read
    arguments its schema does not declare, so all of an MCP tool's arguments are read."""
    name = mcp_name(tool)

    def exists(value: str) -> bool:
        return os.path.lexists(tool_path_forms(tool, value, situation.cwd, situation.home).absolute)

    declared = None if name is not None else _declared(parameters)
    found, too_many = path_arguments(arguments, declared=declared, exists=exists)
    out: list[Finding] = []
    for argument in found:
        forms = tool_path_forms(tool, argument.path, situation.cwd, situation.home)
        here = [
            *_skill_findings(rules, forms, situation),
            *_path_findings(
                rules,
                forms,
                situation,
                reading=False,
                gate_path="path",
                gate_outside="external_directory",
            ),
            *_control_findings(rules, forms, situation, ("write", "edit", "path")),
        ]
        out.extend(_about(finding, argument) for finding in here)
    if too_many:
        note = f"more than {MAX_PATH_ARGUMENTS} paths, or arguments nested too deep to read"
        out.append(Finding("ask", "path", "path", "*", None, note))
    verdict = rules.mcp_tool(tool, name) if name is not None else rules.command(tool, "*")
    if verdict is not None:
        out.append(_finding(verdict, "tool", approve=((tool, "*"),)))
    return out


def decide_root(rules: Ruleset, folder: str, situation: Situation) -> Decision:
    """Whether an MCP server may be offered `folder` (absolute) as one of its roots: a root
    lets the server read and change what is inside, so the folder goes through the `path`,
    `external_directory` and control gates as a write would."""
    forms = path_forms(folder.rstrip("/") + "/", situation.cwd, situation.home)
    findings = [
        *_path_findings(
            rules,
            forms,
            situation,
            reading=False,
            gate_path="path",
            gate_outside="external_directory",
        ),
        *_control_findings(rules, forms, situation, ("write", "edit", "path")),
        *_holds_controls(forms, situation),
    ]
    return _combine(findings)


def _holds_controls(forms: PathForms, situation: Situation) -> list[Finding]:
    """An ask for a folder that holds pith's agent directory, its installed code or the
    user's git configuration: a root there points the server at them. The working
    directory itself is where the person chose to work: it does not ask."""
    folder = (forms.resolved or forms.absolute).rstrip("/") or "/"
    if folder == posixpath.normpath(situation.cwd):
        return []
    held = [
        path
        for path in (
            situation.agent_dir,
            situation.package_dir,
            posixpath.join(situation.home, ".gitconfig"),
            posixpath.join(situation.home, ".config", "git"),
        )
        if path is not None and _inside_any(path, [folder])
    ]
    if not held:
        return []
    return [
        Finding(
            "ask",
            "control",
            "path",
            forms.typed,
            None,
            f"{forms.shown} holds {held[0]}, which decides what pith allows or runs",
        )
    ]


def decide(
    rules: Ruleset,
    tool: str,
    arguments: Mapping[str, object],
    situation: Situation,
    *,
    analyze: Callable[[str, str, str], BashAnalysis] | None = None,
    parameters: Mapping[str, object] | None = None,
) -> Decision:
    """The decision for calling `tool` with `arguments`. `parameters`: the JSON schema of a
    tool pith does not know (None: not known, every argument is read for paths). `analyze`:
    what reads a bash command (default: `analyze_bash`)."""
    findings: list[Finding] = []
    path = tool_path(tool, arguments)
    if tool == "bash":
        command = arguments.get("command")
        text = command if isinstance(command, str) else ""
        if analyze is None:
            from pith.ext.permissions._bash import analyze_bash

            analyze = analyze_bash
        analysis = analyze(text, situation.cwd, situation.home)
        findings.extend(_bash_findings(rules, text, analysis, situation))
    elif tool not in PATH_TOOLS:
        findings.extend(_other_tool_findings(rules, tool, arguments, situation, parameters))
    elif path is not None:
        forms = tool_path_forms(tool, path, situation.cwd, situation.home)
        reading = tool in _READS_ONLY
        findings.extend(_skill_findings(rules, forms, situation))
        findings.extend(
            _path_findings(
                rules,
                forms,
                situation,
                reading=reading,
                gate_path="path",
                gate_outside="external_directory",
            )
        )
        if tool in _WRITES:
            findings.extend(_control_findings(rules, forms, situation, (tool, "path")))
        elif tool in _READS_CONTENT:
            findings.extend(
                _secret_findings(
                    rules, forms, situation, (tool, "read", "path"), contents=tool == "grep"
                )
            )
        verdict = rules.path(tool, forms)
        if verdict is not None:
            findings.append(_finding(verdict, "tool", approve=((tool, _suggest_for(forms)),)))
    else:
        verdict = rules.command(tool, "*")
        if verdict is not None:
            findings.append(_finding(verdict, "tool", approve=((tool, "*"),)))
    return _combine(findings)


_GATE_ORDER: dict[Gate, int] = {
    "loop": 0,
    "skill": 1,
    "path": 2,
    "external_directory": 3,
    "control": 4,
    "bash_path": 5,
    "tool": 6,
}


def _combine(findings: list[Finding]) -> Decision:
    ordered = sorted(findings, key=lambda f: _GATE_ORDER[f.gate])
    best: Finding | None = None
    for finding in ordered:
        if best is None or STRICTNESS[finding.state] > STRICTNESS[best.state]:
            best = finding
    if best is None:
        return Decision("allow", None, tuple(ordered))
    return Decision(best.state, best, tuple(ordered))
