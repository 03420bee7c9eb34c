"""Which arguments of a file command are paths, and whether it reads or writes them (what is
read meets the `read` rules, what is written the `write` and `edit` rules): `cat`, `grep` after
its pattern, `cp` sources read and destination written, `rm`, `sed -i`, `tar`, `cd`, … and, for
commands not listed, the words that may be paths (judged by `_bash` on how they look). Pure: no
file system.

Clients that send or copy files read them too: `curl -d @file`, `-F name=@file` / `=<file`,
`--data-urlencode name@file`, `wget --post-file`, httpie's `field@file` / `field=@file` /
`field:=@file` / `Header:@file`, and the local operands of `scp` and `rsync` (sources read,
the destination written; `host:path` is remote and no path here). A data argument whose value
is only known at run time counts as an unresolved path when the file marker could come from
the part not known (`-d "$X"`, `-F "f=$X"`, but not `-d "name=$X"`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from pith.ext.permissions._bash_argv import (
    ASSIGNMENT,
    Arg,
    Facts,
    Mode,
    Opts,
    Unknown,
    long_name,
    scan,
    words,
)

__all__ = ["FILE_TESTS", "NO_PATHS", "path_facts"]


@dataclass(frozen=True)
class _Spec:
    opts: Opts = field(default_factory=Opts)
    mode: Mode | None = "read"
    """What the command does to its operands (None: they are not paths, e.g. URLs)."""
    option_paths: Mapping[str, Mode] = field(default_factory=dict)
    """Options whose value is a path: `{"-o": "write", "--output": "write"}`."""
    skip_first: bool = False
    """The first operand is a pattern, a script or a mode."""
    unless: frozenset[str] = frozenset()
    """Options that give the pattern/script instead (`grep -e`), making every operand a path."""
    positions: tuple[Mode | None, ...] = ()
    """Modes of the first operands where they differ from `mode` (`uniq in out`)."""
    last: Mode | None = None
    """The last operand's mode when there are several (`cp`'s destination)."""
    target: frozenset[str] = frozenset()
    """Options naming the destination instead of the last operand (`cp -t dir`)."""
    write_if: frozenset[str] = frozenset()
    """Options that make every operand written (`sed -i`, `install -d`)."""
    assignments: bool = False
    """`NAME=value` operands are assignments, not files (awk)."""
    option_files: Mapping[str, Callable[[str], str | None]] = field(default_factory=dict)
    """Options whose value may name a file the command reads, and how to find it in the value
    (`curl -d @file`): the file, or None when the value holds the data itself."""
    remote: bool = False
    """Operands written `host:path` are on another machine (scp, rsync): not paths here."""


def _spec(
    values: str = "",
    long: str = "",
    *,
    optional: str = "",
    paths: str = "",
    mode: Mode | None = "read",
    skip_first: bool = False,
    unless: str = "",
    positions: tuple[Mode | None, ...] = (),
    last: Mode | None = None,
    target: str = "",
    write_if: str = "",
    assignments: bool = False,
    files: Mapping[str, Callable[[str], str | None]] | None = None,
    remote: bool = False,
) -> _Spec:
    """A spec from compact strings: `paths` is `"-o:write --output:write -f:read"`, `unless`,
    `target` and `write_if` are option names separated by spaces; `files` maps options (their
    value is taken like a `paths` option's) to how the file is found in the value."""
    option_paths: dict[str, Mode] = {}
    for item in paths.split():
        name, _, path_mode = item.rpartition(":")
        option_paths[name] = "write" if path_mode == "write" else "read"
    option_files = dict(files or {})
    valued = [*option_paths, *option_files]
    long_values = words(long) | {name[2:] for name in valued if name.startswith("--")}
    values += "".join(name[1] for name in valued if len(name) == 2)
    return _Spec(
        opts=Opts(values=values, optional=optional, long_values=long_values),
        mode=mode,
        option_paths=option_paths,
        skip_first=skip_first,
        unless=words(unless),
        positions=positions,
        last=last,
        target=words(target),
        write_if=words(write_if),
        assignments=assignments,
        option_files=option_files,
        remote=remote,
    )


# --- files named inside data arguments -------------------------------------------------------


def _stdin(name: str) -> str | None:
    return None if name in ("", "-") else name


def _at_file(value: str) -> str | None:
    """`@file` (curl `-d`, `-H`, `-w`): the file after a leading `@`; `@-` is standard input."""
    return _stdin(value[1:]) if value.startswith("@") else None


def _urlencode_file(value: str) -> str | None:
    """`name@file` or `@file` (curl `--data-urlencode`, `--url-query`); `name=data` holds the
    data itself: whichever of `@` and `=` comes first decides."""
    marker = re.search(r"[@=]", value)
    if marker is None or marker.group() == "=":
        return None
    return _stdin(value[marker.end() :])


def _form_file(value: str) -> str | None:
    """`name=@file;type=…` (a file sent) or `name=<file` (its content as the field)."""
    _, eq, content = value.partition("=")
    if not eq or content[:1] not in ("@", "<"):
        return None
    name = content[1:]
    if name.startswith('"'):
        return _stdin(name[1:].split('"', 1)[0])
    return _stdin(name.split(";", 1)[0])


def _cookie_file(value: str) -> str | None:
    """curl `-b`: a value without `=` is a cookie file."""
    return None if "=" in value else _stdin(value)


def _whole(value: str) -> str | None:
    return _stdin(value)


_HTTPIE_ITEM = re.compile(r":=@|=@|:@|==|:=|=|@|:")
_HTTPIE_FILES = frozenset({":=@", "=@", ":@", "@"})


def _httpie_file(item: str) -> str | None:
    """An httpie request item that embeds a file: `field@file`, `field=@file`, `field:=@file`,
    `Header:@file` (the first separator decides, the longest where several start)."""
    marker = _HTTPIE_ITEM.search(item)
    if marker is None or marker.group() not in _HTTPIE_FILES:
        return None
    return _stdin(item[marker.end() :].split(";", 1)[0])


def _dynamic(value: Unknown, find: Callable[[str], str | None]) -> bool:
    """Whether a value known only at run time may name a file: its source, quotes removed,
    with every `$` and backquote standing for a file marker."""
    text = re.sub(r"[\"']", "", value.source)
    return (
        find(re.sub(r"[$`]", "@", text)) is not None or find(re.sub(r"[$`]", "<", text)) is not None
    )


_GREP = _spec(
    "efmABCdD",
    "regexp file max-count after-context before-context context directories devices label "
    "group-separator include exclude exclude-dir binary-files",
    paths="-f:read --file:read --exclude-from:read",
    skip_first=True,
    unless="-e -f --regexp --file",
)

_RG = _spec(
    "efgtTmABCMjErd",
    "regexp file glob iglob type type-not type-add type-clear max-count after-context "
    "before-context context max-columns threads encoding replace max-depth pre pre-glob sort "
    "sortr colors path-separator max-filesize dfa-size-limit regex-size-limit engine "
    "context-separator field-context-separator field-match-separator hostname-bin "
    "hyperlink-format",
    paths="-f:read --file:read --ignore-file:read",
    skip_first=True,
    unless="-e -f --regexp --file --files --type-list",
)

_SED = _spec(
    "efl",
    "expression file line-length",
    optional="i",
    paths="-f:read --file:read",
    skip_first=True,
    unless="-e -f --expression --file",
    write_if="-i --in-place",
)

_AWK = _spec(
    "fvFeilW",
    "file assign field-separator source include load",
    paths="-f:read --file:read",
    skip_first=True,
    unless="-f -e --file --source",
    assignments=True,
)

_COPY_PATHS = "-t:write --target-directory:write"

_COPY_TARGET = "-t --target-directory"

_SUMS = "md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum"

_SPECS: dict[str, _Spec] = {
    **{name: _spec() for name in f"cat zcat bzcat xzcat comm readlink {_SUMS}".split()},
    **{name: _GREP for name in ("grep", "egrep", "fgrep", "zgrep")},
    **{name: _spec("w") for name in ("base64", "base32", "basenc")},
    **{name: _AWK for name in ("awk", "gawk", "mawk", "nawk")},
    "tac": _spec("s"),
    "nl": _spec("bdfhilnsvw"),
    "head": _spec("nc", "lines bytes"),
    "tail": _spec("ncs", "lines bytes sleep-interval pid max-unchanged-stats"),
    "less": _spec("bhjkpPtTxyzoO", paths="-o:write -O:write --log-file:write --LOG-FILE:write"),
    "more": _spec("n"),
    "wc": _spec(paths="--files0-from:read"),
    "sort": _spec(
        "kStTo",
        "key field-separator buffer-size temporary-directory batch-size parallel compress-program",
        paths="-o:write --output:write --files0-from:read --random-source:read",
    ),
    "uniq": _spec("fsw", "skip-fields skip-chars check-chars", positions=("read", "write")),
    "od": _spec("AjNSstw"),
    "xxd": _spec("cglson", positions=("read", "write")),
    "hexdump": _spec("efns", paths="-f:read"),
    "strings": _spec("nteT"),
    "file": _spec("fFmeP", paths="-f:read -m:read"),
    "stat": _spec("c", "format printf"),
    "cut": _spec("bcdf", "bytes characters delimiter fields output-delimiter"),
    "paste": _spec("d", "delimiters"),
    "column": _spec("cstoNRWHE"),
    "fold": _spec("w"),
    "fmt": _spec("wpg"),
    "expand": _spec("t"),
    "unexpand": _spec("t"),
    "iconv": _spec("ft", paths="-o:write --output:write"),
    "diff": _spec(
        "CUxXIFLSDW",
        "exclude ignore-matching-lines show-function-line label starting-file ifdef width "
        "tabsize line-format from-file to-file horizon-lines",
        paths="-X:read --exclude-from:read",
    ),
    "cmp": _spec("in"),
    "bat": _spec("lHrm"),
    "rg": _RG,
    "sed": _SED,
    "tee": _spec(mode="write"),
    "rm": _spec(mode="write"),
    "unlink": _spec(mode="write"),
    "rmdir": _spec(mode="write"),
    "shred": _spec("ns", "iterations size", mode="write", paths="--random-source:read"),
    "truncate": _spec("s", "size", mode="write", paths="-r:read --reference:read"),
    "touch": _spec("dt", "date time", mode="write", paths="-r:read --reference:read"),
    "mkdir": _spec("m", "mode", mode="write"),
    "mkfifo": _spec("m", "mode", mode="write"),
    "ln": _spec("St", "suffix", paths=_COPY_PATHS, mode="write"),
    "cp": _spec("St", "suffix", paths=_COPY_PATHS, last="write", target=_COPY_TARGET),
    "mv": _spec("St", "suffix", paths=_COPY_PATHS, mode="write"),
    "install": _spec(
        "mogtS",
        "mode owner group suffix strip-program",
        paths="-t:write --target-directory:write",
        last="write",
        target=_COPY_TARGET,
        write_if="-d --directory",
    ),
    **{
        name: _spec(
            "",
            "from",
            mode="write",
            paths="--reference:read",
            skip_first=True,
            unless="--reference",
        )
        for name in ("chown", "chgrp")
    },
    "patch": _spec(
        "pdiobrBVYzFgD",
        "strip directory prefix basename-prefix suffix version-control fuzz get ifdef "
        "quoting-style",
        paths="-i:read --input:read -o:write --output:write -r:write --reject-file:write",
        mode="write",
        positions=("write", "read"),
    ),
    "rsync": _spec(
        "efTBM",
        "rsh filter exclude include temp-dir partial-dir compare-dest copy-dest link-dest "
        "backup-dir suffix chmod chown usermap groupmap timeout contimeout bwlimit max-size "
        "min-size block-size rsync-path sockopts port out-format log-file-format protocol iconv "
        "checksum-choice compress-choice compress-level skip-compress info debug stop-after "
        "stop-at modify-window max-delete max-alloc outbuf address remote-option",
        paths="--exclude-from:read --include-from:read --files-from:read --log-file:write "
        "--write-batch:write --only-write-batch:write --read-batch:read --password-file:read",
        last="write",
        remote=True,
    ),
    "scp": _spec(
        "cFiJlPoSDX",
        paths="-F:read -i:read",
        last="write",
        remote=True,
    ),
    "curl": _spec(
        "oTKcDEdHuXxrmYyzCFhQRtwbAe",
        "data-raw user request proxy range max-time user-agent referer form-string "
        "connect-timeout retry limit-rate resolve connect-to",
        mode=None,
        paths="-o:write --output:write -T:read --upload-file:read -K:read --config:read "
        "-c:write --cookie-jar:write -D:write --dump-header:write --trace:write "
        "--trace-ascii:write --cacert:read -E:read --cert:read --key:read "
        "--netrc-file:read --proxy-cacert:read --proxy-cert:read --proxy-key:read "
        "--stderr:write --libcurl:write --etag-save:write --etag-compare:read "
        "--hsts:write --alt-svc:write",
        files={
            **dict.fromkeys(("-d", "--data", "--data-ascii", "--data-binary"), _at_file),
            **dict.fromkeys(("--json", "-H", "--header", "-w", "--write-out"), _at_file),
            **dict.fromkeys(("--proxy-header",), _at_file),
            **dict.fromkeys(("--data-urlencode", "--url-query", "--variable"), _urlencode_file),
            **dict.fromkeys(("-F", "--form"), _form_file),
            **dict.fromkeys(("-b", "--cookie"), _cookie_file),
        },
    ),
    "wget": _spec(
        "OoaPiUeBtTwlQAR",
        "user-agent header tries timeout wait level quota accept reject method post-data body-data",
        mode=None,
        paths="-O:write --output-document:write -o:write --output-file:write "
        "-a:write --append-output:write -P:write --directory-prefix:write "
        "-i:read --input-file:read --post-file:read --body-file:read --load-cookies:read "
        "--save-cookies:write --certificate:read --private-key:read --ca-certificate:read "
        "--config:read --warc-file:write",
    ),
    "unzip": _spec("dxP", mode=None, positions=("read",), paths="-d:write"),
}

NO_PATHS = words(
    "echo printf : true false exit return break continue shift set shopt unset type which "
    "help let read sleep kill seq tr expr basename dirname wait jobs fg bg disown umask ulimit "
    "times caller compgen complete getopts pwd dirs history mapfile readarray"
)


def _known(spec: _Spec, args: Sequence[Arg]) -> Facts:
    facts = Facts()
    options, operands = scan(args, spec.opts)
    names = {name for name, _ in options}
    for name, value in options:
        option_mode = spec.option_paths.get(name)
        if name.startswith("--") and option_mode is None:
            option_mode = spec.option_paths.get("--" + long_name(name[2:], spec.option_paths))
        find = spec.option_files.get(name)
        if find is not None and value is not None:
            _data_file(facts, value, find)
        elif option_mode is not None and value is not None:
            facts.paths.append((value, option_mode, "option"))
        elif name.startswith("--") and isinstance(value, str):
            facts.guesses.append((value, "option", True))
    operands = [op for op in operands if op != "-"]
    if spec.assignments:
        operands = [op for op in operands if not (isinstance(op, str) and ASSIGNMENT.match(op))]
    if spec.skip_first and not names & spec.unless:
        operands = operands[1:]
    mode = "write" if names & spec.write_if else spec.mode
    for index, operand in enumerate(operands):
        operand_mode = mode
        if index < len(spec.positions) and not names & spec.write_if:
            operand_mode = spec.positions[index]
        if spec.last and index == len(operands) - 1 and index > 0 and not names & spec.target:
            operand_mode = spec.last
        remote = spec.remote and isinstance(operand, str) and _REMOTE.match(operand)
        if operand_mode is not None and not remote:
            facts.paths.append((operand, operand_mode, "operand"))
    return facts


_REMOTE = re.compile(r"[^/]*:")
"""`host:path`, `user@host:path`, `host::module`, `rsync://…`: a colon before any slash."""


def _data_file(facts: Facts, value: Arg, find: Callable[[str], str | None]) -> None:
    """The file a data argument names, if any (a value known only at run time that may name
    one is an unresolved path)."""
    if isinstance(value, Unknown):
        if _dynamic(value, find):
            facts.paths.append((value, "read", "option"))
        return
    name = find(value)
    if name is not None:
        facts.paths.append((name, "read", "option"))


_HTTPIE = Opts(
    values="aAopsv",
    long_values=words(
        "auth auth-type output print pretty style session session-read-only cert cert-key "
        "verify timeout max-redirects proxy format-options ssl ciphers boundary "
        "response-charset response-mime default-scheme raw history-print"
    ),
)


def _httpie(args: Sequence[Arg]) -> Facts:
    """`http [options] [METHOD] URL [ITEM…]`: the items that embed a file read it."""
    facts = Facts()
    options, operands = scan(args, _HTTPIE)
    for name, value in options:
        if value is None:
            continue
        if name in ("-o", "--output"):
            facts.paths.append((value, "write", "option"))
        elif name in ("--cert", "--cert-key"):
            facts.paths.append((value, "read", "option"))
    first = operands[0] if operands else None
    method = isinstance(first, str) and first.isalpha() and first.isupper()
    for item in operands[2 if method else 1 :]:
        _data_file(facts, item, _httpie_file)
    return facts


_CHMOD_MODE = re.compile(r"[-+=]?[rwxXstugoa0-7+=,-]*")

_CHMOD_FLAG_LETTERS = frozenset("cfvR")


def _chmod(args: Sequence[Arg]) -> Facts:
    facts = Facts()
    mode_seen = False
    operands_only = False
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if isinstance(arg, Unknown) or operands_only or not arg.startswith("-") or arg == "-":
            if not mode_seen:
                mode_seen = True  # the mode
            else:
                facts.paths.append((arg, "write", "operand"))
        elif arg == "--":
            operands_only = True
        elif arg.startswith("--reference"):
            _, eq, value = arg.partition("=")
            if not eq and i < len(args):
                reference: Arg = args[i]
                i += 1
            else:
                reference = value
            facts.paths.append((reference, "read", "option"))
            mode_seen = True
        elif arg.startswith("--"):
            continue
        elif not mode_seen and not set(arg[1:]) <= _CHMOD_FLAG_LETTERS:
            mode_seen = bool(_CHMOD_MODE.fullmatch(arg)) or mode_seen
    return facts


def _dd(args: Sequence[Arg]) -> Facts:
    facts = Facts()
    for arg in args:
        if isinstance(arg, Unknown):
            facts.paths.append((arg, "write", "operand"))
        elif arg.startswith("if="):
            facts.paths.append((arg[3:], "read", "operand"))
        elif arg.startswith("of="):
            facts.paths.append((arg[3:], "write", "operand"))
    return facts


_TAR_VALUES = "fCTXbHKLNVg"

_TAR_CREATE = frozenset("cruA") | {"--create", "--append", "--update", "--catenate"}

_TAR_EXTRACT = frozenset("x") | {"--extract", "--get"}


def _tar(args: Sequence[Arg]) -> Facts:
    options: list[tuple[str, Arg | None]] = []
    rest = list(args)
    first = rest[0] if rest else None
    if isinstance(first, str) and first and not first.startswith("-"):
        # Old style `tar czf out.tgz dir`: each value letter takes the next word in turn.
        rest = rest[1:]
        for letter in first:
            value = rest.pop(0) if letter in _TAR_VALUES and rest else None
            options.append((letter, value))
    opts = Opts(
        values=_TAR_VALUES,
        long_values=words("file directory files-from exclude-from blocking-factor format"),
    )
    more, operands = scan(rest, opts)
    options += [(name.lstrip("-") if len(name) == 2 else name, value) for name, value in more]
    names = {name for name, _ in options}
    create, extract = bool(names & _TAR_CREATE), bool(names & _TAR_EXTRACT)
    facts = Facts()
    directory = None
    for name, value in options:
        if value is None:
            continue
        if name in ("f", "--file"):
            facts.paths.append((value, "write" if create else "read", "option"))
        elif name in ("C", "--directory"):
            directory = value
            facts.paths.append((value, "write" if extract else "read", "option"))
        elif name in ("T", "X", "--files-from", "--exclude-from"):
            facts.paths.append((value, "read", "option"))
    if create or (extract and directory is None):
        mode: Mode = "read" if create else "write"
        facts.paths += [(op, mode, "operand") for op in operands if op != "-"]
    return facts


FILE_TESTS = words("-a -b -c -d -e -f -g -h -k -p -r -s -u -w -x -G -L -N -O -S")


def _test(args: Sequence[Arg]) -> Facts:
    """`test -f x`, `[ -d y ]`: the operand of a file test is a path (`access`)."""
    facts = Facts()
    for index, arg in enumerate(args[:-1]):
        if arg in FILE_TESTS:
            facts.paths.append((args[index + 1], "access", "operand"))
        elif arg in ("-nt", "-ot", "-ef") and index > 0:
            facts.paths += [(args[index - 1], "access", "operand")]
            facts.paths += [(args[index + 1], "access", "operand")]
    return facts


def _cd(args: Sequence[Arg], home: str | None, *, pushd: bool = False) -> Facts:
    _, operands = scan(args, Opts())
    if not operands:
        if pushd or home is None:
            return Facts(chdir_unknown=True)
        return Facts(chdir=home, paths=[(home, "access", "cd")])
    target = operands[0]
    if target == "-" or (pushd and isinstance(target, str) and re.fullmatch(r"[+-]\d+", target)):
        return Facts(chdir_unknown=True)
    return Facts(chdir=target, paths=[(target, "access", "cd")])


_SINGLE_DASH_VALUE = re.compile(r"-[A-Za-z0-9][\w.-]*=")
"""`-o=value`, `-output=value` (Go's flags and others): the value after `=` is an operand."""


def _unknown_command(args: Sequence[Arg]) -> Facts:
    facts = Facts()
    options_done = False
    for arg in args:
        if not isinstance(arg, str):
            continue
        if arg == "--" and not options_done:
            options_done = True
        elif arg.startswith("--") and not options_done:
            _, eq, value = arg.partition("=")
            if eq:
                facts.guesses.append((value, "option", True))
        elif _SINGLE_DASH_VALUE.match(arg) and not options_done:
            facts.guesses.append((arg.partition("=")[2], "option", True))  # `-o=/tmp/x`
        elif arg.startswith("-") and len(arg) > 2 and not options_done:
            facts.guesses.append((arg[2:], "option", False))  # `-o/tmp/x`, `-I../include`
        elif ASSIGNMENT.match(arg):
            facts.guesses.append((arg.partition("=")[2], "operand", True))  # `make DESTDIR=/x`
        elif arg != "-":
            facts.guesses.append((arg, "operand", True))
    return facts


def _perl(args: Sequence[Arg]) -> Facts:
    """`perl -i` edits its file operands; otherwise perl is a command like any other (its
    `-e` code is not a path)."""
    options, operands = scan(args, Opts(values="eE", optional="ilxCdD0IMmF"))
    names = {name for name, _ in options}
    if "-i" not in names:
        return _unknown_command(operands)
    facts = Facts()
    if not names & {"-e", "-E"} and operands:
        facts.paths.append((operands[0], "read", "operand"))  # the script
        operands = operands[1:]
    facts.paths += [(op, "write", "operand") for op in operands if op != "-"]
    return facts


def path_facts(command: str, args: Sequence[Arg], home: str | None) -> Facts:
    """What `command args…` (a command that runs nothing else) reads, writes or enters."""
    if command in ("cd", "pushd"):
        return _cd(args, home, pushd=command == "pushd")
    if command == "popd":
        return Facts(chdir_unknown=True)
    handler = _HANDLERS.get(command)
    if handler is not None:
        return handler(args)
    spec = _SPECS.get(command)
    if spec is not None:
        return _known(spec, args)
    if command in NO_PATHS:
        return Facts()
    return _unknown_command(args)


_HANDLERS = {
    "chmod": _chmod,
    "dd": _dd,
    "tar": _tar,
    "perl": _perl,
    "test": _test,
    "[": _test,
    **dict.fromkeys(("http", "https", "httpie"), _httpie),
}
