"""Assignments and declarations: what `NAME=value`, `export`, `declare` and friends leave in the
shell's variables, and the units they are."""

from __future__ import annotations

from pith.ext.permissions._bash_argv import Wrapper
from pith.ext.permissions._bash_context import Context, Findings, Knowledge, Walking
from pith.ext.permissions._bash_state import Flow, State
from pith.shell import (
    Node,
    assignment_name,
    assignment_value,
    child,
    children,
    source_slice,
    string,
    word_text,
)

__all__ = ["SHELL_STARTUP", "Assignments"]

SHELL_STARTUP = frozenset({"BASH_ENV", "ENV"})
"""Variables naming a file every non-interactive shell runs first (`BASH_ENV=<(curl …)`)."""
_PLAIN_DECLARATIONS = ("declare", "typeset", "local", "export", "readonly")


class Assignments:
    """Applies assignments to the walk's state and records them as units."""

    def __init__(self, walker: Walking, findings: Findings, knowledge: Knowledge) -> None:
        self.walker = walker
        self.findings = findings
        self.knowledge = knowledge

    def assign(self, assign: Node, variables: dict[str, str | None], state: State) -> None:
        """Apply `NAME=value` (literal or not) to `variables`."""
        name = assignment_name(assign)
        if not name:
            return
        if child(assign, "Index") is not None or child(assign, "Array") is not None:
            variables[name] = None
            return
        current = State(state.dirs, variables)
        values = {
            assignment_value(child(assign, "Value"), self.knowledge.scope(current, d))
            for d in state.dirs
        }
        value = values.pop() if len(values) == 1 else None
        if assign.get("Append") is True:
            old = variables.get(name)
            value = None if value is None or old is None else old + value
        variables[name] = value
        if value is not None:
            self.walker.literal_code(value, state)

    def only(
        self, cmd: Node, assigns: list[Node], state: State, data: bytes, context: Context
    ) -> Flow:
        """A command made of assignments alone (`A=1 B=$A`): they stay in the shell."""
        source = source_slice(data, cmd)
        names = {assignment_name(a) for a in assigns}
        wrapper: Wrapper | None = "opaque" if names & SHELL_STARTUP else None
        self.findings.unit((source,), context, wrapper, source)
        variables = dict(state.variables)
        for assign in assigns:
            self.assign(assign, variables, state)
        return Flow.same(State(state.dirs, variables))

    def declaration(self, cmd: Node, state: State, data: bytes, context: Context) -> Flow:
        """`declare`, `typeset`, `local`, `export`, `readonly`, `nameref`."""
        self.walker.nested(cmd, state, data, "assignment")
        variant = child(cmd, "Variant")
        keyword = (string(variant, "Value") if variant is not None else None) or "declare"
        source = source_slice(data, cmd)
        names = {assignment_name(arg) for arg in children(cmd, "Args")}
        self.findings.unit((source,), context, "opaque" if names & SHELL_STARTUP else None, source)
        variables = dict(state.variables)
        plain = keyword in _PLAIN_DECLARATIONS
        dynamic = False
        first = self.knowledge.scope(state, state.dirs[0])
        for arg in children(cmd, "Args"):
            value_word = child(arg, "Value")
            if arg.get("Naked") is True and child(arg, "Name") is None and value_word:
                text = word_text(value_word, first)
                if text is None or "=" in text:
                    dynamic = True  # `declare "$spec"`, `export "A=1"`
                elif text[:1] in ("-", "+") and not set(text[1:]) <= set("xrgp"):
                    plain = False  # -n (nameref), -i, -l, -u, -a, -A transform values
        for arg in children(cmd, "Args"):
            name = assignment_name(arg)
            if not name:
                continue
            if arg.get("Naked") is True:
                if keyword not in ("export", "readonly"):
                    variables[name] = None
                continue
            self.assign(arg, variables, state)
            if not plain:
                variables[name] = None
        after = State(state.dirs, variables)
        if dynamic:
            after = after.unknown()
        return Flow.same(after)
