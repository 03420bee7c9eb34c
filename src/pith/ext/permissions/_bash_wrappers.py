"""Commands that run other commands (docs/permissions.md, "Bash"): which are wrappers, and the
command or shell text they run when the command line says it (`sudo rm -rf /` runs `rm -rf /`,
`bash -c 'x'` runs `x`). `command -v`, `type`, `which` and a bare `env` or `time` run nothing,
so they are no wrappers. `analyze_argv` is the entry point for any command line; commands that
run nothing else go to `_bash_files`. Pure."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from pith.ext.permissions._bash_argv import (
    ASSIGNMENT,
    Arg,
    Facts,
    Mode,
    Opts,
    Unknown,
    basename,
    posix,
    quote,
    scan,
    words,
)
from pith.ext.permissions._bash_controls import git_facts, pith_arguments, pith_changes_controls
from pith.ext.permissions._bash_files import path_facts

__all__ = ["PRIVILEGE", "SHELLS", "analyze_argv"]


def _find(args: Sequence[Arg]) -> Facts:
    facts = Facts()
    i = 0
    while i < len(args):  # -H -L -P -D debugopts -Olevel
        arg = args[i]
        if arg in ("-H", "-L", "-P") or (isinstance(arg, str) and arg.startswith("-O")):
            i += 1
        elif arg == "-D":
            i += 2
        else:
            break
    starts: list[Arg] = []
    while i < len(args):
        arg = args[i]
        if isinstance(arg, str) and (arg.startswith("-") or arg in ("(", ")", "!", ",")):
            break
        starts.append(arg)
        i += 1
    expression = list(args[i:])
    starts = starts or ["."]
    deletes = "-delete" in expression
    facts.paths += [(start, "write" if deletes else "read", "operand") for start in starts]
    j = 0
    while j < len(expression):
        token = expression[j]
        j += 1
        if token in ("-exec", "-execdir", "-ok", "-okdir"):
            command: list[Arg] = []
            while j < len(expression) and expression[j] not in (";", "+"):
                command.append(expression[j])
                j += 1
            j += 1
            facts.wrapper = "indirection"
            if command:
                facts.commands.append((command, None, tuple(starts)))
        elif token in ("-fprint", "-fprint0", "-fls", "-fprintf") and j < len(expression):
            facts.paths.append((expression[j], "write", "option"))
            j += 1
    return facts


def _fd(args: Sequence[Arg]) -> Facts:
    facts = Facts()
    plain: list[Arg] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg in ("-x", "--exec", "-X", "--exec-batch"):
            command: list[Arg] = []
            while i < len(args) and args[i] != ";":
                command.append(args[i])
                i += 1
            i += 1
            facts.wrapper = "indirection"
            if command:
                facts.commands.append((command, None, ()))
        else:
            plain.append(arg)
    facts.guesses += [
        (a, "operand", True) for a in plain if isinstance(a, str) and not a.startswith("-")
    ]
    return facts


_DEVICE_INPUT = re.compile(r"/dev/(stdin|fd/\d+)|/proc/[^/]+/fd/\d+")

SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"})


def _shell(args: Sequence[Arg]) -> Facts:
    facts = Facts()
    with_c = stdin = False
    i = 0
    while i < len(args):
        arg = args[i]
        if isinstance(arg, Unknown) or arg in ("-", "--") or arg[:1] not in ("-", "+"):
            if arg in ("-", "--"):
                i += 1
            break
        i += 1
        if arg.startswith("--"):
            i += arg in ("--rcfile", "--init-file")
            continue
        letters = arg[1:]
        with_c = with_c or (arg[0] == "-" and "c" in letters)
        stdin = stdin or "s" in letters
        i += letters.count("o") + letters.count("O")  # `-o option`, `+O shopt`
    operands = args[i:]
    if with_c:
        facts.wrapper = "opaque"
        if operands and isinstance(operands[0], str):
            facts.scripts.append(operands[0])
    elif stdin or not operands:
        facts.wrapper = "opaque"
        facts.stdin_script = True
    else:
        script = operands[0]
        facts.paths.append((script, "read", "operand"))
        if isinstance(script, Unknown) or _DEVICE_INPUT.fullmatch(script):
            # `bash <(curl …)`, `bash "$script"`: shell code the text does not show.
            facts.wrapper = "opaque"
            facts.stdin_script = script == "/dev/stdin"
        else:
            facts.script_files.append(script)
    return facts


def _indirection(
    opts: Opts,
    *,
    skip: int = 0,
    chdir: tuple[str, ...] = (),
    paths: Mapping[str, Mode] | None = None,
    assignments: bool = False,
) -> Callable[[Sequence[Arg]], Facts]:
    """A wrapper that runs the command after its options (and `skip` more operands, such as
    `timeout`'s duration); `chdir` options change the directory the command runs in."""

    def handle(args: Sequence[Arg]) -> Facts:
        facts = Facts()
        options, operands = scan(args, opts)
        directory: Arg | None = None
        for name, value in options:
            if value is not None and name in chdir:
                directory = value
            elif value is not None and paths and name in paths:
                facts.paths.append((value, paths[name], "option"))
        operands = operands[skip:]
        if assignments:
            while operands and isinstance(operands[0], str) and ASSIGNMENT.match(operands[0]):
                operands = operands[1:]
        if operands:
            facts.wrapper = "indirection"
            facts.commands.append((list(operands), directory, ()))
        return facts

    return handle


_SUDO = posix(
    "CDghprtTURu",
    "close-from chdir group host prompt role type command-timeout other-user user chroot",
)

_sudo_command = _indirection(_SUDO, chdir=("-D", "--chdir"), assignments=True)


def _sudo(args: Sequence[Arg]) -> Facts:
    options, operands = scan(args, _SUDO)
    names = {name for name, _ in options}
    if names & {"-e", "--edit"}:
        return Facts(wrapper="indirection", paths=[(op, "write", "operand") for op in operands])
    facts = _sudo_command(args)
    if facts.wrapper is None and names & {"-s", "-i", "--shell", "--login"}:
        facts.wrapper, facts.stdin_script = "opaque", True
    return facts


def _env(args: Sequence[Arg]) -> Facts:
    opts = posix("uCS", "unset chdir split-string")
    options, _ = scan(args, opts)
    facts = _indirection(opts, chdir=("-C", "--chdir"), assignments=True)(args)
    split = [value for name, value in options if name in ("-S", "--split-string")]
    if split:
        # `env -S 'rm -rf' x`: the string is split into words that come before the operands.
        rest = facts.commands[0][0] if facts.commands else []
        facts.wrapper, facts.commands = "opaque", []
        if all(isinstance(word, str) for word in (*split, *rest)):
            facts.scripts.append(" ".join([*map(str, split), *(quote(str(a)) for a in rest)]))
    return facts


def _xargs(args: Sequence[Arg]) -> Facts:
    opts = posix(
        "adEILnPs",
        "arg-file delimiter max-args max-procs max-chars process-slot-var",
        optional="eil",
    )
    return _indirection(opts, paths={"-a": "read", "--arg-file": "read"})(args)


def _string_runner(opts: Opts, exec_flags: frozenset[str] = frozenset()) -> Callable[..., Facts]:
    """A wrapper that runs its operands joined into one shell command (`watch 'a | b'`)."""

    def handle(args: Sequence[Arg]) -> Facts:
        options, operands = scan(args, opts)
        facts = Facts()
        if not operands:
            return facts
        facts.wrapper = "indirection"
        if {name for name, _ in options} & exec_flags:
            facts.commands.append((list(operands), None, ()))
        elif all(isinstance(a, str) for a in operands):
            facts.scripts.append(" ".join(str(a) for a in operands))
        return facts

    return handle


def _parallel(args: Sequence[Arg]) -> Facts:
    _, operands = scan(args, posix("jSadEINLnPs", "jobs sshlogin arg-file delimiter"))
    command = []
    for operand in operands:
        if operand in (":::", "::::", ":::+", "::::+"):
            break
        command.append(operand)
    if not command:
        return Facts(wrapper="opaque", stdin_script=True)
    facts = Facts(wrapper="indirection")
    if all(isinstance(a, str) for a in command):
        facts.scripts.append(" ".join(str(a) for a in command))
    return facts


def _flock(args: Sequence[Arg]) -> Facts:
    """`flock [options] file command…` or `flock [options] file -c 'command'`."""
    options, operands = scan(args, posix("wEc", "timeout conflict-exit-code command"))
    facts = Facts()
    if not operands:
        return facts
    lock, command = operands[0], operands[1:]
    if not (isinstance(lock, str) and lock.isdigit()):
        facts.paths.append((lock, "write", "operand"))
    if command and command[0] in ("-c", "--command"):
        options.append(("-c", command[1] if len(command) > 1 else None))
        command = []
    for name, value in options:
        if name in ("-c", "--command") and value is not None:
            facts.wrapper = "opaque"
            if isinstance(value, str):
                facts.scripts.append(value)
    if command:
        facts.wrapper = facts.wrapper or "indirection"
        facts.commands.append((list(command), None, ()))
    return facts


def _su(args: Sequence[Arg]) -> Facts:
    options, _ = scan(args, Opts(values="cgGsw", long_values=words("command group shell")))
    facts = Facts(wrapper="opaque")
    scripts = [v for name, v in options if name in ("-c", "--command") and v is not None]
    facts.scripts += [s for s in scripts if isinstance(s, str)]
    facts.stdin_script = not scripts
    return facts


def _eval(args: Sequence[Arg]) -> Facts:
    facts = Facts(wrapper="opaque")
    if all(isinstance(a, str) for a in args):
        facts.evals.append(" ".join(str(a) for a in args))
    else:
        facts.shell_effect = True
    return facts


def _trap(args: Sequence[Arg]) -> Facts:
    operands = list(args)
    if operands and operands[0] == "--":
        operands = operands[1:]
    if len(operands) < 2 or operands[0] in ("", "-") or operands[0] in ("-l", "-p"):
        return Facts()
    action = operands[0]
    facts = Facts(wrapper="opaque", shell_effect=True)
    if isinstance(action, str):
        facts.scripts.append(action)
    return facts


def _alias(args: Sequence[Arg]) -> Facts:
    facts = Facts()
    for arg in args:
        if isinstance(arg, Unknown) or "=" in arg:
            facts.wrapper, facts.shell_effect = "opaque", True
            if isinstance(arg, str):
                facts.scripts.append(arg.partition("=")[2])
    return facts


def _source(args: Sequence[Arg]) -> Facts:
    facts = Facts(shell_effect=True)
    if not args:
        return facts
    script = args[0]
    if isinstance(script, Unknown) or _DEVICE_INPUT.fullmatch(script):
        facts.wrapper = "opaque"
        facts.stdin_script = script == "/dev/stdin"
    else:
        facts.script_files.append(script)
    facts.paths.append((script, "read", "operand"))
    return facts


def _command(args: Sequence[Arg]) -> Facts:
    options, operands = scan(args, posix())
    if not operands or {name for name, _ in options} & {"-v", "-V"}:
        return Facts()
    return Facts(wrapper="indirection", commands=[(list(operands), None, ())], same_shell=True)


def _builtin(args: Sequence[Arg]) -> Facts:
    if not args:
        return Facts()
    return Facts(wrapper="indirection", commands=[(list(args), None, ())], same_shell=True)


def _exec(args: Sequence[Arg]) -> Facts:
    return _indirection(posix("a"))(args)


def _hash(args: Sequence[Arg]) -> Facts:
    # `hash -p /bin/rm ls` makes `ls` run rm.
    if any(isinstance(a, str) and a.startswith("-") and "p" in a for a in args):
        return Facts(wrapper="opaque", shell_effect=True)
    return Facts()


def _enable(args: Sequence[Arg]) -> Facts:
    if any(isinstance(a, str) and a.startswith("-") and "f" in a for a in args):
        return Facts(wrapper="opaque", shell_effect=True)
    return Facts()


def _runuser(args: Sequence[Arg]) -> Facts:
    options, operands = scan(args, posix("cgGuws", "command group supp-group user shell"))
    if any(name in ("-c", "--command") for name, _ in options):
        return _su(args)
    if any(name in ("-u", "--user") for name, _ in options) and operands:
        return Facts(wrapper="indirection", commands=[(list(operands), None, ())])
    return Facts(wrapper="opaque", stdin_script=True)


PRIVILEGE = frozenset({"sudo", "doas", "su", "pkexec", "runuser", "sudoedit"})
"""Commands that run another command as another user (root): never allowed by a broad rule."""


_WRAPPERS: dict[str, Callable[[Sequence[Arg]], Facts]] = {
    "sudo": _sudo,
    "doas": _indirection(posix("Cu")),
    "env": _env,
    "xargs": _xargs,
    "time": _indirection(posix("fo", "format output"), paths={"-o": "write", "--output": "write"}),
    "nohup": _indirection(posix()),
    "timeout": _indirection(posix("ks", "kill-after signal"), skip=1),
    "nice": _indirection(posix("n", "adjustment")),
    "exec": _exec,
    "command": _command,
    "builtin": _builtin,
    "parallel": _parallel,
    "rust-parallel": lambda args: Facts(wrapper="indirection"),
    "rush": lambda args: Facts(wrapper="indirection"),
    "setsid": _indirection(posix()),
    "stdbuf": _indirection(posix("ioe", "input output error")),
    "watch": _string_runner(
        posix("nq", "interval equexit", optional="d"), frozenset({"-x", "--exec"})
    ),
    "flock": _flock,
    "busybox": _indirection(posix()),
    "su": _su,
    "runuser": _runuser,
    "pkexec": _indirection(posix("u", "user")),
    "eval": _eval,
    "trap": _trap,
    "alias": _alias,
    "source": _source,
    ".": _source,
    "hash": _hash,
    "enable": _enable,
    "find": _find,
    "fd": _fd,
    "fdfind": _fd,
}


def analyze_argv(argv: Sequence[Arg], home: str | None) -> Facts:
    """What the command line `argv` (whose first word is literal) does."""
    name = argv[0]
    assert isinstance(name, str)
    command, args = basename(name), argv[1:]
    own = pith_arguments(argv)
    if own is not None:
        reason = pith_changes_controls(own)
        return Facts(wrapper="control", control=reason) if reason else Facts()
    if command == "git":
        git = git_facts(args)
        if git is not None:
            return git
    if command in SHELLS:
        return _shell(args)
    if command == "sudoedit":
        return Facts(wrapper="indirection", paths=[(a, "write", "operand") for a in args])
    handler = _WRAPPERS.get(command)
    if handler is not None:
        return handler(args)
    return path_facts(command, args, home)
