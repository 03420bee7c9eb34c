"""Walking a bash syntax tree the way bash would run it (see `_bash`).

Statements thread a `State` (directories, literal variables) through lists, `&&` / `||`,
conditions and loops; subshells, pipelines, substitutions and background jobs get a copy that
does not leak out. Each simple command is expanded word by word (`pith.shell`) in
each directory the shell may be in, and its argv analyzed (`_bash_wrappers`, `_bash_files`); what
it runs — a wrapper's command, a `bash -c` / `eval` string, a here-document fed to a shell —
is walked in turn. The results are plain tuples that `_bash` turns into its public types.
"""

from __future__ import annotations

import itertools
import os
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from pith.ext.permissions._bash_argv import Arg, Facts, Mode, Origin, Unknown, Wrapper, basename
from pith.ext.permissions._bash_files import FILE_TESTS
from pith.ext.permissions._bash_scripts import ScriptText, read_script, shell_script_kind
from pith.ext.permissions._bash_state import Flow, State
from pith.ext.permissions._bash_wrappers import analyze_argv
from pith.shell import (
    Expansion,
    Node,
    Scope,
    ShellSyntaxError,
    assignment_name,
    assignment_value,
    child,
    children,
    expand_word,
    lone_process_substitution,
    parse_bash,
    parse_bash_leniently,
    source_slice,
    string,
    taint,
    word_text,
)

__all__ = ["Context", "PathTuple", "UnitTuple", "Walker"]

Context = Literal[
    "top",
    "list",
    "pipeline",
    "background",
    "subshell",
    "group",
    "control",
    "function",
    "substitution",
    "process_substitution",
    "assignment",
    "heredoc",
    "payload",
    "script",
]

UnitTuple = tuple[tuple[str, ...], Context, Wrapper | None, str, str | None]
"""A command unit: texts, context, wrapper, source, note."""
PathTuple = tuple[str, str | None, Mode, Origin, str]
"""A path access: path, directory, mode, origin, command."""

_MAX_DEPTH = 8
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://|[^/\s]+@[^/\s]+:")
_CODE = re.compile(r"\$\(|`")
_SHELL_STARTUP = frozenset({"BASH_ENV", "ENV"})
"""Variables naming a file every non-interactive shell runs first (`BASH_ENV=<(curl …)`)."""
_CODE_DELIMITER = "PITH_LITERAL_CODE_END"
_KEEPS_CONTENT = frozenset({"chmod", "chown", "chgrp", "touch"})
"""Commands that modify a file without changing what it says."""


@dataclass
class _Effect:
    """How one command changes the shell it runs in."""

    chdir: Arg | None = None
    chdir_unknown: bool = False
    shell_effect: bool = False
    evals: list[str] = field(default_factory=list)


