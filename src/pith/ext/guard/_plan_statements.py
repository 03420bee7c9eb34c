"""Statements of a parsed command as the guard's planner sees them: which pipeline stages are
views, which statements are *silent* (can write nothing at all, so they stay where they are),
and the rules for statements before the final pipeline
(hoisted into the side channel, or refused) and after it (silent ones, and `cd`).

Every rule that leaves a command untouched raises `Refusal` with the reason shown to the
user.
"""

from __future__ import annotations

import re

from pith.ext.guard._plan_views import VIEW_NAMES
from pith.ext.guard._plan_words import program_name, word_set
from pith.shell import (
    Node,
    assignment_name,
    call_name,
    child,
    children,
    command_words,
    is_bare,
    is_identifier,
    literal_word,
    quiet_word,
    stages,
    statement_text,
    string,
    walk,
)

__all__ = [
    "FD_PATHS",
    "SHELL_PLACE",
    "Refusal",
    "check_kept",
    "check_prefix",
    "check_trailing",
    "ends_in_view",
    "is_cd",
    "is_silent",
    "is_test",
    "needs_subshell",
    "view_name",
]


class Refusal(Exception):
    """The command is left untouched; `reason` names the rule."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --- views ------------------------------------------------------------------------------


def view_name(stmt: Node) -> str | None:
    """The view a pipeline stage runs (`head`, …), or None when it is not a plain view."""
    name, _ = call_name(stmt)
    if name is None:
        return None
    program = program_name(name, strict=True)
    return program if program in VIEW_NAMES else None


def ends_in_view(stmt: Node) -> bool:
    """The statement is a pipeline whose last stage is a view."""
    parts, ops = stages(stmt)
    return bool(ops) and view_name(parts[-1]) is not None


_STATUS = re.compile(r"\$\?|\$\{#?\?|PIPESTATUS")
FD_PATHS = re.compile(r"/dev/(?:stdout|stderr|fd/)|/proc/(?:self|\$\$|\$\{\$\})/fd")
_SENSITIVE = re.compile(
    r"PATH|LANG|LANGUAGE|LC_\w+|POSIXLY_CORRECT|_POSIX2_VERSION|GREP_\w+|RIPGREP_CONFIG_PATH"
    r"|LESS\w*|MORE|SHELLOPTS|BASHOPTS|BASH_ENV|ENV|TMPDIR"
)
_REFUSED_BUILTINS = frozenset(
    {"exec", "trap", "source", ".", "eval", "enable", "hash", "alias", "unalias", "fc", "bind"}
)
_EXITS = frozenset({"exit", "return", "logout"})
SHELL_PLACE = frozenset({"cd", "pushd", "popd", "umask"})
"""Builtins that change where the rest of the command runs (its directory) or how the files it
creates are made (its umask)."""
_KINDS = {
    "IfClause": "an `if` statement",
    "WhileClause": "a `while`/`until` loop",
    "ForClause": "a `for` loop",
    "CaseClause": "a `case` statement",
    "FuncDecl": "a function definition",
    "TimeClause": "a `time` command",
    "CoprocClause": "a `coproc`",
    "SelectClause": "a `select` loop",
}
_STATEFUL_BUILTINS = word_set(
    ". alias bg bind break builtin cd command complete compopt continue declare disown enable "
    "eval exec exit export fc fg getopts hash history let local logout mapfile popd pushd read "
    "readarray readonly return set shift shopt source suspend trap typeset ulimit umask unalias "
    "unset wait"
)
"""bash's builtins (`compgen -b`) that can change the shell they run in (`printf -v` too);
the others — `echo`, `pwd`, `test`, `true`, … — only print or answer."""
_HOISTABLE = frozenset(
    {"CallExpr", "DeclClause", "TestClause", "ArithmCmd", "LetClause", "Block", "Subshell"}
)
_UNARY_TESTS = word_set("-b -c -d -e -f -g -h -k -L -n -N -O -G -p -r -s -S -u -w -x -z")
_BINARY_TESTS = frozenset({"=", "==", "!=", "-nt", "-ot", "-ef"})
_ARITH_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_INTEGER = re.compile(r"-?\d+")
_DECLARE_FLAGS = re.compile(r"[-+][xrilaAugn]+")


def _quiet_test(args: list[str | None]) -> bool:
    """`test ARGS` is well formed, so it cannot print an error."""
    if any(arg is None for arg in args):
        return False
    words = [arg for arg in args if arg is not None]
    if words and words[0] == "!":
        words = words[1:]
    if len(words) <= 1:
        return True
    if len(words) == 2:
        return words[0] in _UNARY_TESTS
    if len(words) == 3:
        if words[1] in _ARITH_TESTS:
            return bool(_INTEGER.fullmatch(words[0]) and _INTEGER.fullmatch(words[2]))
        return words[1] in _BINARY_TESTS
    return False


def _quiet_test_clause(cmd: Node) -> bool:
    for node in walk(child(cmd, "X")):
        kind = node.get("Type")
        if kind in ("UnaryTest", "ParenTest"):
            continue
        if kind == "BinaryTest":
            if string(node, "Op") in (*_ARITH_TESTS, "=~"):
                return False
        elif kind == "Word" and not quiet_word(node):
            return False
    return True


def _quiet_assignment(assign: Node) -> bool:
    if child(assign, "Index") is not None:
        return False
    array = child(assign, "Array")
    if array is not None:
        return all(
            child(elem, "Index") is None and quiet_word(child(elem, "Value"))
            for elem in children(array, "Elems")
        )
    return quiet_word(child(assign, "Value"))


def is_silent(stmt: Node) -> bool:
    """The statement can write nothing to stdout or stderr."""
    if not is_bare(stmt):
        return False
    cmd = child(stmt, "Cmd")
    kind = cmd.get("Type") if cmd is not None else None
    if cmd is None:
        return False
    if kind == "CallExpr":
        if not all(_quiet_assignment(assign) for assign in children(cmd, "Assigns")):
            return False
        words = command_words(cmd)
        if not words:
            return True
        if words[0] in (":", "true", "false"):
            return all(word is not None for word in words)
        if words[0] == "test":
            return _quiet_test(words[1:])
        if words[0] == "[":
            return words[-1] == "]" and _quiet_test(words[1:-1])
        return False
    if kind == "DeclClause":
        variant = child(cmd, "Variant")
        if string(variant or {}, "Value") not in ("export", "readonly", "declare", "typeset"):
            return False
        named = False
        for arg in children(cmd, "Args"):
            if child(arg, "Name") is not None:
                named = True
                if not _quiet_assignment(arg):
                    return False
                continue
            value = child(arg, "Value")
            flag = literal_word(value) if value is not None else None
            if flag is None or not _DECLARE_FLAGS.fullmatch(flag):
                return False
        return named
    if kind == "TestClause":
        return _quiet_test_clause(cmd)
    return False


def _assigned_names(node: Node) -> list[str]:
    """Variables a statement sets for the rest of the shell (not `NAME=x cmd` env prefixes)."""
    names: list[str] = []
    for item in walk(node):
        kind = item.get("Type")
        if kind == "CallExpr":
            words = command_words(item)
            if not words:
                names += [assignment_name(a) for a in children(item, "Assigns")]
            elif words[0] == "unset":
                names += [word or "" for word in words[1:]]
        elif kind == "DeclClause":
            for arg in children(item, "Args"):
                name = child(arg, "Name")
                if name is not None:
                    names.append(string(name, "Value") or "")
                else:
                    value = child(arg, "Value")
                    word = literal_word(value) if value is not None else None
                    if word is None or is_identifier(word):
                        names.append(word or "")
    return names


# --- around the final pipeline ----------------------------------------------------------


def check_kept(kept: list[Node]) -> None:
    """Refuse when the stages that stay start something in the background: a real pipe
    waits for every process holding its write end, the bash tool stops reading shortly after
    the shell exits, so late output would be lost."""
    for stage in kept:
        for node in walk(stage):
            if (
                node.get("Background")
                or node.get("Coprocess")
                or (node.get("Type") == "ProcSubst" and string(node, "Op") == ">(")
            ):
                raise Refusal(
                    "the pipeline starts something in the background, whose late output a real "
                    "pipe would wait for"
                )


def needs_subshell(stage: Node) -> bool:
    """The stage, run on its own instead of as a pipeline member (which bash forks), could
    change the shell itself — `cd`, `exit`, an assignment, a `{ …; }` group. A literal
    external command cannot, nor can a builtin that only prints or answers (`echo`, `test`)."""
    if (child(stage, "Cmd") or {}).get("Type") == "Subshell":
        return False
    name, words = call_name(stage)
    if name == "printf":
        return any(word is None or word.startswith("-v") for word in words[1:2])
    # None: another compound command, an assignment alone, or a name that is not literal.
    return name is None or name in _STATEFUL_BUILTINS


def is_test(stmt: Node) -> bool:
    """A `test`, `[ … ]` or `[[ … ]]` statement: silent, but it can look at files."""
    cmd = child(stmt, "Cmd") or {}
    if cmd.get("Type") == "TestClause":
        return True
    name, _ = call_name(stmt)
    return name in ("test", "[")


def is_cd(stmt: Node) -> bool:
    """A plain `cd` whose words run nothing (literal text, quotes, `$name`), nothing else: it
    writes no file; what it may print (an error, a CDPATH match) goes to the after channel."""
    cmd = child(stmt, "Cmd")
    if not is_bare(stmt) or cmd is None or cmd.get("Type") != "CallExpr":
        return False
    if children(cmd, "Assigns"):
        return False
    words = children(cmd, "Args")
    return bool(words) and literal_word(words[0]) == "cd" and all(map(quiet_word, words[1:]))


def check_trailing(trailing: list[Node], data: bytes) -> None:
    """Refuse unless every statement after the final pipeline is silent (`true`, `:`, a bare
    assignment) or a `cd` (`is_cd`), and none reads the status the view would have set."""
    for stmt in trailing:
        if _STATUS.search(statement_text(data, stmt)):
            raise Refusal(
                "a statement after the pipeline reads $? or PIPESTATUS, which would see the "
                "command instead of the view"
            )
    for stmt in trailing:
        if not is_silent(stmt) and not is_cd(stmt):
            raise Refusal(
                f"a statement after the pipeline is not silent (`{statement_text(data, stmt)}`): "
                "its output or status would pass through the view; only true, :, false, "
                "assignments, tests and cd may follow"
            )


def check_prefix(unit: Node, data: bytes) -> frozenset[str]:
    """Refuse the statement before the pipeline unless it can stay or be hoisted; return the
    `SHELL_PLACE` builtins it runs (it may change the directory or umask of what follows)."""
    text = statement_text(data, unit)
    _check_shape(unit, text)
    place: set[str] = set()
    for node in walk(unit):
        kind = node.get("Type")
        if kind == "BinaryCmd" and string(node, "Op") in ("|", "|&"):
            last = child(node, "Y")
            if last is not None and view_name(last) is not None:
                raise Refusal(f"a statement before the pipeline has a view of its own (`{text}`)")
        elif kind == "CallExpr":
            name = _check_prefix_call(node, text)
            if name in SHELL_PLACE:
                place.add(name)
        elif kind == "FuncDecl":
            # It could shadow a view or hide an unbounded producer from the planner.
            raise Refusal(f"a statement before the pipeline defines a function (`{text}`)")
        elif kind == "ProcSubst" or node.get("Background") or node.get("Coprocess"):
            # Its output would reach the sink after the guard has read it.
            raise Refusal(
                f"a statement before the pipeline runs something in the background (`{text}`)"
            )
    if FD_PATHS.search(text):
        raise Refusal(f"a statement before the pipeline writes to a descriptor path (`{text}`)")
    for name in _assigned_names(unit):
        if not is_identifier(name):
            raise Refusal(
                f"a statement before the pipeline sets a variable whose name is not literal "
                f"(`{text}`)"
            )
        if _SENSITIVE.fullmatch(name):
            raise Refusal(
                f"a statement before the pipeline sets ${name}, which the view could depend on "
                "(it runs in the tool's environment)"
            )
    return frozenset(place)


def _check_shape(stmt: Node, text: str) -> None:
    if stmt.get("Background") or stmt.get("Coprocess"):
        raise Refusal(f"a statement before the pipeline runs in the background (`{text} &`)")
    if stmt.get("Negated"):
        raise Refusal(f"a statement before the pipeline is negated (`{text}`)")
    cmd = child(stmt, "Cmd")
    kind = cmd.get("Type") if cmd is not None else None
    if cmd is None or kind == "BinaryCmd":
        for side in ("X", "Y"):
            inner = child(cmd, side) if cmd is not None else None
            if inner is not None:
                _check_shape(inner, text)
        return
    if kind not in _HOISTABLE:
        what = _KINDS.get(str(kind), f"a {kind} statement")
        raise Refusal(f"{what} before the final pipeline is left alone (`{text}`)")


def _check_prefix_call(call: Node, text: str) -> str | None:
    """Refuse a command the planner cannot hoist; return its name."""
    words = command_words(call)
    if not words:
        return None
    while len(words) > 1 and words[0] in ("command", "builtin"):
        words = words[1:]
        while len(words) > 1 and (words[0] or "").startswith("-"):
            words = words[1:]  # `command -p cd`
    name = words[0]
    if name is None:
        raise Refusal(
            f"a statement before the pipeline runs a command whose name is not literal (`{text}`)"
        )
    if name in _EXITS:
        raise Refusal(f"`{name}` before the final pipeline may end the script (`{text}`)")
    if name in _REFUSED_BUILTINS:
        raise Refusal(
            f"`{name}` before the pipeline changes the shell in ways the planner does not model"
        )
    return name
