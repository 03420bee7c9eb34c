"""Which trailing pipeline stages are views the guard may strip, and what their arguments say.

A **view** (`head`, `tail`, `grep`, `egrep`, `fgrep`, `rg`, `less`, `more`) only selects from
its input, so the guard can run the command without it and apply it to the full output
afterwards. A **transform** (`sed`, `awk`, `cut`, `sort`, `uniq`, `wc`, `column`, `jq`, `yq`,
`tr`) is never stripped; it, or any other command, ends the trailing run of views.

A view is stripped only when every argument is understood: each tool has a table of the
options it may carry; an unknown option, an option that searches or selects files (`grep -r`,
`tail -f`), or an operand that names a file (`head -2 file`) makes the planner leave the
command alone — that view would not be reading the pipe. An operand `-` is the pipe itself.
`grep -f FILE` (and `rg -f`) still reads the pipe: the pattern file is reported in `reads`, for
the planner to check where it is read from. Options may follow operands, as GNU getopt
allows; `--` ends the options.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from pith.ext.guard._plan_words import word_set

__all__ = ["TRANSFORM_NAMES", "VIEW_NAMES", "ViewArgs", "read_view_args"]

VIEW_NAMES = frozenset({"head", "tail", "grep", "egrep", "fgrep", "rg", "less", "more"})
TRANSFORM_NAMES = frozenset({"sed", "awk", "cut", "sort", "uniq", "wc", "column", "jq", "yq", "tr"})

_COUNT = re.compile(r"\d+")
_TAIL_COUNT = re.compile(r"\+?\d+")
_OBSOLETE_COUNT = re.compile(r"-\d+")


@dataclass(frozen=True)
class ViewArgs:
    """What a view's arguments mean to the executor."""

    simple: Literal["head", "tail"] | None
    """A plain line-count `head`/`tail` the executor may apply in-process."""
    count: int | None
    """For `simple`: the number of lines (`head -n 5`, `tail -5`), or the first line to print
    when `from_start` (`tail -n +5`)."""
    from_start: bool
    """For `simple == "tail"`: `-n +N`, print from line N on (N = 0 means 1, as in GNU tail)."""
    reads: tuple[str, ...] = ()
    """Files the view reads besides the pipe: `grep -f FILE`'s pattern files, as written."""


@dataclass(frozen=True)
class _Spec:
    short_flags: str
    short_args: str
    long_flags: frozenset[str]
    long_args: frozenset[str]
    long_optional: frozenset[str] = frozenset()
    refused: Mapping[str, str] = field(default_factory=dict)
    context_digits: bool = False


_FILE_ONLY = "only matters when following a file"

_HEAD = _Spec(
    "qvz",
    "cn",
    frozenset({"quiet", "silent", "verbose", "zero-terminated"}),
    frozenset({"bytes", "lines"}),
)
_TAIL = _Spec(
    "qvz",
    "cn",
    frozenset({"quiet", "silent", "verbose", "zero-terminated"}),
    frozenset({"bytes", "lines"}),
    refused={
        "-f": "follows forever",
        "-F": "follows forever",
        "--follow": "follows forever",
        "-s": _FILE_ONLY,
        "--sleep-interval": _FILE_ONLY,
        "--pid": _FILE_ONLY,
        "--retry": _FILE_ONLY,
        "--max-unchanged-stats": _FILE_ONLY,
    },
)
_GREP_REFUSED = {
    "-r": "searches files, not the pipe",
    "-R": "searches files, not the pipe",
    "--recursive": "searches files, not the pipe",
    "--dereference-recursive": "searches files, not the pipe",
    "-d": "is about directories, not the pipe",
    "--directories": "is about directories, not the pipe",
    "--include": "selects files, not lines of the pipe",
    "--exclude": "selects files, not lines of the pipe",
    "--exclude-dir": "selects files, not lines of the pipe",
    "--exclude-from": "reads a file",
}
_GREP = _Spec(
    "EFGPiyvwxcLloqsbHhnTZzaIU",
    "efmABCD",
    word_set(
        "extended-regexp fixed-strings basic-regexp perl-regexp ignore-case no-ignore-case "
        "invert-match word-regexp line-regexp count files-without-match files-with-matches "
        "only-matching quiet silent no-messages byte-offset with-filename no-filename "
        "line-number initial-tab null null-data text line-buffered no-group-separator"
    ),
    word_set(
        "regexp file max-count after-context before-context context label binary-files "
        "devices group-separator"
    ),
    word_set("color colour"),
    _GREP_REFUSED,
    context_digits=True,
)
_RG = _Spec(
    "isSvwxclonNHIFUPaqb0zup.L",
    "efmABCrMEtTgj",
    word_set(
        "ignore-case case-sensitive smart-case invert-match word-regexp line-regexp count "
        "count-matches files-with-matches files-without-match only-matching line-number "
        "no-line-number with-filename no-filename fixed-strings multiline multiline-dotall "
        "pcre2 text quiet no-heading heading json vimgrep column no-column byte-offset null "
        "trim passthru no-messages no-config crlf null-data pretty no-unicode unicode hidden "
        "no-ignore unrestricted search-zip include-zero follow"
    ),
    word_set(
        "regexp file max-count after-context before-context context replace max-columns "
        "colors color context-separator field-context-separator field-match-separator "
        "encoding engine threads glob iglob type type-not path-separator"
    ),
    refused={
        "--files": "lists files instead of reading the pipe",
        "--pre": "runs another program on its input",
    },
)
_LESS = _Spec("RrSNnFXEeiIKsqQMm", "", frozenset(), frozenset())
_MORE = _Spec("dflcpsu", "", frozenset(), frozenset())

