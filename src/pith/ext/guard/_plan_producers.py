"""Unbounded producers: pipeline members that never end on their own.

A trailing view is often the only thing that stops them (`yes | head -5`,
`tail -f build.log | grep -m 1 DONE`), so the guard never strips a pipeline that contains one.
Two kinds:

- **fast infinite generators** — `yes`, `seq inf` (or a `seq` of more than ten million
  numbers, or one whose arguments cannot be read), reads of `/dev/zero`, `/dev/urandom`,
  `/dev/random`, `/dev/full`, `while true` / `while :` / `until false` / `for ((;;))` loops.
  Seconds of their output are gigabytes, so they stay untouched even under `timeout`;
- **slow followers** — `tail -f`/`-F`/`--follow`, `journalctl -f`, `watch`, `ping` without a
  count or deadline, `dmesg -w`, `… logs -f` (docker, kubectl, podman), anything with
  `--follow` or `--watch`, `top` without `-n`, `tcpdump` without `-c`, `inotifywait -m`,
  `adb logcat` without `-d`, `vmstat`/`iostat`/`mpstat`/`pidstat`/`sar` with an interval and no
  count, `cat` (or `<`) of a FIFO. Under `timeout` they are bounded and still strip.

Commands are seen through wrappers (`timeout`, `nice`, `nohup`, `stdbuf`, `env`, `command`,
`exec`, `time`, `sudo`, `doas`, `setsid`, `ionice`, `chrt`, `taskset`, `xargs`, `unbuffer`), and
the literal script of `bash -c` / `sh -c` / `eval` / `ssh host CMD` is parsed and checked too.
A command whose name is not literal is not known to be unbounded: the list is what the
planner can recognise, not a proof that anything else ends. Words are read with the
variables known when the pipeline starts (`_plan_shell`): after `X=5`, `seq 1 $X` prints five
numbers; inside a `bash -c` script only literal words count (its variables are its own).
"""

from __future__ import annotations

import math
import os
import re
import stat
from collections.abc import Iterable

from pith.ext.guard._plan_words import program_name, word_set
from pith.shell import (
    Node,
    Scope,
    ShellSyntaxError,
    child,
    children,
    command_words,
    expand_word,
    literal_word,
    offset,
    parse_bash,
    walk,
    word_text,
)

__all__ = ["unbounded_reason"]

MAX_SEQ_LINES = 10_000_000
"""A `seq` printing more numbers than this counts as a fast generator (seconds of output)."""

_DEVICES = re.compile(rb"/dev/(?:zero|urandom|random|full)\b")
_DEVICE = re.compile(r"/dev/(?:zero|urandom|random|full)")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf(?:inity)?|[-+]?nan", re.I)
_SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh", "mksh"})
_STATS = frozenset({"vmstat", "iostat", "mpstat", "pidstat", "sar"})
_MAX_DEPTH = 3

# Wrapper → its options that take a separate value.
_WRAPPERS: dict[str, frozenset[str]] = {
    "timeout": frozenset({"-k", "-s", "--kill-after", "--signal"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "nohup": frozenset(),
    "stdbuf": frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}),
    "env": frozenset({"-u", "-C", "--unset", "--chdir"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "time": frozenset({"-f", "-o", "--format", "--output"}),
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "-R"}),
    "doas": frozenset({"-u", "-C"}),
    "setsid": frozenset(),
    "ionice": frozenset({"-c", "-n", "-p", "-P", "-u", "--class", "--classdata"}),
    "chrt": frozenset(),
    "taskset": frozenset(),
    "unbuffer": frozenset(),
    "xargs": word_set(
        "-a -d -E -e -I -L -l -n -P -s --arg-file --delimiter --max-args --max-procs "
        "--max-chars --max-lines --replace --eof"
    ),
}

_Words = list[str | None]


def _skip_options(words: _Words, with_value: frozenset[str], assignments: bool) -> _Words:
    i = 0
    while i < len(words):
        word = words[i]
        if word is None:
            return words[i:]
        if word == "--":
            return words[i + 1 :]
        if assignments and "=" in word and not word.startswith("-"):
            i += 1
            continue
        if not word.startswith("-") or word == "-":
            break
        i += 2 if word in with_value else 1
    return words[i:]


def _short_flag(args: _Words, letters: str) -> bool:
    """Some literal `-xyz` cluster among `args` contains one of `letters`."""
    for arg in args:
        cluster = arg is not None and arg.startswith("-") and not arg.startswith("--")
        if (
            cluster
            and arg is not None
            and not arg[1:].isdigit()
            and any(letter in arg[1:] for letter in letters)
        ):
            return True
    return False


def _long_flag(args: _Words, *names: str) -> bool:
    return any(
        arg is not None and any(arg == name or arg.startswith(name + "=") for name in names)
        for arg in args
    )


