"""What one command line runs and touches: its units, the paths its arguments name, and the
commands it runs in turn — a wrapper's command, a `bash -c` / `eval` payload, a script file,
a here-document fed to a shell.

Argument analysis is `_bash_wrappers` / `_bash_files`; this part records what it finds and
hands the shell text a command runs back to the walker.
"""

from __future__ import annotations

import itertools
import os
import posixpath
import re
from dataclasses import dataclass, field

from pith.ext.permissions._bash_argv import Arg, Facts, Unknown, basename
from pith.ext.permissions._bash_context import MAX_DEPTH, Context, Findings, Knowledge, Walking
from pith.ext.permissions._bash_scripts import ScriptText, read_script, shell_script_kind
from pith.ext.permissions._bash_state import State
from pith.ext.permissions._bash_wrappers import analyze_argv
from pith.shell import Expansion, Node, lone_process_substitution, source_slice

__all__ = ["Commands", "Effect", "call_texts"]

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://|[^/\s]+@[^/\s]+:")
_KEEPS_CONTENT = frozenset({"chmod", "chown", "chgrp", "touch"})
"""Commands that modify a file without changing what it says."""


@dataclass
class Effect:
    """How one command changes the shell it runs in."""

    chdir: Arg | None = None
    chdir_unknown: bool = False
    shell_effect: bool = False
    evals: list[str] = field(default_factory=list)


class Commands:
    """Records command lines and walks what they run."""

    def __init__(self, walker: Walking, findings: Findings, knowledge: Knowledge) -> None:
        self.walker = walker
        self.findings = findings
        self.knowledge = knowledge

    def analyze(
        self,
        argv: list[Arg],
        texts: tuple[str, ...],
        directory: str | None,
        context: Context,
        source: str,
        stdin: str | None,
        stands_for: tuple[Arg, ...] | None = None,
        opaque_name: bool = False,
    ) -> Effect:
        """Record one command line (and what it runs); return how it changes the shell.
        `stands_for`: in a command a wrapper runs, what its `{}` placeholder is replaced by
        (`find src -exec rm {} +` removes under `src`); unknown when None."""
        if not argv or isinstance(argv[0], Unknown) or opaque_name:
            # `$cmd …`, `$(…) …`: it may be anything, `cd` and `eval` included.
            self.findings.unit(texts, context, "opaque", source)
            return Effect(shell_effect=True)
        facts = analyze_argv(argv, self.knowledge.home)
        for text in _evaluated_names(argv):
            self.walker.literal_code(text, State((directory,), {}))
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
        self.findings.unit(texts, context, wrapper, source, note)
        self._facts_paths(facts, directory, texts[0], stands_for)
        effect = Effect(facts.chdir, facts.chdir_unknown, facts.shell_effect, list(facts.evals))
        if self.knowledge.depth >= MAX_DEPTH:
            return effect
        self.knowledge.depth += 1
        try:
            for script in scripts:
                if not isinstance(script, ScriptText) or script.text is None:
                    continue
                if self.walker.payload(script.text, State((directory,), {}), "script") is None:
                    problem = f"runs the script {script.path}, which could not be parsed"
                    self.findings.unit(texts, context, "opaque", source, problem)
            for command, chdir, stands_for in facts.commands:
                inner = self.chdir(directory, Effect(chdir=chdir)) if chdir else directory
                texts = _argv_texts(command)
                runs = self.analyze(command, texts, inner, "payload", source, None, stands_for)
                if facts.same_shell:
                    effect = runs
            fresh = State((directory,), {})
            for script in facts.scripts:
                self.walker.payload(script, fresh, "payload")
            if facts.stdin_script and stdin is not None:
                self.walker.payload(stdin, fresh, "payload")
        finally:
            self.knowledge.depth -= 1
        return effect

    def chdir(self, directory: str | None, effect: Effect) -> str | None:
        """Where the shell is after a command with `effect` run in `directory` (None:
        somewhere the text does not say)."""
        target = effect.chdir
        if effect.chdir_unknown or isinstance(target, Unknown):
            return None
        if target is None:
            return directory
        if target.startswith("/"):
            return posixpath.normpath(target)
        if self.knowledge.cdpath or directory is None:
            return None
        return posixpath.normpath(posixpath.join(directory, target))

    def _script_text(self, path: Arg, directory: str | None) -> ScriptText | str:
        """The text of a script file the command runs, or why it cannot be judged."""
        if isinstance(path, Unknown):
            return f"runs a script only known when the command runs ({path.source})"
        if directory is None and not path.startswith("/"):
            return f"runs {path} from a folder only known when the command runs"
        base = directory or "/"
        absolute = posixpath.normpath(posixpath.join(base, path))
        if any(
            access.mode == "write"
            and basename(access.command.split(" ", 1)[0]) not in _KEEPS_CONTENT
            and posixpath.normpath(posixpath.join(access.directory or base, access.path))
            == absolute
            for access in self.findings.paths
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
                    self.findings.unresolved_word(arg.source, mode)
                else:
                    self.findings.path(arg, directory, mode, origin, command)
        for token, origin, bare in facts.guesses:
            if _looks_like_path(token, directory, bare):
                self.findings.path(token, directory, "read", origin, command)
        if stands_for is None and directory is not None:
            for landed in _landing_paths(facts, directory, command):
                self.findings.path(landed, directory, "write", "operand", command)


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


def call_texts(
    words: list[Node], expansions: list[Expansion | None], data: bytes
) -> tuple[str, ...]:
    """What `bash` patterns see of a simple command: its words as typed, then as globbed,
    each also with the command name's basename."""
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