_SPECS = {
    "head": _HEAD,
    "tail": _TAIL,
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "rg": _RG,
    "less": _LESS,
    "more": _MORE,
}

_Option = tuple[str, str | None]


def _getopt(name: str, argv: list[str], spec: _Spec) -> tuple[list[_Option], list[str]] | str:
    """GNU-style option parsing against `spec`: (options, operands) or why it was refused."""
    options: list[_Option] = []
    operands: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        i += 1
        if word == "--":
            operands += argv[i:]
            break
        if word.startswith("--"):
            long_name, equals, value = word[2:].partition("=")
            key = "--" + long_name
            if key in spec.refused:
                return f"`{name} {key}` {spec.refused[key]}"
            if long_name in spec.long_flags and not equals:
                options.append((key, None))
            elif long_name in spec.long_args:
                if not equals:
                    if i == len(argv):
                        return f"`{name} {word}` lacks its value"
                    value = argv[i]
                    i += 1
                options.append((key, value))
            elif long_name in spec.long_optional:
                options.append((key, value if equals else None))
            else:
                return f"the guard does not know the option `{word}` of `{name}`"
            continue
        if not word.startswith("-") or word == "-":
            operands.append(word)
            continue
        body = word[1:]
        if spec.context_digits and body.isdigit():
            options.append(("-C", body))
            continue
        for j, char in enumerate(body):
            key = "-" + char
            if key in spec.refused:
                return f"`{name} {key}` {spec.refused[key]}"
            if char in spec.short_flags:
                options.append((key, None))
            elif char in spec.short_args:
                value = body[j + 1 :]
                if not value:
                    if i == len(argv):
                        return f"`{name} {word}` lacks its value"
                    value = argv[i]
                    i += 1
                options.append((key, value))
                break
            else:
                return f"the guard does not know the option `{key}` of `{name}`"
    return options, operands


def _line_count(name: str, argv: list[str]) -> ViewArgs | str:
    simple: Literal["head", "tail"] = "head" if name == "head" else "tail"
    obsolete: str | None = None
    if argv and (
        _OBSOLETE_COUNT.fullmatch(argv[0]) or (name == "tail" and _TAIL_COUNT.fullmatch(argv[0]))
    ):
        obsolete, argv = argv[0], argv[1:]
    parsed = _getopt(name, argv, _SPECS[name])
    if isinstance(parsed, str):
        return parsed
    options, operands = parsed
    files = _files(name, operands)
    if isinstance(files, str):
        return files
    if files > 1:  # each `-` gets a `==> standard input <==` header: bash runs it
        return ViewArgs(None, None, False)
    if obsolete is not None:
        if options or obsolete.startswith("+"):
            return ViewArgs(None, None, False)
        return ViewArgs(simple, int(obsolete[1:]), False)
    if not options:
        return ViewArgs(simple, 10, False)
    if len(options) == 1 and options[0][0] in ("-n", "--lines"):
        value = options[0][1] or ""
        pattern = _TAIL_COUNT if name == "tail" else _COUNT
        if pattern.fullmatch(value):
            return ViewArgs(simple, int(value.lstrip("+")), value.startswith("+"))
    return ViewArgs(None, None, False)


def read_view_args(name: str, argv: list[str]) -> ViewArgs | str:
    """What the arguments of the view `name` (one of `VIEW_NAMES`) mean, or why the guard
    must leave it alone."""
    if name in ("head", "tail"):
        return _line_count(name, argv)
    parsed = _getopt(name, argv, _SPECS[name])
    if isinstance(parsed, str):
        return parsed
    options, operands = parsed
    if name in ("less", "more"):
        files = _files(name, operands)
        return files if isinstance(files, str) else ViewArgs(None, None, False)
    reads = tuple(value or "" for key, value in options if key in ("-f", "--file"))
    has_pattern = bool(reads) or any(key in ("-e", "--regexp") for key, _ in options)
    files = _files(name, operands if has_pattern else operands[1:])
    if isinstance(files, str):
        return files
    return ViewArgs(None, None, False, reads)


def _files(name: str, operands: list[str]) -> int | str:
    """How many file operands there are, all of them `-` (the pipe), or why one is refused."""
    for operand in operands:
        if operand != "-":
            return f"`{name}` has a file operand ({operand!r}): it reads the file, not the pipe"
    return len(operands)