class Walker:
    """Collects the units, paths and unresolved path words of one command (payloads
    included) in `units`, `paths` and `unresolved`, in the order found, without repeats."""

    def __init__(self, home: str) -> None:
        self.home = home
        self.units: dict[UnitTuple, None] = {}
        self.paths: dict[PathTuple, None] = {}
        self.unresolved: dict[str, set[Mode]] = {}
        self.tainted: frozenset[str] = frozenset()
        self.split_safe = True
        self.glob_safe = True
        self.cdpath = False
        self.depth = 0

    # --- output ---

    def _unit(
        self,
        texts: tuple[str, ...],
        context: Context,
        wrapper: Wrapper | None,
        source: str,
        note: str | None = None,
    ) -> None:
        self.units[texts, context, wrapper, source, note] = None

    def _unresolved(self, source: str, mode: Mode) -> None:
        self.unresolved.setdefault(source, set()).add(mode)

    def _path(
        self, path: str, directory: str | None, mode: Mode, origin: Origin, command: str
    ) -> None:
        if path:
            self.paths[path, directory, mode, origin, command] = None

    def _scope(self, state: State, directory: str | None) -> Scope:
        return Scope(
            state.variables,
            self.home,
            directory,
            self.tainted,
            self.split_safe,
            self.glob_safe,
        )

    # --- scripts and statements ---

    def script(self, root: Node, data: bytes, state: State) -> Flow:
        """Walk the command whose tree is `root` (its source is `data`)."""
        self._prepass(root)
        stmts = children(root, "Stmts")
        context: Context = "top" if len(stmts) == 1 else "list"
        return self._stmts(stmts, state, data, context)

    def _stmts(self, stmts: list[Node], state: State, data: bytes, context: Context) -> Flow:
        flow: Flow = (state, state)
        for index, stmt in enumerate(stmts):
            current = flow[0].join(flow[1]) if index else state
            flow = self._stmt(stmt, current, data, context)
        return flow

    def _stmt(self, stmt: Node, state: State, data: bytes, context: Context) -> Flow:
        if stmt.get("Background") is True or stmt.get("Coprocess") is True:
            self._statement(stmt, state, data, "background")
            return state, state
        return self._statement(stmt, state, data, context)

    def _statement(self, stmt: Node, state: State, data: bytes, context: Context) -> Flow:
        stdin = self._redirects(children(stmt, "Redirs"), state, data, source_slice(data, stmt))
        cmd = child(stmt, "Cmd")
        if cmd is None:
            return state, state
        kind = cmd.get("Type")
        if kind == "CallExpr":
            return self._call(cmd, state, data, context, stdin)
        if kind == "BinaryCmd":
            return self._binary(cmd, state, data, context)
        if kind == "Subshell":
            self._stmts(children(cmd, "Stmts"), state, data, "subshell")
            return state, state
        if kind == "Block":
            return self._stmts(children(cmd, "Stmts"), state, data, "group")
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
            return state, state
        if kind == "DeclClause":
            return self._declaration(cmd, state, data, context)
        if kind in ("ArithmCmd", "LetClause", "TestClause"):
            self._nested(cmd, state, data, None)
            self._unit((source_slice(data, cmd),), context, None, source_slice(data, cmd))
            if kind == "TestClause":
                self._tests(child(cmd, "X"), state, data, source_slice(data, cmd))
            return state, state
        # Something this walker does not model: judge it whole and never let it through.
        self._nested(cmd, state, data, None)
        self._unit((source_slice(data, cmd),), context, "opaque", source_slice(data, cmd))
        return state.unknown(), state.unknown()

    def _binary(self, cmd: Node, state: State, data: bytes, context: Context) -> Flow:
        op = string(cmd, "Op")
        left, right = child(cmd, "X"), child(cmd, "Y")
        if left is None or right is None:
            return state, state
        if op in ("|", "|&"):
            inner: Context = "pipeline" if context in ("top", "list") else context
            self._stmt(left, state, data, inner)
            self._stmt(right, state, data, inner)
            return state, state
        inner = "list" if context == "top" else context
        ok, fail = self._stmt(left, state, data, inner)
        if op == "&&":
            ok2, fail2 = self._stmt(right, ok, data, inner)
            return ok2, fail.join(fail2)
        ok2, fail2 = self._stmt(right, fail, data, inner)
        return ok.join(ok2), fail2

    def _if(self, cmd: Node, state: State, data: bytes) -> Flow:
        ok, fail = self._stmts(children(cmd, "Cond"), state, data, "control")
        then_ok, then_fail = self._stmts(children(cmd, "Then"), ok, data, "control")
        other = child(cmd, "Else")
        if other is None:
            return then_ok.join(fail), then_fail
        if children(other, "Cond"):
            else_ok, else_fail = self._if(other, fail, data)
        else:
            else_ok, else_fail = self._stmts(children(other, "Then"), fail, data, "control")
        return then_ok.join(else_ok), then_fail.join(else_fail)

    def _loop(self, run: Callable[[State], Flow], state: State) -> Flow:
        """A body that runs any number of times: walk it again from where one pass may leave
        the shell, and give up on the directory if a pass moves it."""
        ok, fail = run(state)
        after = state.join(ok).join(fail)
        if after != state:
            if after.dirs != state.dirs:
                after = after.lost()
            ok, fail = run(after)
            after = after.join(ok).join(fail)
        return after, after

    def _while(self, cmd: Node, state: State, data: bytes) -> Flow:
        ok, fail = self._stmts(children(cmd, "Cond"), state, data, "control")
        enter = fail if cmd.get("Until") is True else ok
        body_ok, body_fail = self._stmts(children(cmd, "Do"), enter, data, "control")
        return body_ok.join(body_fail), ok.join(fail)

    def _for(self, cmd: Node, state: State, data: bytes) -> Flow:
        loop = child(cmd, "Loop")
        if loop is not None:
            self._nested(loop, state, data, None)
            name = child(loop, "Name")
            variable = string(name, "Value") if name is not None else None
            if variable is not None:
                state = State(state.dirs, {**state.variables, variable: None})
        return self._loop(lambda s: self._stmts(children(cmd, "Do"), s, data, "control"), state)

    def _case(self, cmd: Node, state: State, data: bytes) -> Flow:
        self._nested(child(cmd, "Word"), state, data, None)
        ok, fail = state, state
        for item in children(cmd, "Items"):
            self._nested(children(item, "Patterns"), state, data, None)
            item_ok, item_fail = self._stmts(children(item, "Stmts"), state, data, "control")
            ok, fail = ok.join(item_ok), fail.join(item_fail)
        return ok, fail

    def _function(self, cmd: Node, state: State, data: bytes) -> Flow:
        body = child(cmd, "Body")
        if body is None:
            return state, state
        block = child(body, "Cmd")
        if block is not None and block.get("Type") == "Block" and not children(body, "Redirs"):
            ok, fail = self._stmts(children(block, "Stmts"), state, data, "function")
        else:
            ok, fail = self._stmt(body, state, data, "function")
        after = ok.join(fail)
        if after.dirs != state.dirs:
            # Calling it later moves the shell somewhere this walk does not follow.
            state = state.lost()
        return state, state

    def _time(self, cmd: Node, state: State, data: bytes, context: Context) -> Flow:
        inner = child(cmd, "Stmt")
        source = source_slice(data, cmd)
        if inner is None:
            self._unit((source,), context, None, source)
            return state, state
        self._unit((source,), context, "indirection", source)
        return self._stmt(inner, state, data, "payload")

    # --- words inside other nodes ---

    def _nested(
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
                self._nested(item, state, data, context, arithmetic=arithmetic)
            return
        if not isinstance(node, dict):
            return
        kind = node.get("Type")
        if kind in ("CmdSubst", "ProcSubst"):
            default: Context = "substitution" if kind == "CmdSubst" else "process_substitution"
            self._stmts(children(node, "Stmts"), state, data, context or default)
            return
        if arithmetic and kind in ("SglQuoted", "DblQuoted"):
            text = word_text({"Parts": [node]}, self._scope(state, state.dirs[0]))
            if text is not None:
                self._literal_code(text, state)
        inner = arithmetic or kind in _ARITHMETIC_NODES or _arithmetic_test(node)
        for key, value in node.items():
            if isinstance(value, dict | list):
                evaluated = inner or key in _ARITHMETIC_KEYS
                self._nested(value, state, data, context, arithmetic=evaluated)

    def _redirects(
        self, redirects: list[Node], state: State, data: bytes, source: str
    ) -> str | None:
        """Walk redirect targets; return the literal text a here-document or here-string
        feeds to the command (for `bash <<'EOF'`)."""
        stdin: str | None = None
        for redirect in redirects:
            op = string(redirect, "Op") or ""
            word = child(redirect, "Word")
            if op in ("<<", "<<-"):
                body = child(redirect, "Hdoc")
                self._nested(body, state, data, "heredoc")
                stdin = _heredoc_text(word, body)
                continue
            if word is None:
                continue
            self._nested(word, state, data, None)
            first = self._scope(state, state.dirs[0])
            if op == "<<<":
                text = word_text(word, first)
                stdin = None if text is None else text + "\n"
                if text is not None:
                    self._literal_code(text, state)
                continue
            if op in (">&", "<&"):
                target = word_text(word, first)
                if target is not None and re.fullmatch(r"\d*-?", target):
                    continue  # `2>&1`, `>&-`: a file descriptor, not a file
            if lone_process_substitution(word):
                continue  # a pipe to the commands inside, walked above
            mode: Mode = "read" if op in ("<", "<&") else "write"
            self._path_word(word, state, data, mode, "redirect", source)
        return stdin

    def _path_word(
        self, word: Node, state: State, data: bytes, mode: Mode, origin: Origin, command: str
    ) -> None:
        for directory in state.dirs:
            expansion = expand_word(word, self._scope(state, directory))
            if expansion is None:
                self._unresolved(source_slice(data, word), mode)
                continue
            for path in expansion.fields:
                self._path(path, directory, mode, origin, command)

    def _tests(self, node: Node | None, state: State, data: bytes, source: str) -> None:
        """File tests inside `[[ … ]]`: their operand is a path (`access`)."""
        if node is None:
            return
        kind = node.get("Type")
        if kind == "UnaryTest" and string(node, "Op") in FILE_TESTS:
            operand = child(node, "X")
            if operand is not None:
                self._path_word(operand, state, data, "access", "operand", source)
        elif kind in ("BinaryTest", "UnaryTest", "ParenTest"):
            for key in ("X", "Y"):
                self._tests(child(node, key), state, data, source)

    # --- simple commands ---

    def _call(
        self, cmd: Node, state: State, data: bytes, context: Context, stdin: str | None
    ) -> Flow:
        assigns, words = children(cmd, "Assigns"), children(cmd, "Args")
        self._nested(assigns, state, data, "assignment")
        self._nested(words, state, data, None)
        if not words:
            return self._assignments(cmd, assigns, state, data, context)
        source = source_slice(data, cmd)
        names = {assignment_name(assign) for assign in assigns}
        ok_dirs: list[str | None] = []
        effect = _Effect()
        for directory in state.dirs:
            scope = self._scope(state, directory)
            expansions = [expand_word(word, scope) for word in words]
            argv: list[Arg] = []
            for word, expansion in zip(words, expansions, strict=True):
                if expansion is None:
                    argv.append(Unknown(source_slice(data, word)))
                else:
                    argv += expansion.fields
            texts = _texts(words, expansions, data)
            first = expansions[0]
            opaque_name = (
                (first is not None and first.globbed)
                or lone_process_substitution(words[0])
                or bool(names & _SHELL_STARTUP)
            )
            one = self._command(argv, texts, directory, context, source, stdin, None, opaque_name)
            ok_dirs.append(self._chdir(directory, one))
            effect.shell_effect = effect.shell_effect or one.shell_effect
            effect.evals += one.evals
        variables = {**state.variables, **{assignment_name(a): None for a in assigns}}
        ok = State(tuple(dict.fromkeys(ok_dirs)), variables)
        fail = State(state.dirs, variables)
        if effect.shell_effect:
            ok, fail = ok.unknown(), fail.unknown()
        for text in dict.fromkeys(effect.evals):
            flow = self._payload(text, ok, "payload")
            ok, fail = flow if flow is not None else (ok.unknown(), fail.unknown())
        return ok, fail

    def _chdir(self, directory: str | None, effect: _Effect) -> str | None:
        target = effect.chdir
        if effect.chdir_unknown or isinstance(target, Unknown):
            return None
        if target is None:
            return directory
        if target.startswith("/"):
            return posixpath.normpath(target)
        if self.cdpath or directory is None:
            return None
        return posixpath.normpath(posixpath.join(directory, target))

    def _command(
        self,
        argv: list[Arg],
        texts: tuple[str, ...],
        directory: str | None,
        context: Context,
        source: str,
        stdin: str | None,
        stands_for: tuple[Arg, ...] | None = None,
        opaque_name: bool = False,
    ) -> _Effect:
        """Record one command line (and what it runs); return how it changes the shell.
        `stands_for`: in a command a wrapper runs, what its `{}` placeholder is replaced by
        (`find src -exec rm {} +` removes under `src`); unknown when None."""
        if not argv or isinstance(argv[0], Unknown) or opaque_name:
            # `$cmd …`, `$(…) …`: it may be anything, `cd` and `eval` included.
            self._unit(texts, context, "opaque", source)
            return _Effect(shell_effect=True)
        facts = analyze_argv(argv, self.home)
        for text in _evaluated_names(argv):
            self._literal_code(text, State((directory,), {}))
        name = argv[0]
        if "/" in name and facts.wrapper is None and not facts.script_files:
            kind = "missing" if directory is None else shell_script_kind(name, directory)
            if kind == "shell":
                facts.script_files.append(name)  # `./build.sh`: bash runs its text
        wrapper, note = facts.wrapper, facts.control
        scripts = [self._script_text(path, directory) for path in facts.script_files]
        for script in scripts:
            if isinstance(script, str):
                wrapper, note = "opaque", script
        self._unit(texts, context, wrapper, source, note)
        self._facts_paths(facts, directory, texts[0], stands_for)
        effect = _Effect(facts.chdir, facts.chdir_unknown, facts.shell_effect, list(facts.evals))
        if self.depth >= _MAX_DEPTH:
            return effect
        self.depth += 1
        try:
            for script in scripts:
                if not isinstance(script, ScriptText) or script.text is None:
                    continue
                if self._payload(script.text, State((directory,), {}), "script") is None:
                    problem = f"runs the script {script.path}, which could not be parsed"
                    self._unit(texts, context, "opaque", source, problem)
            for command, chdir, stands_for in facts.commands:
                inner = self._chdir(directory, _Effect(chdir=chdir)) if chdir else directory
                texts = _argv_texts(command)
                runs = self._command(command, texts, inner, "payload", source, None, stands_for)
                if facts.same_shell:
                    effect = runs
            fresh = State((directory,), {})
            for script in facts.scripts:
                self._payload(script, fresh, "payload")
            if facts.stdin_script and stdin is not None:
                self._payload(stdin, fresh, "payload")
        finally:
            self.depth -= 1
        return effect

    def _script_text(self, path: Arg, directory: str | None) -> ScriptText | str:
        """The text of a script file the command runs, or why it cannot be judged."""
        if isinstance(path, Unknown):
            return f"runs a script only known when the command runs ({path.source})"
        if directory is None and not path.startswith("/"):
            return f"runs {path} from a folder only known when the command runs"
        base = directory or "/"
        absolute = posixpath.normpath(posixpath.join(base, path))
        if any(
            mode == "write"
            and basename(command.split(" ", 1)[0]) not in _KEEPS_CONTENT
            and posixpath.normpath(posixpath.join(where or base, written)) == absolute
            for written, where, mode, _origin, command in self.paths
        ):
            return f"runs {path}, which the same command writes first"
        script = read_script(path, base)
        if script.text is None:
            return f"runs the script {path}, which cannot be read ({script.problem})"
        return script

    def _facts_paths(
        self, facts: Facts, directory: str | None, command: str, stands_for: tuple[Arg, ...] | None
    ) -> None:
        for path, mode, origin in facts.paths:
            targets = (path,) if stands_for is None or path != "{}" else stands_for
            for arg in targets:
                if isinstance(arg, Unknown):
                    self._unresolved(arg.source, mode)
                else:
                    self._path(arg, directory, mode, origin, command)
        for token, origin, bare in facts.guesses:
            if _looks_like_path(token, directory, bare):
                self._path(token, directory, "read", origin, command)
        if stands_for is None and directory is not None:
            for landed in _landing_paths(facts, directory, command):
                self._path(landed, directory, "write", "operand", command)

    def _payload(self, text: str, state: State, context: Context) -> Flow | None:
        """Walk shell text a command runs; None when it does not parse."""
        if self.depth >= _MAX_DEPTH:
            return None
        try:
            tree = parse_bash_leniently(text)
        except ShellSyntaxError:
            return None
        self.depth += 1
        try:
            self._prepass(tree.root)
            stmts = tree.stmts
            return self._stmts(stmts, state, tree.data, context)
        finally:
            self.depth -= 1

    def _literal_code(self, text: str, state: State) -> None:
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
            self._nested(child(redirect, "Hdoc"), State(state.dirs, {}), tree.data, "assignment")

    # --- assignments ---

    def _assign(self, assign: Node, variables: dict[str, str | None], state: State) -> None:
        """Apply `NAME=value` (literal or not) to `variables`."""
        name = assignment_name(assign)
        if not name:
            return
        if child(assign, "Index") is not None or child(assign, "Array") is not None:
            variables[name] = None
            return
        current = State(state.dirs, variables)
        values = {
            assignment_value(child(assign, "Value"), self._scope(current, d)) for d in state.dirs
        }
        value = values.pop() if len(values) == 1 else None
        if assign.get("Append") is True:
            old = variables.get(name)
            value = None if value is None or old is None else old + value
        variables[name] = value
        if value is not None:
            self._literal_code(value, state)

    def _assignments(
        self, cmd: Node, assigns: list[Node], state: State, data: bytes, context: Context
    ) -> Flow:
        source = source_slice(data, cmd)
        names = {assignment_name(a) for a in assigns}
        wrapper: Wrapper | None = "opaque" if names & _SHELL_STARTUP else None
        self._unit((source,), context, wrapper, source)
        variables = dict(state.variables)
        for assign in assigns:
            self._assign(assign, variables, state)
        after = State(state.dirs, variables)
        return after, after

    def _declaration(self, cmd: Node, state: State, data: bytes, context: Context) -> Flow:
        self._nested(cmd, state, data, "assignment")
        variant = child(cmd, "Variant")
        keyword = (string(variant, "Value") if variant is not None else None) or "declare"
        source = source_slice(data, cmd)
        names = {assignment_name(arg) for arg in children(cmd, "Args")}
        self._unit((source,), context, "opaque" if names & _SHELL_STARTUP else None, source)
        variables = dict(state.variables)
        plain = keyword in ("declare", "typeset", "local", "export", "readonly")
        dynamic = False
        first = self._scope(state, state.dirs[0])
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
            self._assign(arg, variables, state)
            if not plain:
                variables[name] = None
        after = State(state.dirs, variables)
        if dynamic:
            after = after.unknown()
        return after, after

    def _prepass(self, root: Node) -> None:
        found = taint(root)
        self.tainted = self.tainted | found.names
        self.split_safe = self.split_safe and not found.split_unsafe
        self.glob_safe = self.glob_safe and not found.glob_unsafe
        self.cdpath = self.cdpath or found.cdpath


# --- helpers ---------------------------------------------------------------------------------

_ARITHMETIC_NODES = frozenset({"ArithmCmd", "ArithmExp", "LetClause", "CStyleLoop"})
_ARITHMETIC_KEYS = frozenset({"Index", "Slice"})
_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-v"})


def _arithmetic_test(node: Node) -> bool:
    """`[[ x -eq y ]]` (both sides are arithmetic) and `[[ -v name ]]` (a subscript)."""
    return node.get("Type") in ("BinaryTest", "UnaryTest") and (
        string(node, "Op") in _ARITHMETIC_TESTS
    )


def _evaluated_names(argv: list[Arg]) -> list[str]:
    """Arguments a builtin takes as variable names, whose subscript bash evaluates
    (`read 'a[$(cmd)]'`, `unset`, `printf -v`, `test -v`)."""
    name = argv[0]
    args = [arg for arg in argv[1:] if isinstance(arg, str)]
    if name in ("read", "unset", "getopts", "mapfile", "readarray", "wait"):
        return args
    flag = {"printf": "-v", "test": "-v", "[": "-v"}.get(name if isinstance(name, str) else "")
    if flag is None:
        return []
    out = [arg[2:] for arg in args if arg.startswith(flag) and len(arg) > 2]
    return out + [after for before, after in itertools.pairwise(args) if before == flag]


_COPIERS = frozenset({"cp", "mv", "install", "ln", "rsync"})
_LISTED = 200


def _landing_paths(facts: Facts, directory: str, command: str) -> list[str]:
    """Where a copy or move into a folder puts what it copies: `cp -r evil/.pith .` writes
    `./.pith`, `rsync -a evil/ .` writes each entry of `evil` (at most `_LISTED` of them)."""
    name = basename(command.split(" ", 1)[0])
    if name not in _COPIERS:
        return []
    literal = [(path, mode, origin) for path, mode, origin in facts.paths if isinstance(path, str)]
    targets = [path for path, mode, origin in literal if mode == "write" and origin == "option"]
    writes = [path for path, mode, origin in literal if mode == "write" and origin == "operand"]
    destination = targets[-1] if targets else (writes[-1] if writes else None)
    if destination is None:
        return []
    if not (destination.endswith("/") or os.path.isdir(posixpath.join(directory, destination))):
        return []
    out: list[str] = []
    for source, _mode, origin in literal:
        if origin != "operand" or source == destination:
            continue
        folder = posixpath.join(directory, source)
        contents = source.endswith("/.") or (name == "rsync" and source.endswith("/"))
        if contents and os.path.isdir(folder):
            try:
                entries = sorted(os.listdir(folder))[:_LISTED]
            except OSError:
                entries = []
            out += [posixpath.join(destination, entry) for entry in entries]
        else:
            out.append(posixpath.join(destination, posixpath.basename(source.rstrip("/"))))
    return out


def _variants(words: list[str]) -> list[str]:
    out = [" ".join(words)]
    if words and "/" in words[0]:
        out.append(" ".join([basename(words[0]), *words[1:]]))
    return out


def _texts(words: list[Node], expansions: list[Expansion | None], data: bytes) -> tuple[str, ...]:
    typed: list[str] = []
    matched: list[str] = []
    for word, expansion in zip(words, expansions, strict=True):
        if expansion is None or lone_process_substitution(word):
            typed.append(source_slice(data, word))
            matched.append(source_slice(data, word))
        else:
            typed += expansion.unglobbed
            matched += expansion.fields
    return tuple(dict.fromkeys([*_variants(typed), *_variants(matched)]))


def _argv_texts(argv: list[Arg]) -> tuple[str, ...]:
    words = [arg.source if isinstance(arg, Unknown) else arg for arg in argv]
    return tuple(dict.fromkeys(_variants(words)))


def _heredoc_text(delimiter: Node | None, body: Node | None) -> str | None:
    """The text a here-document feeds, when the command's text fixes it."""
    if body is None:
        return ""
    parts = children(body, "Parts")
    if any(part.get("Type") != "Lit" for part in parts):
        return None
    text = "".join(string(part, "Value") or "" for part in parts)
    quoted = delimiter is not None and any(
        part.get("Type") != "Lit" or "\\" in (string(part, "Value") or "")
        for part in children(delimiter, "Parts")
    )
    return text if quoted or "\\" not in text else None


def _looks_like_path(token: str, directory: str | None, bare: bool) -> bool:
    """Whether a word of a command not known here may be a path: a `/`, a leading `.` or `~`, or
    (`bare`) the name of an existing file or symlink."""
    if not token or _URL.match(token):
        return False
    if "/" in token or token[0] in ".~":
        return True
    if not bare or directory is None:
        return False
    return os.path.lexists(os.path.join(directory, token))
