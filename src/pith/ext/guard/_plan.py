"""Pipeline stripping, planned: which trailing views of a bash command the guard may remove,
and the command it runs instead. Pure apart from the parse, a look at CDPATH in the
environment (and, with `cwd`, one `stat` per `cat` operand to spot FIFOs).

`plan_command(command)` returns a `GuardPlan`. Anything the planner does not fully
understand leaves the command untouched (`changed=False`, with a `reason` naming the rule):
doing nothing is always correct.

**What changes.** Only the *final pipeline* (the last top-level statement that is not
silent, and the last member of its `&&`/`||` chain) loses its trailing views — `head`,
`tail`, `grep`, `egrep`, `fgrep`, `rg`, `less`, `more`, with literal arguments, reading the
pipe. A transform (`sort`, `sed`, `wc`, …) or any other command ends the trailing run, so
`… | sort -rh | head -15` keeps `sort -rh` and projects `head -15`. The other statements:

- *silent* statements — `true`, `:`, `false`, assignments and `export`/`readonly`/`declare`
  of quiet values, well-formed literal `test`/`[`/`[[ … ]]` — write nothing at all and stay in
  place, before or after the pipeline;
- every other statement *before* the pipeline is **hoisted** into the side channel: it runs
  where it was, in the current shell, with its stdout and stderr appended to the sink file;
- a `cd` *after* the pipeline (its words running nothing) stays in place, what it prints
  going to the *after* file, shown after the projection;
- any other statement after the pipeline that is not silent, or an `&&`/`||` member after
  it, leaves the command untouched (its output or status would pass through the view); so
  does a test or `cd` after a view that writes a file (it would run before the view does).

What the shell knows when the pipeline starts (`_plan_shell`) is used twice: variables
assigned literals earlier are substituted when the planner reads the stages that stay
(`X=5; seq 1 $X | tail -2` has a bounded producer), and the directory after literal `cd`s
that must have succeeded is where the views run (`GuardPlan.directory`) when one of them
reads (`grep -f ../patterns.txt`) or writes (`> ../count.txt`) a relative path; when that
directory is unknown, such a view leaves the command untouched.

The stages that stay must not start anything in the background (`&`, `>(…)`, `coproc`): a
real pipe waits for their late output, the bash tool stops reading soon after the shell exits.

**Render contract** (`GuardPlan.render(sink, marker, after)`, what the executor runs):

- a hoisted statement `S` becomes `{ S; } >> '<sink>' 2>&1` (all share one sink, appended in
  order). `{ …; }` runs in the current shell, so `cd`, assignments, `$?`, `$_` and `&&`/`||`
  short-circuiting behave as before. `;` rather than a newline keeps `$LINENO` unchanged;
- the cleaned final pipeline `P` becomes `{ P; } 9>'<marker>' 9>&-` when a marker is given:
  the redirection creates the marker file when — and only when — the pipeline starts, and
  fd 9 is closed again before `P` runs. Unlike `: >marker; P` it leaves `$?`, `$_` and
  `PIPESTATUS` as `P` would have seen them. `needs_marker` is True when something before the
  pipeline can skip it (an `&&`/`||` prefix, or a hoisted statement that may exit the shell);
  otherwise `render(sink, None)` leaves `P` bare;
- a trailing `cd` `S` becomes `{ S; } >> '<after>' 2>&1` (`needs_after`);
- when statements follow and only one stage stays, `P` becomes `( P )` if that stage
  could change the shell (a group, an assignment, `cd`, `exit`, …): bash ran it as a pipeline
  member, in a subshell, so its `cd`, assignments or `exit` never reached the statements after
  it (`{ cd sub; ls; } | head -1; [ -f a.txt ]`);
- everything else — silent statements, comments, the pipeline's own redirections
  (`2>&1`, `< in.txt`) — stays byte for byte (slices are taken on UTF-8 bytes).

**Executor contract** (proved by tests/ext/guard/test_plan_faithful.py, which runs real
bash on both sides): create the sink and the after file empty before the run (so `>>`
cannot fail), make sure the marker does not exist, run `render(sink, marker, after)` with
stdout and stderr merged. Then

- marker present: output = sink text + the views applied to the run's output (the views
  joined with ` | ` and fed the output on stdin, in `view_directory(the tool's directory)`;
  or in-process for `View.simple`) + after text; exit status = the last view's, unless
  `has_following_statement`, in which case the run's own status (a statement after the
  pipeline owns it);
- marker absent (the pipeline was skipped): output = sink text + the run's output + after
  text, exit status = the run's.

The one accepted deviation (docs/guard.md, "Documented deviations"): the pipeline's own stderr,
merged into its output, goes through the view, where in bash it would bypass it.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from pith.ext.guard._plan_producers import unbounded_reason
from pith.ext.guard._plan_shell import Unit, shell_point
from pith.ext.guard._plan_statements import (
    FD_PATHS,
    Refusal,
    check_kept,
    check_prefix,
    check_trailing,
    ends_in_view,
    is_cd,
    is_silent,
    is_test,
    needs_subshell,
    view_name,
)
from pith.ext.guard._plan_views import TRANSFORM_NAMES, VIEW_NAMES, read_view_args
from pith.ext.guard._plan_words import program_name
from pith.shell import (
    Node,
    ShellSyntaxError,
    ShellTree,
    call_name,
    chain,
    child,
    children,
    command_words,
    content_end,
    literal_word,
    offset,
    parse_bash,
    stages,
    statement_text,
    string,
    walk,
)

__all__ = ["GuardPlan", "View", "plan_command"]


@dataclass(frozen=True)
class View:
    """One removed pipeline stage."""

    text: str
    """Its source text, its own redirections included (`tail -5 > out.txt`)."""
    name: str
    """The program: `head`, `tail`, `grep`, `egrep`, `fgrep`, `rg`, `less` or `more`
    (`/usr/bin/head` is `head`)."""
    argv: tuple[str, ...]
    """Its literal arguments after quote removal."""
    simple: Literal["head", "tail"] | None
    """Set for a plain line-count `head`/`tail` (`-n N`, `-N`, `--lines=N`, tail's `-n +N`;
    no other option, no redirection, no variable) that may be applied in-process."""
    count: int | None
    """For `simple`: how many lines, or the first line to keep when `from_start`."""
    from_start: bool
    """For `simple == "tail"`: `-n +N`, print from line N on (0 counts as 1)."""
    redirected: bool
    """It has redirections of its own, which the executor must run with it (through bash)."""
    reads: tuple[str, ...] = ()
    """Files it reads besides the pipe (`grep -f FILE`), as written."""


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    keep_end: int
    kind: Literal["hoist", "window", "after"]
    subshell: bool = False
    """For the window: run what stays as `( … )`, the subshell bash gave the pipeline member."""


@dataclass(frozen=True)
class GuardPlan:
    """What the guard does with one bash command."""

    original: str
    """The command as the model wrote it."""
    changed: bool
    """Views are stripped; False means run `original` as it is."""
    reason: str
    """Why it changed, or which rule left it untouched (for notices and `pith guard plan`)."""
    views: tuple[View, ...] = ()
    """The removed stages, in pipeline order."""
    hoisted: tuple[str, ...] = ()
    """Source texts of the statements redirected into the side channel, in order."""
    has_following_statement: bool = False
    """A silent statement stays after the final pipeline, so the views do not own the exit
    status: report the run's own status."""
    cleaned: str = ""
    """The command without its views, before hoisting and the marker (for display and the
    guard contract); `original` when unchanged. Run `render(...)`, not this."""
    directory: str | None = None
    """Where the views must run, relative to the directory the command runs in (or
    absolute): the shell's directory when the pipeline starts, set when a view reads or writes
    a relative path there and a `cd` moved it. None: where the command runs."""
    _skippable: bool = field(default=False, repr=False)
    _edits: tuple[_Edit, ...] = field(default=(), repr=False, compare=False)
    _data: bytes = field(default=b"", repr=False, compare=False)

    @property
    def pipeline(self) -> str:
        """The removed stages joined with ` | ` (empty when unchanged)."""
        return " | ".join(view.text for view in self.views)

    @property
    def needs_sink(self) -> bool:
        """`render` needs a sink path: statements are hoisted."""
        return bool(self.hoisted)

    @property
    def needs_marker(self) -> bool:
        """Something before the final pipeline may skip it, so `render` needs a marker path
        and the executor must check whether the marker file exists."""
        return self._skippable

    @property
    def needs_after(self) -> bool:
        """`render` needs an after path: a `cd` after the pipeline writes what it prints
        there, to be shown after the projection."""
        return any(edit.kind == "after" for edit in self._edits)

    def view_directory(self, cwd: str) -> str:
        """Where the executor runs the views, for a command run in `cwd`."""
        return os.path.join(cwd, self.directory) if self.directory else cwd

    def render(
        self, sink: str | None = None, marker: str | None = None, after: str | None = None
    ) -> str:
        """The command to run (see the module's render contract). `sink` is required when
        `needs_sink`, `marker` when `needs_marker`, `after` when `needs_after`; none may
        contain a single quote."""
        if not self.changed:
            return self.original
        if self.needs_sink and sink is None:
            raise ValueError("this plan hoists statements: render it with a sink path")
        if self.needs_marker and marker is None:
            raise ValueError("the pipeline of this plan can be skipped: render it with a marker")
        if self.needs_after and after is None:
            raise ValueError("a cd follows the pipeline of this plan: render it with an after path")
        for path in (sink, marker, after):
            if path is not None and ("'" in path or not path):
                raise ValueError(f"a side-channel path must be non-empty, without quotes: {path!r}")
        return _splice(self._data, self._edits, (sink, marker, after), logical=False)


