"""Walking a bash syntax tree the way bash would run it (see `_bash`).

Statements thread a `State` (directories, literal variables) through lists, `&&` / `||`,
conditions and loops; subshells, pipelines, substitutions and background jobs get a copy that
does not leak out. Chains and pipelines are read as `pith.shell` flattens them. Each simple
command is expanded word by word (`pith.shell`) in each directory the shell may be in and
handed to `_bash_commands`, which records it and walks what it runs in turn; redirections and
file tests are `_bash_redirects`', assignments `_bash_assign`'s. Everything found lands in
one `Findings`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pith.ext.permissions._bash_argv import Arg, Unknown
from pith.ext.permissions._bash_assign import SHELL_STARTUP, Assignments
from pith.ext.permissions._bash_commands import Commands, Effect, call_texts
from pith.ext.permissions._bash_context import MAX_DEPTH, Context, Findings, Knowledge
from pith.ext.permissions._bash_redirects import Redirects
from pith.ext.permissions._bash_state import Flow, State
from pith.shell import (
    PIPE_OPS,
    Node,
    ShellSyntaxError,
    assignment_name,
    chain,
    child,
    children,
    expand_word,
    lone_process_substitution,
    parse_bash,
    parse_bash_leniently,
    source_slice,
    stages,
    string,
    word_text,
)

__all__ = ["Walker"]

_CODE = re.compile(r"\$\(|`")
_CODE_DELIMITER = "PITH_LITERAL_CODE_END"
_ARITHMETIC_NODES = frozenset({"ArithmCmd", "ArithmExp", "LetClause", "CStyleLoop"})
_ARITHMETIC_KEYS = frozenset({"Index", "Slice"})
_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-v"})


class Walker:
    """Walks one command (payloads included) and collects what it runs and touches in
    `findings`."""

    def __init__(self, home: str) -> None:
        self.findings = Findings()
        self.knowledge = Knowledge(home)
        self.redirects = Redirects(self, self.findings, self.knowledge)
        self.assignments = Assignments(self, self.findings, self.knowledge)
        self.commands = Commands(self, self.findings, self.knowledge)

    # --- scripts and statements ---

    def script(self, root: Node, data: bytes, state: State) -> Flow:
        """Walk the command whose tree is `root` (its source is `data`)."""
        self.knowledge.learn(root)
        stmts = children(root, "Stmts")
        context: Context = "top" if len(stmts) == 1 else "list"
        return self.stmts(stmts, state, data, context)

    def stmts(self, stmts: list[Node], state: State, data: bytes, context: Context) -> Flow:
        """Walk statements in order, each from where the one before may leave the shell."""
        flow = Flow.same(state)
        for index, stmt in enumerate(stmts):
            current = flow.either() if index else state
            flow = self._stmt(stmt, current, data, context)
        return flow

    def _stmt(self, stmt: Node, state: State, data: bytes, context: Context) -> Flow:
        if stmt.get("Background") is True or stmt.get("Coprocess") is True:
            self._statement(stmt, state, data, "background")
            return Flow.same(state)
        return self._statement(stmt, state, data, context)

    def _statement(self, stmt: Node, state: State, data: bytes, context: Context) -> Flow:
        source = source_slice(data, stmt)
        stdin = self.redirects.walk(children(stmt, "Redirs"), state, data, source)
        cmd = child(stmt, "Cmd")
        if cmd is None:
            return Flow.same(state)
        kind = cmd.get("Type")
        if kind == "CallExpr":
            return self._call(cmd, state, data, context, stdin)
        if kind == "BinaryCmd":
            return self._binary(stmt, cmd, state, data, context)
        if kind == "Subshell":
            self.stmts(children(cmd, "Stmts"), state, data, "subshell")
            return Flow.same(state)
        if kind == "Block":
            return self.stmts(children(cmd, "Stmts"), state, data, "group")
        if kind == "IfClause":
            return self._if(cmd, state, data)
        if kind == "WhileClause":
            return self._loop(lambda s: self._while(cmd, s, data), state)
        if kind == "ForClause":
            return self._for(cmd, state, data)
        if kind == "CaseClause":
            return self._case(cmd, state, data)
        if kind == "FuncDecl":
            return self._function(cmd, state, data)
        if kind == "TimeClause":
            return self._time(cmd, state, data, context)
        if kind == "CoprocClause":
            inner = child(cmd, "Stmt")
            if inner is not None:
                self._stmt(inner, state, data, "background")
            return Flow.same(state)
        if kind == "DeclClause":
            return self.assignments.declaration(cmd, state, data, context)
        text = source_slice(data, cmd)
        if kind in ("ArithmCmd", "LetClause", "TestClause"):
            self.nested(cmd, state, data, None)
            self.findings.unit((text,), context, None, text)
            if kind == "TestClause":
                self.redirects.file_tests(child(cmd, "X"), state, data, text)
            return Flow.same(state)
        # Something this walker does not model: judge it whole and never let it through.
        self.nested(cmd, state, data, None)
        self.findings.unit((text,), context, "opaque", text)
        return Flow.same(state.unknown())

    def _binary(self, stmt: Node, cmd: Node, state: State, data: bytes, context: Context) -> Flow:
        if string(cmd, "Op") in PIPE_OPS:
            # Every stage runs in a subshell of its own, from the same state.
            inner: Context = "pipeline" if context in ("top", "list") else context
            parts, ops = stages(stmt)
            for stage in parts if ops else ():
                self._stmt(stage, state, data, inner)
            return Flow.same(state)
        inner = "list" if context == "top" else context
        parts, ops = chain(stmt)
        if not ops:
            return Flow.same(state)  # a side is missing: nothing to walk
        flow = self._stmt(parts[0], state, data, inner)
        for op, member in zip(ops, parts[1:], strict=True):
            if op == "&&":
                right = self._stmt(member, flow.ok, data, inner)
                flow = Flow(right.ok, flow.fail.join(right.fail))
            else:
                right = self._stmt(member, flow.fail, data, inner)
                flow = Flow(flow.ok.join(right.ok), right.fail)
        return flow

    def _if(self, cmd: Node, state: State, data: bytes) -> Flow:
        cond = self.stmts(children(cmd, "Cond"), state, data, "control")
        then = self.stmts(children(cmd, "Then"), cond.ok, data, "control")
        other = child(cmd, "Else")
        if other is None:
            return Flow(then.ok.join(cond.fail), then.fail)
        if children(other, "Cond"):
            otherwise = self._if(other, cond.fail, data)
        else:
            otherwise = self.stmts(children(other, "Then"), cond.fail, data, "control")
        return Flow(then.ok.join(otherwise.ok), then.fail.join(otherwise.fail))

    def _loop(self, run: Callable[[State], Flow], state: State) -> Flow:
        """A body that runs any number of times: walk it again from where one pass may leave
        the shell, and give up on the directory if a pass moves it."""
        flow = run(state)
        after = state.join(flow.ok).join(flow.fail)
        if after != state:
            if after.dirs != state.dirs:
                after = after.lost()
            flow = run(after)
            after = after.join(flow.ok).join(flow.fail)
        return Flow.same(after)

    def _while(self, cmd: Node, state: State, data: bytes) -> Flow:
        cond = self.stmts(children(cmd, "Cond"), state, data, "control")
        enter = cond.fail if cmd.get("Until") is True else cond.ok
        body = self.stmts(children(cmd, "Do"), enter, data, "control")
        return Flow(body.either(), cond.either())

    def _for(self, cmd: Node, state: State, data: bytes) -> Flow:
        loop = child(cmd, "Loop")
        if loop is not None:
            self.nested(loop, state, data, None)
            name = child(loop, "Name")
            variable = string(name, "Value") if name is not None else None
            if variable is not None:
                state = State(state.dirs, {**state.variables, variable: None})
        return self._loop(lambda s: self.stmts(children(cmd, "Do"), s, data, "control"), state)

    def _case(self, cmd: Node, state: State, data: bytes) -> Flow:
        self.nested(child(cmd, "Word"), state, data, None)
        ok, fail = state, state
        for item in children(cmd, "Items"):
            self.nested(children(item, "Patterns"), state, data, None)
            branch = self.stmts(children(item, "Stmts"), state, data, "control")
            ok, fail = ok.join(branch.ok), fail.join(branch.fail)
        return Flow(ok, fail)

    def _function(self, cmd: Node, state: State, data: bytes) -> Flow:
        body = child(cmd, "Body")
        if body is None:
            return Flow.same(state)
        block = child(body, "Cmd")
        if block is not None and block.get("Type") == "Block" and not children(body, "Redirs"):
            flow = self.stmts(children(block, "Stmts"), state, data, "function")
        else:
            flow = self._stmt(body, state, data, "function")
        if flow.either().dirs != state.dirs:
            # Calling it later moves the shell somewhere this walk does not follow.
            state = state.lost()
        return Flow.same(state)

    def _time(self, cmd: Node, state: State, data: bytes, context: Context) -> Flow:
        inner = child(cmd, "Stmt")
        source = source_slice(data, cmd)
        if inner is None:
            self.findings.unit((source,), context, None, source)
            return Flow.same(state)
        self.findings.unit((source,), context, "indirection", source)
        return self._stmt(inner, state, data, "payload")

    # --- shell text inside other nodes ---

    def nested(
        self,
        node: object,
        state: State,
        data: bytes,
        context: Context | None,
        *,
        arithmetic: bool = False,
    ) -> None:
        """Walk the commands of every substitution inside `node` (each in a subshell). Inside
        arithmetic (`(( ))`, `$(( ))`, `let`, subscripts, offsets, `[[ -eq ]]`, `-v`) a quoted
        string is evaluated too (`(( 'a[$(cmd)]' ))` runs `cmd`): its substitutions are walked."""
        if isinstance(node, list):
            for item in node:
                self.nested(item, state, data, context, arithmetic=arithmetic)
            return
        if not isinstance(node, dict):
            return
        kind = node.get("Type")
        if kind in ("CmdSubst", "ProcSubst"):
            default: Context = "substitution" if kind == "CmdSubst" else "process_substitution"
            self.stmts(children(node, "Stmts"), state, data, context or default)
            return
        if arithmetic and kind in ("SglQuoted", "DblQuoted"):
            text = word_text({"Parts": [node]}, self.knowledge.scope(state, state.dirs[0]))
            if text is not None:
                self.literal_code(text, state)
        inner = arithmetic or kind in _ARITHMETIC_NODES or _arithmetic_test(node)
        for key, value in node.items():
            if isinstance(value, dict | list):
                evaluated = inner or key in _ARITHMETIC_KEYS
                self.nested(value, state, data, context, arithmetic=evaluated)

    def payload(self, text: str, state: State, context: Context) -> Flow | None:
        """Walk shell text a command runs; None when it does not parse."""
        if self.knowledge.depth >= MAX_DEPTH:
            return None
        try:
            tree = parse_bash_leniently(text)
        except ShellSyntaxError:
            return None
        self.knowledge.depth += 1
        try:
            self.knowledge.learn(tree.root)
            return self.stmts(tree.stmts, state, tree.data, context)
        finally:
            self.knowledge.depth -= 1

    def literal_code(self, text: str, state: State) -> None:
        """Walk the substitutions in a string that bash may evaluate later: arithmetic on a
        variable runs the `$(…)` in an array subscript of its value (`x='a[$(id)]'; ((x))`).
        The string is read as a here-document body, where only substitutions are special."""
        if not _CODE.search(text) or _CODE_DELIMITER in text:
            return
        try:
            tree = parse_bash(f": <<{_CODE_DELIMITER}\n{text}\n{_CODE_DELIMITER}\n")
        except ShellSyntaxError:
            return
        for redirect in children(tree.stmts[0], "Redirs") if tree.stmts else []:
            self.nested(child(redirect, "Hdoc"), State(state.dirs, {}), tree.data, "assignment")

    # --- simple commands ---

    def _call(
        self, cmd: Node, state: State, data: bytes, context: Context, stdin: str | None
    ) -> Flow:
        assigns, words = children(cmd, "Assigns"), children(cmd, "Args")
        self.nested(assigns, state, data, "assignment")
        self.nested(words, state, data, None)
        if not words:
            return self.assignments.only(cmd, assigns, state, data, context)
        source = source_slice(data, cmd)
        names = {assignment_name(assign) for assign in assigns}
        ok_dirs: list[str | None] = []
        effect = Effect()
        for directory in state.dirs:
            scope = self.knowledge.scope(state, directory)
            expansions = [expand_word(word, scope) for word in words]
            argv: list[Arg] = []
            for word, expansion in zip(words, expansions, strict=True):
                if expansion is None:
                    argv.append(Unknown(source_slice(data, word)))
                else:
                    argv += expansion.fields
            texts = call_texts(words, expansions, data)
            first = expansions[0]
            opaque_name = (
                (first is not None and first.globbed)
                or lone_process_substitution(words[0])
                or bool(names & SHELL_STARTUP)
            )
            one = self.commands.analyze(
                argv, texts, directory, context, source, stdin, None, opaque_name
            )
            ok_dirs.append(self.commands.chdir(directory, one))
            effect.shell_effect = effect.shell_effect or one.shell_effect
            effect.evals += one.evals
        variables = {**state.variables, **{assignment_name(a): None for a in assigns}}
        ok = State(tuple(dict.fromkeys(ok_dirs)), variables)
        fail = State(state.dirs, variables)
        if effect.shell_effect:
            ok, fail = ok.unknown(), fail.unknown()
        for text in dict.fromkeys(effect.evals):
            flow = self.payload(text, ok, "payload")
            ok, fail = (flow.ok, flow.fail) if flow is not None else (ok.unknown(), fail.unknown())
        return Flow(ok, fail)


def _arithmetic_test(node: Node) -> bool:
    """`[[ x -eq y ]]` (both sides are arithmetic) and `[[ -v name ]]` (a subscript)."""
    return node.get("Type") in ("BinaryTest", "UnaryTest") and (
        string(node, "Op") in _ARITHMETIC_TESTS
    )
