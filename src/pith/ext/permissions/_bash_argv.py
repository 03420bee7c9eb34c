"""Command lines after expansion: their arguments, what a command does (`Facts`), and GNU-style
option scanning shared by the command tables (`_bash_files`, `_bash_wrappers`).

Option parsing is GNU style (options anywhere before `--`, clusters `-abc`, values attached or
in the next word, unambiguous abbreviations of long options) except where `posix` is set, for
wrappers, whose options end at the command they run.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "ASSIGNMENT",
    "Arg",
    "Facts",
    "Mode",
    "Opts",
    "Origin",
    "Unknown",
    "Wrapper",
    "basename",
    "long_name",
    "posix",
    "quote",
    "scan",
    "words",
]

Mode = Literal["read", "write", "access"]

Origin = Literal["operand", "redirect", "cd", "option"]

Wrapper = Literal["opaque", "indirection", "control"]


@dataclass(frozen=True)
class Unknown:
    """An argument whose value is only known when the command runs."""

    source: str
    """Its text in the command, such as `"$dir"/x` or `$(pwd)`."""


Arg = str | Unknown


@dataclass
class Facts:
    """What a command line does, as far as its text tells."""

    wrapper: Wrapper | None = None
    """It runs a command it names (`indirection`) or one hidden in a string (`opaque`)."""
    paths: list[tuple[Arg, Mode, Origin]] = field(default_factory=list)
    """Arguments in a path position (an `Unknown` one is an unresolved path operand)."""
    guesses: list[tuple[str, Origin, bool]] = field(default_factory=list)
    """Arguments of a command this module does not know: each is a path (read) if it looks
    like one; the flag says a bare name counts when it names an existing file."""
    commands: list[tuple[list[Arg], Arg | None, tuple[Arg, ...]]] = field(default_factory=list)
    """Commands it runs, as argv, with the directory they run in when it changes (`env -C`)
    and what their `{}` placeholder stands for (`find`'s starting points; empty: unknown)."""
    scripts: list[str] = field(default_factory=list)
    """Shell text it runs in a new shell (`bash -c '…'`, `watch '…'`)."""
    evals: list[str] = field(default_factory=list)
    """Shell text it runs in this shell (`eval '…'`)."""
    stdin_script: bool = False
    """It runs the commands it reads from standard input (`bash` with no script)."""
    chdir: Arg | None = None
    """The directory it changes to (`cd x`)."""
    chdir_unknown: bool = False
    """It changes directory to somewhere the text does not say (`cd -`, `popd`)."""
    shell_effect: bool = False
    """It may change this shell's directory or variables in a way not modelled (`source`)."""
    same_shell: bool = False
    """Its command runs in this shell (`command cd x` changes directory)."""
    script_files: list[Arg] = field(default_factory=list)
    """Files whose text it runs as shell code (`bash FILE`, `source FILE`)."""
    control: str | None = None
    """Why it changes pith's own controls (`pith trust --yes`, `git -c core.fsmonitor=…`)."""


def basename(name: str) -> str:
    """The command name without its directory (`/bin/rm` → `rm`)."""
    return name.rstrip("/").rsplit("/", 1)[-1] or name


@dataclass(frozen=True)
class Opts:
    values: str = ""
    """Short options that take a value (`-n 5`, `-n5`)."""
    optional: str = ""
    """Short options whose value, if any, is attached (`sed -i.bak`); the rest of the cluster
    is that value."""
    long_values: frozenset[str] = frozenset()
    """Long options (without `--`) that take the next word when not written `--x=v`."""
    posix: bool = False
    """Options end at the first operand (wrappers: the rest is the command they run)."""


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def long_name(name: str, known: frozenset[str] | Mapping[str, object]) -> str:
    """A long option's full name: itself, or the one known option it abbreviates."""
    if name in known:
        return name
    candidates = [k for k in known if k.startswith(name)]
    return candidates[0] if len(candidates) == 1 else name


def scan(args: Sequence[Arg], opts: Opts) -> tuple[list[tuple[str, Arg | None]], list[Arg]]:
    """`(options with their values, operands)`; an option is `-x` or `--name`."""
    options: list[tuple[str, Arg | None]] = []
    operands: list[Arg] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if isinstance(arg, Unknown) or arg == "-" or not arg.startswith("-"):
            operands.append(arg)
            if opts.posix:
                operands += args[i:]
                break
            continue
        if arg == "--":
            operands += args[i:]
            break
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            name = long_name(name, opts.long_values)
            if eq:
                options.append(("--" + name, value))
            elif name in opts.long_values and i < len(args):
                options.append(("--" + name, args[i]))
                i += 1
            else:
                options.append(("--" + name, None))
            continue
        for j in range(1, len(arg)):
            letter = arg[j]
            if letter in opts.values:
                if j + 1 < len(arg):
                    options.append(("-" + letter, arg[j + 1 :]))
                elif i < len(args):
                    options.append(("-" + letter, args[i]))
                    i += 1
                else:
                    options.append(("-" + letter, None))
                break
            if letter in opts.optional:
                options.append(("-" + letter, arg[j + 1 :] or None))
                break
            options.append(("-" + letter, None))
    return options, operands


ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def posix(values: str = "", long: str = "", optional: str = "") -> Opts:
    return Opts(values=values, optional=optional, long_values=words(long), posix=True)