def _splice(
    data: bytes,
    edits: tuple[_Edit, ...],
    paths: tuple[str | None, str | None, str | None],
    *,
    logical: bool,
) -> str:
    """`data` with each edit applied: hoisted statements wrapped for the sink, the window
    cut back to its kept stages (and wrapped for the marker), a trailing `cd` wrapped for the
    after file; `logical` only cuts. `paths` are the sink, marker and after paths."""
    sink, marker, after = paths
    out = bytearray()
    position = 0
    for edit in edits:
        out += data[position : edit.start]
        body = data[edit.start : edit.keep_end]
        if edit.subshell:
            body = b"( " + body + b" )"
        if logical:
            out += body
        elif edit.kind == "hoist":
            assert sink is not None
            out += b"{ " + body + b"; } >> '" + _encode(sink) + b"' 2>&1"
        elif edit.kind == "after":
            assert after is not None
            out += b"{ " + body + b"; } >> '" + _encode(after) + b"' 2>&1"
        elif marker is not None:
            out += b"{ " + body + b"; } 9>'" + _encode(marker) + b"' 9>&-"
        else:
            out += body
        position = edit.end
    out += data[position:]
    return out.decode("utf-8", "surrogateescape")


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def plan_command(
    command: str, *, cwd: str | None = None, environment: Mapping[str, str] | None = None
) -> GuardPlan:
    """The guard's plan for `command`. With `cwd` (the directory the command runs in), `cat`
    and `<` operands of the pipeline are checked for FIFOs; nothing else touches the disk.
    `environment` is the one the command runs with (default: this process's): a CDPATH there
    means a relative `cd` may go elsewhere."""
    if not command.strip():
        return _untouched(command, "the command is empty")
    try:
        tree = parse_bash(command)
    except ShellSyntaxError as error:
        return _untouched(command, f"the command does not parse ({error})")
    cdpath = bool((os.environ if environment is None else environment).get("CDPATH"))
    try:
        return _Planner(tree, cwd, cdpath).plan()
    except Refusal as refusal:
        return _untouched(command, refusal.reason)