def _seq(args: _Words) -> str | None:
    if any(arg is None for arg in args):
        return "`seq` has arguments the guard cannot read, so its length is unknown"
    numbers: list[float] = []
    rest = [arg for arg in args if arg is not None]
    i = 0
    while i < len(rest):
        arg = rest[i]
        i += 1
        if _NUMBER.fullmatch(arg):
            numbers.append(float(arg))
        elif arg in ("-f", "-s", "--format", "--separator"):
            i += 1
        elif not arg.startswith("-"):
            return None  # seq will refuse it
    if not numbers or len(numbers) > 3:
        return None
    first, step, last = 1.0, 1.0, numbers[-1]
    if len(numbers) >= 2:
        first = numbers[0]
    if len(numbers) == 3:
        step = numbers[1]
    if any(math.isinf(x) or math.isnan(x) for x in (first, step, last)):
        return "`seq` to infinity never ends (a fast generator, untouched even under timeout)"
    if step == 0:
        return None  # seq refuses a zero increment
    count = math.floor((last - first) / step) + 1
    if count > MAX_SEQ_LINES:
        return f"`seq` would print {count:,} numbers (a fast generator, too much to capture)"
    return None


def _follower(name: str, args: _Words) -> str | None:
    """Why `name args` follows forever (bounded by `timeout`), or None."""
    unreadable = any(arg is None for arg in args)
    if name == "tail" and unreadable:
        return "`tail` has arguments the guard cannot read, so it may follow a file forever"
    if name == "tail" and (_short_flag(args, "fF") or _long_flag(args, "--follow")):
        return "`tail -f` follows the file forever"
    if name == "journalctl" and (_short_flag(args, "f") or _long_flag(args, "--follow")):
        return "`journalctl -f` follows the journal forever"
    if name == "watch":
        return "`watch` repeats forever"
    if name in ("ping", "ping6", "arping") and not (unreadable or _short_flag(args, "cw")):
        return f"`{name}` without a count (-c) runs forever"
    if name == "dmesg" and (_short_flag(args, "wW") or _long_flag(args, "--follow")):
        return "`dmesg -w` follows the kernel log forever"
    if name == "top" and not (unreadable or _short_flag(args, "n")):
        return "`top` without -n runs forever"
    if name == "tcpdump" and not (unreadable or _short_flag(args, "c")):
        return "`tcpdump` without -c runs forever"
    if name == "inotifywait" and (_short_flag(args, "m") or _long_flag(args, "--monitor")):
        return "`inotifywait -m` watches forever"
    if name == "adb" and "logcat" in args and not _short_flag(args, "dt"):
        return "`adb logcat` without -d follows forever"
    if name in _STATS:
        operands = [arg for arg in args if arg is not None and not arg.startswith("-")]
        if len(operands) == 1 and operands[0].isdigit():
            return f"`{name}` with an interval and no count runs forever"
    if "logs" in args and (_short_flag(args, "f") or _long_flag(args, "--follow")):
        return f"`{name} logs -f` follows the logs forever"
    if name in ("kubectl", "oc") and _short_flag(args, "w"):
        return f"`{name} … -w` watches forever"
    if _long_flag(args, "--follow", "--watch"):
        return f"`{name}` with --follow/--watch runs until stopped"
    return None