def _untouched(command: str, reason: str) -> GuardPlan:
    return GuardPlan(command, False, reason, cleaned=command)


# --- the planner --------------------------------------------------------------------------


_QUIET_SHOPTS = frozenset(
    {"nullglob", "failglob", "dotglob", "globstar", "nocaseglob", "globasciiranges", "nocasematch"}
)
"""`shopt` options that only change how words match files and patterns: the stages that stay
run with them as before, and a view's words are literal (no globs) wherever it runs."""


_UNKNOWN_DIRECTORY = (
    "(a `cd` that may have failed, or one it does not follow: `pushd`, a path that is not "
    "literal, `..` above where it started, CDPATH)"
)


class _Planner:
    def __init__(self, tree: ShellTree, cwd: str | None, cdpath: bool) -> None:
        self.tree = tree
        self.data = tree.data
        self.cwd = cwd
        self.cdpath = cdpath

    def refuse_anywhere(self) -> None:
        """Rules about the whole command: here-documents and shell options."""
        for node in walk(self.tree.root):
            if node.get("Op") in ("<<", "<<-") and "Word" in node and "Type" not in node:
                raise Refusal(
                    "it has a here-document, whose body lies outside the statement's text"
                )
            if node.get("Type") != "CallExpr":
                continue
            words = command_words(node)
            if words and words[0] in ("command", "builtin"):
                words = words[1:]
            if not words or words[0] not in ("set", "shopt"):
                continue
            args = words[1:]
            if any(arg is None for arg in args):
                raise Refusal(
                    f"`{words[0]}` with arguments that are not literal may change options"
                )
            text = [arg for arg in args if arg is not None]
            if any(arg in ("errexit", "pipefail") for arg in text) or (
                words[0] == "set"
                and any(re.fullmatch(r"[-+][a-zA-Z]*e[a-zA-Z]*", arg) for arg in text)
            ):
                raise Refusal(
                    "it changes exit-status options (set -e / pipefail), so stripping a view "
                    "would change what fails"
                )
            if words[0] == "shopt":
                _check_shopt(text)
            elif any(arg.startswith(("-", "+")) and arg != "--" for arg in text[:1]):
                raise Refusal("`set` changes shell options the planner does not model")

    def plan(self) -> GuardPlan:
        stmts = self.tree.stmts
        if not stmts:
            raise Refusal("the command is empty")
        self.refuse_anywhere()
        found = self.locate(stmts)
        index, links = found
        stmt = stmts[index]
        check_trailing(stmts[index + 1 :], self.data)
        if stmt.get("Background"):
            raise Refusal(
                "the final statement runs in the background (&): its output is not the command's"
            )
        if stmt.get("Coprocess"):
            raise Refusal("the final statement is a coprocess")
        window = links[-1]
        if stmt.get("Negated") or window.get("Negated"):
            raise Refusal("the pipeline is negated (!), so its status is not the view's")
        all_stages, ops = stages(window)
        if "|&" in ops:
            raise Refusal("`|&` sends stderr into the view as well")
        views: list[View] = []
        cut = len(all_stages)
        while cut > 1:
            view = self.read_view(all_stages[cut - 1])
            if view is None:
                break
            views.insert(0, view)
            cut -= 1
        kept = all_stages[:cut]
        check_kept(kept)
        trailing = stmts[index + 1 :]
        following = bool(trailing)
        looking = next((item for item in trailing if is_test(item) or is_cd(item)), None)
        if looking is not None and any(view.redirected for view in views):
            raise Refusal(
                f"a view writes a file and a {'test' if is_test(looking) else 'cd'} follows the "
                "pipeline: it would run before the guard applies the view"
            )

        prefix = child(child(stmt, "Cmd") or {}, "X") if len(links) > 1 else None
        units = [*stmts[:index], *([prefix] if prefix is not None else [])]
        hoisted = [unit for unit in units if not is_silent(unit)]
        every_and = all(op == "&&" for op in chain(stmt)[1])
        shell_units = [
            Unit(unit, True, False, check_prefix(unit, self.data)) for unit in stmts[:index]
        ]
        shell_units += [
            Unit(member, every_and, every_and, check_prefix(member, self.data))
            for member in links[:-1]
        ]
        point = shell_point(self.tree.root, shell_units, self.cdpath)
        directory = self.check_view_files(
            views, all_stages[cut:], kept, point.directory, point.umask
        )
        fifo_cwd = (
            os.path.join(self.cwd, point.directory)
            if self.cwd is not None and point.directory is not None
            else None
        )
        producer = unbounded_reason(kept, self.data, fifo_cwd, point.scope)
        if producer is not None:
            raise Refusal(f"the pipeline has an unbounded producer: {producer}")

        edits = [
            _Edit(offset(unit, "Pos"), content_end(unit), content_end(unit), "hoist")
            for unit in hoisted
        ]
        edits.append(
            _Edit(
                offset(all_stages[0], "Pos"),
                content_end(all_stages[-1]),
                content_end(kept[-1]),
                "window",
                # Alone, a pipeline's first member would run in the shell itself: its `cd`
                # or `exit` would reach the statements after it.
                subshell=following and len(kept) == 1 and needs_subshell(kept[0]),
            )
        )
        after = [item for item in trailing if is_cd(item)]
        edits += [
            _Edit(offset(item, "Pos"), content_end(item), content_end(item), "after")
            for item in after
        ]
        return GuardPlan(
            original=self.tree.source,
            changed=True,
            reason=_describe(views, len(hoisted), len(trailing), len(after)),
            views=tuple(views),
            hoisted=tuple(statement_text(self.data, unit) for unit in hoisted),
            has_following_statement=following,
            cleaned=_splice(self.data, tuple(edits), (None, None, None), logical=True),
            directory=directory,
            _skippable=prefix is not None or bool(hoisted),
            _edits=tuple(edits),
            _data=self.data,
        )

    def check_view_files(
        self,
        views: list[View],
        removed: list[Node],
        kept: list[Node],
        directory: str | None,
        umask: bool,
    ) -> str | None:
        """Refuse views whose files cannot be reached as bash would reach them; return where
        the views must run (None: where the command runs)."""
        relative = False
        kept_text = " ".join(statement_text(self.data, stage) for stage in kept)
        for view, stage in zip(views, removed, strict=True):
            for path in view.reads:
                if (
                    path in ("", "-")
                    or FD_PATHS.match(path)
                    or path.startswith(("/dev/std", "/proc/"))
                ):
                    raise Refusal(f"the view `{view.text}` reads {path!r}, which is not a file")
                name = re.escape(posixpath.basename(path.rstrip("/")))
                if re.search(rf"(?<![\w.-]){name}(?![\w.-])", kept_text):
                    raise Refusal(
                        f"the view `{view.text}` reads {path!r}, which the pipeline names: in a "
                        "real pipe it is read while the pipeline runs"
                    )
                if not path.startswith("/"):
                    relative = True
                    if directory is None:
                        raise Refusal(
                            f"the view `{view.text}` reads a relative path and the guard cannot "
                            f"tell which directory the shell is in there {_UNKNOWN_DIRECTORY}"
                        )
            for target in self.write_targets(stage):
                if umask and target != "/dev/null":
                    raise Refusal(
                        "a view writes a file and a statement before it changes the umask, "
                        "so the file would be created with other permissions"
                    )
                if not target.startswith("/"):
                    relative = True
                    if directory is None:
                        raise Refusal(
                            "a view writes to a relative path and the guard cannot tell which "
                            f"directory the shell is in there {_UNKNOWN_DIRECTORY}, so it would "
                            "write somewhere else"
                        )
        return directory if relative and directory != "." else None

    def locate(self, stmts: list[Node]) -> tuple[int, list[Node]]:
        """The statement holding the last pipeline that ends in a view, and its members."""
        for index in reversed(range(len(stmts))):
            parts = chain(stmts[index])[0]
            for position in reversed(range(len(parts))):
                if ends_in_view(parts[position]):
                    if position != len(parts) - 1:
                        raise Refusal(
                            "a command joined by && or || after the pipeline depends on its "
                            "exit status"
                        )
                    return index, parts
        last = next((stmt for stmt in reversed(stmts) if not is_silent(stmt)), stmts[-1])
        raise Refusal(self.why_no_view(last))

    def why_no_view(self, stmt: Node) -> str:
        cmd = child(stmt, "Cmd") or {}
        kind = cmd.get("Type")
        if kind in ("Subshell", "Block"):
            if any(n.get("Type") == "BinaryCmd" for n in walk(cmd)):
                return "the pipeline is inside a ( ) or { } group, which the guard does not open"
            return "the command is a group with no pipeline at its end"
        if kind == "TimeClause":
            return "`time` wraps the pipeline, and would time the view too"
        last = chain(stmt)[0][-1]
        last_stages, ops = stages(last)
        if not ops:
            return "not a pipeline: there is no view to strip"
        name, words = call_name(last_stages[-1])
        if name in ("command", "builtin") and len(words) > 1 and words[1] in VIEW_NAMES:
            return f"`{name} {words[1]}` is not stripped: only a plain view is"
        if name is None:
            return "the pipeline does not end in a view"
        program = program_name(name, strict=True)
        if program in TRANSFORM_NAMES:
            return f"the pipeline ends in `{program}`, a transform, which stays in the shell"
        if program_name(name, strict=False) in VIEW_NAMES:
            return f"`{name}` is not in a standard bin directory, so it may not be that view"
        return f"the pipeline ends in `{program}`, not a view"

    def read_view(self, stage: Node) -> View | None:
        """The view `stage` runs, None when it is not a view, or a refusal when it is one the
        guard cannot strip."""
        name = view_name(stage)
        if name is None:
            return None
        cmd = child(stage, "Cmd") or {}
        text = statement_text(self.data, stage)
        words = command_words(cmd)
        if any(word is None for word in words):
            raise Refusal(f"the view `{text}` has arguments that are not literal")
        for assign in children(cmd, "Assigns"):
            value = child(assign, "Value")
            if (
                child(assign, "Index")
                or child(assign, "Array")
                or (value is not None and literal_word(value) is None)
            ):
                raise Refusal(f"the view `{text}` sets a variable that is not literal")
        argv = [word for word in words[1:] if word is not None]
        meaning = read_view_args(name, argv)
        if isinstance(meaning, str):
            raise Refusal(meaning)
        redirects = children(stage, "Redirs")
        for redirect in redirects:
            self.check_view_redirect(redirect, text)
        plain = not redirects and not children(cmd, "Assigns")
        return View(
            text=text,
            name=name,
            argv=tuple(argv),
            simple=meaning.simple if plain else None,
            count=meaning.count if plain else None,
            from_start=meaning.from_start if plain else False,
            redirected=bool(redirects),
            reads=meaning.reads,
        )

    def check_view_redirect(self, redirect: Node, text: str) -> None:
        op = string(redirect, "Op")
        fd = string(child(redirect, "N") or {}, "Value")
        word = child(redirect, "Word")
        target = literal_word(word) if word is not None else None
        if op in ("<", "<<<", "<>", "<&"):
            raise Refusal(f"the view `{text}` reads its input from a redirection, not the pipe")
        if op == ">&":
            if fd == "2" and target == "1":
                return
            raise Refusal(f"the view `{text}` sends output to another descriptor")
        if op not in (">", ">>", ">|", "&>", "&>>") or fd not in (None, "1", "2"):
            raise Refusal(f"the view `{text}` has a redirection the guard does not handle")
        if target is None:
            raise Refusal(f"the view `{text}` writes to a path that is not literal")
        if FD_PATHS.match(target):
            raise Refusal(f"the view `{text}` writes to another descriptor ({target})")

    def write_targets(self, stage: Node) -> list[str]:
        """The files a view's redirections write (checked literal by `check_view_redirect`)."""
        targets: list[str] = []
        for redirect in children(stage, "Redirs"):
            word = child(redirect, "Word")
            target = literal_word(word) if word is not None else None
            if string(redirect, "Op") != ">&":
                targets.append(target or "")
        return targets