class _Scanner:
    def __init__(self, cwd: str | None, scope: Scope | None) -> None:
        self.cwd = cwd
        self.scope = scope

    def words(self, call: Node) -> _Words:
        """The arguments of a `CallExpr`, each literal or None, with the known variables."""
        if self.scope is None:
            return command_words(call)
        out: _Words = []
        for word in children(call, "Args"):
            expansion = expand_word(word, self.scope)
            out += [None] if expansion is None else list(expansion.fields)
        return out

    def word(self, word: Node) -> str | None:
        return literal_word(word) if self.scope is None else word_text(word, self.scope)

    def node(self, root: object, data: bytes, timed: bool, depth: int) -> str | None:
        for node in walk(root):
            kind = node.get("Type")
            reason: str | None = None
            if kind == "CallExpr":
                words = self.words(node)
                device = next((w for w in words if w is not None and _DEVICE.fullmatch(w)), None)
                if device is not None:
                    return f"it reads {device}, which never ends (untouched even under timeout)"
                reason = self.call(words, timed, depth)
            elif kind == "WhileClause":
                reason = _endless_loop(node)
            elif kind == "ForClause":
                loop = child(node, "Loop")
                if (
                    loop is not None
                    and loop.get("Type") == "CStyleLoop"
                    and not child(loop, "Cond")
                ):
                    reason = "`for ((;;))` loops forever"
            elif "Op" in node and "Word" in node and "Type" not in node:
                reason = self.redirect(node)
            if reason is not None:
                return reason
        match = _DEVICES.search(data)
        if match is not None:
            device = match.group().decode()
            return f"it reads {device}, which never ends (untouched even under timeout)"
        return None

    def call(self, words: _Words, timed: bool, depth: int) -> str | None:
        while words and words[0] is not None:
            name = program_name(words[0], strict=False)
            rest = words[1:]
            if name in _WRAPPERS:
                if name in ("command", "builtin") and _short_flag(rest, "vV"):
                    return None
                rest = _skip_options(rest, _WRAPPERS[name], assignments=name == "env")
                if name == "timeout":
                    timed, rest = True, rest[1:]
                elif name == "chrt" and rest and rest[0] is not None and rest[0].isdigit():
                    rest = rest[1:]
                elif name == "taskset" and rest:
                    rest = rest[1:]  # the mask
                words = rest
                continue
            if name in _SHELLS or name in ("eval", "ssh"):
                script = _script(name, rest)
                if script is not None and depth < _MAX_DEPTH:
                    return self.script(script, timed, depth + 1)
                return None
            if name == "yes":
                return "`yes` never stops (a fast generator, untouched even under timeout)"
            if name == "seq":
                return _seq(rest)
            if name == "cat":
                reason = self.fifo(rest)
                if reason is not None and not timed:
                    return reason
            return None if timed else _follower(name, rest)
        return None

    def script(self, script: str, timed: bool, depth: int) -> str | None:
        try:
            tree = parse_bash(script)
        except ShellSyntaxError:
            return None  # the shell will refuse it too
        return _Scanner(self.cwd, None).node(tree.root, tree.data, timed, depth)

    def redirect(self, redirect: Node) -> str | None:
        if redirect.get("Op") != "<":
            return None
        word = child(redirect, "Word")
        target = self.word(word) if word is not None else None
        if target is not None and _DEVICE.fullmatch(target):
            return f"it reads {target}, which never ends (untouched even under timeout)"
        return self.fifo([target]) if target is not None else None

    def fifo(self, paths: Iterable[str | None]) -> str | None:
        if self.cwd is None:
            return None
        for path in paths:
            if path is None or path.startswith("-"):
                continue
            try:
                mode = os.stat(os.path.join(self.cwd, path)).st_mode
            except (OSError, ValueError):
                continue
            if stat.S_ISFIFO(mode):
                return f"it reads the FIFO {path!r}, which ends only when its writer does"
        return None


def _script(name: str, args: _Words) -> str | None:
    """The literal script a shell (`-c`), `eval` or `ssh` would run."""
    if name == "eval":
        if any(arg is None for arg in args):
            return None
        return " ".join(arg for arg in args if arg is not None)
    if name == "ssh":
        rest = _skip_options(
            args,
            frozenset("-" + c for c in "BbcDEeFIiJLlmOoPpQRSWw"),
            assignments=False,
        )
        remote = rest[1:]
        if not remote or any(arg is None for arg in remote):
            return None
        return " ".join(arg for arg in remote if arg is not None)
    for index, arg in enumerate(args):
        if arg is not None and arg.startswith("-") and not arg.startswith("--") and "c" in arg:
            return args[index + 1] if index + 1 < len(args) else None
    return None


def _endless_loop(loop: Node) -> str | None:
    cond = children(loop, "Cond")
    if len(cond) != 1 or cond[0].get("Negated") is True:
        return None
    cmd = child(cond[0], "Cmd")
    if cmd is None:
        return None
    until = loop.get("Until") is True
    if cmd.get("Type") == "CallExpr":
        words = command_words(cmd)
        if not words or words[0] is None:
            return None
        name = words[0]
        if not until and (name in ("true", ":") or (name == "sleep" and len(words) == 2)):
            return f"`while {name}` loops forever"
        if not until and name in ("[", "test") and len(words) in (2, 3) and words[1] == "1":
            return f"`while {name} 1` loops forever"
        if until and name == "false":
            return "`until false` loops forever"
    return None


def unbounded_reason(
    stages: list[Node], data: bytes, cwd: str | None, scope: Scope | None = None
) -> str | None:
    """Why the pipeline made of `stages` (statement nodes of the source `data`) contains an
    unbounded producer, or None. With `cwd`, `cat` and `<` operands are checked for FIFOs
    relative to it (the only file-system access of the planner). `scope` gives the variables
    known when the pipeline starts (None: only literal words are read)."""
    scanner = _Scanner(cwd, scope)
    for stage in stages:
        start = offset(stage, "Pos")
        end = offset(stage, "End")
        reason = scanner.node(stage, data[start:end], timed=False, depth=0)
        if reason is not None:
            return reason
    return None