def _describe(views: list[View], hoisted: int, following: int, after: int) -> str:
    pipeline = " | ".join(view.text for view in views)
    noun = "view" if len(views) == 1 else "views"
    parts = [f"strips the trailing {noun} `{pipeline}`"]
    if hoisted:
        parts.append(
            f"hoists {hoisted} statement{'s' if hoisted > 1 else ''} before it into the side "
            "channel"
        )
    if after:
        parts.append(
            f"what the cd{'s' if after > 1 else ''} after it print{'' if after > 1 else 's'} "
            "goes into the after channel"
        )
    if following:
        parts.append(
            "the statement after it owns the exit status"
            if following == 1
            else "the statements after it own the exit status"
        )
    return "; ".join(parts)


def _check_shopt(args: list[str]) -> None:
    """Refuse a `shopt` that may change what the planner relies on: any `-o` option (the
    `set -o` ones), or setting or unsetting one outside `_QUIET_SHOPTS`."""
    flags = "".join(arg[1:] for arg in args if arg.startswith("-") and arg != "--")
    names = [arg for arg in args if not arg.startswith("-")]
    changed = set(names) - _QUIET_SHOPTS if ("s" in flags or "u" in flags) else set()
    if "o" in flags or changed:
        what = ", ".join(sorted(changed)) or "-o"
        raise Refusal(f"`shopt` changes shell options the planner does not model ({what})")
