"""The guard's differential corpus: a fixture directory and the commands run over it.

`build_fixture(root)` writes a small project — source files, logs of thousands of lines (one
over 2000 lines, one over 50 KB in fewer lines, one single line over 50 KB), multibyte and
invalid UTF-8 text, a subdirectory, scripts that fail or write to stderr. `CORPUS` lists the
commands, each marked with whether the guard strips views from it (`stripped`), so a change of
plan is a visible failure, not a silent loss of coverage. Used by test_differential.py (each
command by `bash -c` and by the guarded bash tool) and by bench/guard.py (planning latency).

A case may carry `reference`: the command bash runs instead of `command` when the guard
deviates from bash in a documented way (docs/guard.md, "Documented deviations"), with the
deviation named in `deviation`. `expect` pins the exact output of the issue's named examples.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CORPUS", "Case", "build_fixture"]


@dataclass(frozen=True)
class Case:
    command: str
    stripped: bool
    """The guard takes views off this command (`details.guard` is present)."""
    expect: str | None = None
    """The exact output (trailing whitespace trimmed), for the issue's named examples."""
    reference: str | None = None
    """What bash runs instead of `command`, for a documented deviation."""
    deviation: str = ""
    known_bug: str = ""
    """Why the guard still differs here (the test expects the difference: strict xfail)."""

    @property
    def id(self) -> str:
        return self.command if len(self.command) <= 60 else self.command[:57] + "..."


def S(command: str, **extra: str) -> Case:  # reads like a table
    return Case(command, True, **extra)  # type: ignore[arg-type]


def U(command: str, **extra: str) -> Case:
    return Case(command, False, **extra)  # type: ignore[arg-type]


# --- the fixture ------------------------------------------------------------------------------

_WORDS = [
    *("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"),
    *("lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi"),
    *("chi", "psi", "omega"),
]

_APP = '''\
"""A small app for the guard's corpus."""

import json
import os
import sys

from src.util import parse, render

DEFAULT_NAME = "pith"


class Config:
    def __init__(self, path: str) -> None:
        self.path = path
        self.values: dict[str, object] = {}

    def load(self) -> None:
        # TODO: validate the schema
        with open(self.path) as handle:
            self.values = json.load(handle)


def main(argv: list[str]) -> int:
    config = Config(os.environ.get("APP_CONFIG", "config.json"))
    config.load()
    for arg in argv:
        print(render(parse(arg)))  # FIXME: quote
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
'''

_UTIL = '''\
"""Helpers."""


def parse(text: str) -> list[str]:
    # TODO: handle quotes
    return text.split()


def render(words: list[str]) -> str:
    return " ".join(word.upper() for word in words)


def unused() -> None:
    raise NotImplementedError
'''

_UTF8 = (
    "héllo wörld ✓\n"
    "日本語のテキスト\n"
    "emoji 🎉 party 🚀\n"
    "Ελληνικά και русский\n"
    "combining: e\u0301 a\u0308\n"
    "plain ascii line\n"
    "עברית right-to-left\n"
    "naïve café résumé\n"
)

_FAIL = """\
#!/bin/sh
echo "step 1"
echo "step 2"
echo "error: step 3 failed" >&2
exit 3
"""

_MIXED = """\
#!/bin/sh
i=1
while [ $i -le 6 ]; do
  echo "out $i"
  echo "err $i" >&2
  i=$((i + 1))
done
"""

_TESTS = """\
#!/bin/sh
# Prints a test run: passes, a failure in the middle, a summary; exits 1.
i=1
while [ $i -le 40 ]; do
  if [ $i -eq 17 ]; then
    echo "test_case_$i FAILED"
    echo "  AssertionError: expected 3, got 4"
  else
    echo "test_case_$i PASSED"
  fi
  i=$((i + 1))
done
echo "=== 39 passed, 1 failed ==="
exit 1
"""


def _build_log() -> str:
    lines = []
    for n in range(1, 3001):
        level = "ERROR" if n % 250 == 0 else "WARN" if n % 37 == 0 else "INFO"
        lines.append(f"[{n:04d}] {level} compiling module_{n % 97}.c ({n * 13 % 1000} ms)\n")
    lines.append("BUILD DONE: 12 errors, 81 warnings\n")
    return "".join(lines)


def _app_log() -> str:
    lines = []
    for n in range(1, 201):
        level = ("DEBUG", "INFO", "INFO", "WARN", "INFO", "ERROR")[n % 6]
        lines.append(
            f"2024-05-{n % 28 + 1:02d} 12:{n % 60:02d} {level} request {n} took {n % 17}ms\n"
        )
    lines.append("2024-05-29 13:00 INFO DONE shutting down\n")
    return "".join(lines)


def build_fixture(root: Path) -> None:
    """Write the corpus's project into `root` (created; must not exist)."""
    root.mkdir(parents=True)
    for folder in ("src", "logs", "data", "text", "sub/deeper", "scripts", "dir with space"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    readme = "".join(
        f"{'## ' if n % 10 == 1 else ''}README line {n}: pith guard docs {_WORDS[n % 24]}\n"
        for n in range(1, 41)
    )
    (root / "README.md").write_text("# Project\n\n" + readme)
    (root / "src" / "__init__.py").write_text("")
    (root / "src" / "app.py").write_text(_APP)
    (root / "src" / "util.py").write_text(_UTIL)
    (root / "src" / "data.json").write_text('{"name": "pith", "items": [1, 2, 3]}\n')
    (root / "logs" / "build.log").write_text(_build_log())  # > 2000 lines and > 50 KB
    (root / "build.log").write_text(_build_log()[:20_000])
    (root / "logs" / "app.log").write_text(_app_log())
    (root / "logs" / "wide.log").write_text(  # > 50 KB in 600 lines
        "".join(f"{n:04d} " + "x" * 110 + f" end {n}\n" for n in range(1, 601))
    )
    (root / "logs" / "empty.log").write_text("")
    (root / "data" / "utf8.txt").write_text(_UTF8)
    (root / "data" / "words.txt").write_text(
        "".join(f"{_WORDS[(n * 7) % 24]}\n" for n in range(500))
    )
    (root / "data" / "table.csv").write_text(
        "id,name,score\n"
        + "".join(f"{n},{_WORDS[n % 24]},{(n * 37) % 101}\n" for n in range(1, 101))
    )
    (root / "data" / "noeol.txt").write_text("first\nsecond\nlast without newline")
    (root / "data" / "patterns.txt").write_text("WARN\nrequest 1[0-9] \n")
    (root / "text" / "notes.txt").write_text("notes in text\n")
    (root / "data" / "crlf.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    (root / "data" / "spaces.txt").write_text("a  \nb\t\n\n   \n\n")
    (root / "data" / "binary.bin").write_bytes(bytes(range(256)) * 4)
    (root / "data" / "latin1.txt").write_bytes(b"caf\xe9 au lait\nna\xefve\nplain\n")
    (root / "data" / "nul.txt").write_bytes(b"before\x00after\nsecond line\n")
    (root / "data" / "long_line.txt").write_text("y" * 60_000 + "\n")
    (root / "data" / "no-output.txt").write_text("(no output)")
    (root / "sub" / "a.txt").write_text("alpha in sub\nshared line\n")
    (root / "sub" / "b.txt").write_text("beta in sub\nshared line\n")
    (root / "sub" / "notes.md").write_text("# Notes\n- one\n- two\n- three\n")
    (root / "sub" / "deeper" / "c.txt").write_text("gamma deep\n")
    (root / "dir with space" / "file.txt").write_text("spaced out\n")
    for name, text in (("fail.sh", _FAIL), ("mixed.sh", _MIXED), ("tests.sh", _TESTS)):
        path = root / "scripts" / name
        path.write_text(text)
        os.chmod(path, 0o755)


# --- the commands -----------------------------------------------------------------------------

_MERGED = "stdout and stderr are merged before the view"
_TO_THE_END = "the command runs to its end"
_ISSUE = [
    S("seq 1 5 | head -n2", expect="1\n2"),
    S("seq 1 5 | tail -n2", expect="4\n5"),
    U("yes | head -5", expect="y\ny\ny\ny\ny"),
    U("tail -f logs/app.log | grep -m 1 DONE", expect="2024-05-29 13:00 INFO DONE shutting down"),
    S('echo "== build ==" && cd sub && echo "in $(basename "$PWD")" && cat a.txt | tail -1'),
    S("echo start && false && echo never && seq 3 | tail -1"),
    S("echo start && cd missing-dir && echo never && seq 3 | tail -1"),
    S("cd sub && echo moved && ls | head -2"),
    U('seq 1 10 | grep 5; echo "R=$?"'),
    U('cat logs/app.log | grep -c nothing-here; echo "R=$?"'),
    S("cat logs/build.log | tail -5 > out.txt"),
    S("cat data/utf8.txt | head -3"),
    S("cat data/utf8.txt | grep '🎉'"),
    S("cat src/app.py | grep no-such-text-anywhere"),
]

_KNOWN_STATE = [
    # literal variables, the directory the views run in, `-`, quiet shopts, a trailing cd
    S("X=5; seq 1 $X | tail -2", expect="4\n5"),
    S('f=build.log; tail -n 100 "$f" | grep -c INFO'),
    S('f=logs/app.log; tail -n 20 "$f" | head -3'),
    S("N=4 && cd logs && tail -n $N app.log | grep -c INFO"),
    U("X=5; { X=inf; seq $X; } | head -1"),
    U("X=inf; seq 1 $X | head -2"),
    S("cd logs && cat app.log | grep -f ../data/patterns.txt | head -2"),
    S("cd logs && cat app.log | grep -c -f ../data/patterns.txt > ../count.txt"),
    S("cd sub/deeper && cd ../.. && cat logs/app.log | grep -f data/patterns.txt | tail -1"),
    S("cd missing-dir && cat app.log | grep -f ../data/patterns.txt | head -2"),
    U("cd logs; cat app.log | grep -f ../data/patterns.txt | head -2"),
    S("seq 1 10 | tail -n 2 -", expect="9\n10"),
    S("seq 1 10 | grep -c 1 -"),
    S("seq 3 | head -n 1 - -"),
    S("shopt -s nullglob; echo *.nothing | head -1", expect=""),
    S("shopt -s dotglob nullglob && ls -d sub/* | head -2"),
    U("shopt -s extglob; seq 3 | head -1"),
    S("cd text && cat ../build.log | grep -c ERROR > ../count.txt"),
    S("cd sub && cat ../logs/build.log | grep ERROR | tail -2 >> ../errors.txt"),
    U("cd text; cat ../build.log | grep -c ERROR > ../count.txt"),
    S("cat build.log | grep -c ERROR; cd src"),
    S("cat build.log | grep -c ERROR; cd missing-dir"),
    S("cat build.log | tail -3; cd src; [ -f app.py ]"),
    S("cd missing-dir && cat build.log | grep -c ERROR; cd src"),
    U("cat build.log | tail -3 > last.txt; cd src"),
]

_HEAD_TAIL = [
    S("seq 100 | head"),
    S("seq 100 | tail"),
    S("seq 100 | head -3"),
    S("seq 100 | tail -3"),
    S("seq 100 | head -n 7"),
    S("seq 100 | tail -n 7"),
    S("seq 100 | head --lines=4"),
    S("seq 100 | tail --lines=4"),
    S("seq 100 | tail -n +95"),
    S("seq 100 | tail -n+98"),
    S("seq 100 | tail -n +0 | head -2"),
    S("seq 100 | head -n 0"),
    S("seq 100 | tail -n 0"),
    S("seq 5 | head -n 50"),
    S("seq 100 | head -c 20"),
    S("seq 100 | tail -c 12"),
    S("seq 100 | head -n -97"),
    S("seq 100 | head -q -n 2"),
    S("seq 3 | head -v -n 2"),
    S("seq 100 | /usr/bin/head -2"),
    S("seq 100 | /bin/tail -2"),
    S("cat data/noeol.txt | tail -1"),
    S("cat data/noeol.txt | head -2"),
    S("cat data/noeol.txt | tail -c 5"),
    S("cat data/crlf.txt | tail -2"),
    S("cat data/spaces.txt | head -2"),
    S("cat data/spaces.txt | tail -3"),
    U("printf 'a\\0b\\0c\\0' | head -z -n 2 | tr '\\0' ,"),  # tr ends the run
    S("printf 'a' | tail -3"),
    S("cat README.md | head -20 | tail -3"),
    S("cat README.md | tail -n 5 | head -n 1"),
    S("cat logs/build.log | head -2500 | tail -2"),
    S("seq 100 | head -n abc"),
    S("seq 100 | tail --bytes=7"),
]

_GREP = [
    S("cat logs/app.log | grep ERROR"),
    S("cat logs/app.log | grep -v INFO"),
    S("cat logs/app.log | grep -i error"),
    S("cat logs/app.log | grep -c WARN"),
    S("cat logs/app.log | grep -n DEBUG"),
    S("cat logs/app.log | grep -m 3 ERROR"),
    S("cat logs/app.log | grep -m3 -n INFO"),
    S("cat logs/app.log | grep -E 'ERROR|WARN'"),
    S("cat logs/app.log | grep -o 'request [0-9]*5 '"),
    S("cat logs/app.log | grep -A 2 'request 100 '"),
    S("cat logs/app.log | grep -B 1 'request 50 '"),
    S("cat logs/app.log | grep -C1 'request 7 '"),
    S("cat logs/app.log | grep -2 'request 77 '"),
    S("cat logs/app.log | grep -e DONE -e 'request 1 '"),
    S("cat logs/app.log | grep -w 'request 9'"),
    S("cat logs/app.log | grep -x '2024-05-29 13:00 INFO DONE shutting down'"),
    S("cat logs/app.log | grep -F 'took 1ms'"),
    S("cat logs/app.log | grep -c -v ERROR"),
    S("cat logs/app.log | grep -q ERROR"),
    S("cat logs/app.log | grep -q NOPE"),
    S("cat logs/app.log | grep -l ERROR"),
    S("cat logs/app.log | grep -L ERROR"),
    S("cat logs/app.log | grep -H -m1 WARN"),
    S("cat logs/app.log | grep --label=app.log -H -m2 WARN"),
    S("cat logs/app.log | grep -b -m2 ERROR"),
    S("cat logs/app.log | grep -ivn 'info\\|debug' | head -5"),
    S("cat logs/app.log | grep --color=never -m1 ERROR"),
    S("cat logs/app.log | grep --color=always -m1 ERROR"),
    S("cat logs/app.log | grep -P 'request \\d{3} ' | tail -2"),
    S("cat logs/app.log | grep -E '('"),
    S("cat logs/app.log | grep --count --ignore-case done"),
    S("cat logs/app.log | grep --max-count=2 --line-number WARN"),
    S("cat logs/app.log | grep -- -not-an-option"),
    S("cat logs/app.log | egrep 'DONE|request 3 '"),
    S("cat logs/app.log | fgrep 'took 16ms' | head -3"),
    S("cat src/app.py | grep -n TODO"),
    S("cat src/app.py | grep -n 'def '"),
    S("cat src/*.py | grep -c import"),
    S("cat data/utf8.txt | grep -i 'ÉLLO'"),
    S("cat data/utf8.txt | grep -o '[[:alpha:]]*ö[[:alpha:]]*'"),
    S("cat data/utf8.txt | grep -c ."),
    S("cat data/latin1.txt | grep plain"),
    S("cat data/latin1.txt | grep -a caf"),
    S("cat data/nul.txt | grep after"),
    S("cat data/nul.txt | grep -c line"),
    S("cat data/crlf.txt | grep -c 'o'"),
    S("printf '(no output)' | grep -c output"),
    S("cat data/no-output.txt | grep -c no"),
    S("cat data/no-output.txt | tail -1"),
]

_RG_LESS = [
    S("cat logs/app.log | rg ERROR | head -3"),
    S("cat logs/app.log | rg -n WARN | tail -2"),
    S("cat logs/app.log | rg -i 'done'"),
    S("cat logs/app.log | rg -c INFO"),
    S("cat logs/app.log | rg -v 'INFO|DEBUG|WARN' | head -4"),
    S("cat logs/app.log | rg -o 'request 1[0-9] '"),
    S("cat data/utf8.txt | rg 'é'"),
    S("cat logs/app.log | rg nothing-matches"),
    S("seq 20 | less | tail -2"),
    S("seq 5 | less"),
    S("seq 5 | more"),
    S("cat data/utf8.txt | less -R | head -2"),
]

_LARGE = [
    # outputs over the bash tool's caps: the guard reads the full-output file
    S("cat logs/build.log | tail -3"),
    S("cat logs/build.log | head -3"),
    S("cat logs/build.log | grep ERROR"),
    S("cat logs/build.log | grep -c INFO"),
    S("cat logs/build.log | grep -v INFO | tail -4"),
    S("cat logs/wide.log | tail -2"),
    S("cat logs/wide.log | grep -c x"),
    S("seq 1 100000 | tail -1"),
    S("seq 1 100000 | grep -c 7"),
    S("cat data/long_line.txt | head -c 10"),
    S("cat logs/build.log | grep INFO"),  # the projection itself is over the caps
    S("cat logs/build.log | tail -n +2"),
    S("cat data/long_line.txt | tail -1"),
    S("cat data/long_line.txt | grep -c y"),
    S("cat logs/build.log; seq 3 | head -1"),  # the side channel alone is over the caps
    S("cat logs/build.log && false && seq 3 | head -1"),
    S("cat logs/wide.log && seq 3 | tail -1"),
    S("cat logs/wide.log | grep end"),
    U("cat logs/build.log"),
    U("cat logs/wide.log"),
    U("cat data/long_line.txt"),
    U("seq 1 5000"),
    U("cat logs/build.log | sort | uniq -c | sort -rn"),
]

_TRANSFORMS = [
    S("cat data/words.txt | sort | uniq -c | sort -rn | head -3"),
    S("cat data/words.txt | sort -u | head -5"),
    S("cat data/words.txt | sort | uniq | tail -2"),
    S("cut -d, -f2 data/table.csv | sort | uniq -c | sort -k1,1nr -k2 | head -4"),
    S("sort -t, -k3 -n data/table.csv | tail -3"),
    S("awk -F, '$3 > 90' data/table.csv | head -5"),
    S("sed -n '10,20p' logs/app.log | grep WARN"),
    S("cat logs/app.log | awk '{print $3}' | sort | uniq -c | grep -v DEBUG"),
    S("cat logs/build.log | cut -c1-6 | tail -2"),
    S("tr a-z A-Z < README.md | grep -m2 GUARD"),
    S("cat data/table.csv | column -t -s, | head -3"),
    S("wc -l logs/*.log | sort -n | tail -2"),
    S("ls -1 src | sort -r | head -2"),
    U("cat data/words.txt | sort | uniq -c"),
    U("cat logs/app.log | grep ERROR | wc -l"),
    U("seq 10 | grep 1 | sed 's/1/one/'"),
    U("cat README.md | head -5 | tr a-z A-Z"),
]

_CHAINS = [
    S("cat logs/app.log | grep ERROR | head -3"),
    S("cat logs/app.log | grep ERROR | tail -3"),
    S("cat logs/app.log | grep -v INFO | grep -v DEBUG | tail -2"),
    S("cat logs/app.log | grep request | grep -c 'took 1'"),
    S("seq 1000 | grep 7 | grep 3 | head -5 | tail -2"),
    S("seq 1000 | head -100 | tail -5"),
    S("seq 1000 | tail -n +990 | head -3"),
    S("cat logs/app.log | grep WARN | rg -c 'request'"),
    S("cat logs/app.log | grep -m5 INFO | grep -n took"),
    S("seq 50 | grep 5 | head -1 | grep 9"),
]

_HOISTED = [
    S("echo header; seq 10 | tail -2"),
    S("echo one; echo two >&2; seq 10 | tail -2"),
    S('echo "=== tests ===" && ./scripts/tests.sh | tail -3'),
    S('echo "=== tests ===" && ./scripts/tests.sh | grep -A1 FAILED'),
    S("printf 'no newline'; seq 3 | head -1"),
    S("echo a; echo b; echo c; seq 5 | head -2"),
    S("mkdir -p made && echo made-dir && seq 3 | tail -1"),
    S("touch touched.txt && ls | grep -c touched"),
    S("cp README.md copy.md && cat copy.md | head -2"),
    S("echo x > first.txt; cat first.txt | grep x"),
    S("echo x > first.txt && echo y >> first.txt && cat first.txt | tail -1"),
    S("rm -f data/words.txt; ls data | head -3"),
    S("ls missing-file; seq 3 | head -1"),
    S("ls missing-file && seq 3 | head -1"),
    S("ls missing-file || seq 3 | head -1"),
    S("ls README.md || seq 3 | head -1"),
    S("cat missing.txt && echo never | head -1"),
    S("grep -q DONE logs/app.log && cat logs/app.log | tail -1"),
    S("grep -q NEVER logs/app.log && cat logs/app.log | tail -1"),
    S("grep -q NEVER logs/app.log || cat logs/app.log | tail -1"),
    S("echo start; false && echo no; seq 4 | tail -1"),
    S("(cd sub && pwd | sed 's|.*/||'); ls | head -2"),
    S("{ echo grouped; echo more; }; seq 3 | tail -1"),
    S('X=42; echo "x is $X"; seq $X | tail -1'),  # seq's length is known from X
    S('X=42; echo "x is $X"; seq 42 | grep -c 4'),
    S('N=3; seq 10 | head -2; Y="$N"'),
    S("pwd | sed 's|.*/||'; cd sub/deeper && pwd | sed 's|.*/||' && cat c.txt | head -1"),
    S("cd sub; cat a.txt | grep shared"),
    S("cd sub && cd deeper && ls | head -1"),
    S("cd sub && cat a.txt | tail -1 > /dev/null"),
    S("echo 'ünïcödé 前置き'; cat data/utf8.txt | tail -1"),
    S("echo $((6 * 7)); seq 3 | tail -1"),
    S("./scripts/fail.sh; seq 3 | tail -1"),
    S("./scripts/fail.sh && seq 3 | tail -1"),
    S("./scripts/fail.sh || seq 3 | tail -1"),
    S("./scripts/mixed.sh; seq 3 | tail -1"),
    S("echo a && { echo b; false; } && seq 3 | head -1"),
    S("false || echo rescued && seq 3 | head -1"),
    S("cd sub && seq 3 | tail -1 > out.txt"),  # the view writes where the shell is
    U("if true; then echo yes; fi; seq 3 | head -1"),
    U("f() { echo f; }; f; seq 3 | head -1"),
    U("exit 3; seq 3 | head -1"),
    U("eval echo hi; seq 3 | head -1"),
    S("echo $(seq 3 | head -2) | head -1"),  # the inner view stays with its producer
    U("seq 3 | head -1 | cat"),
    U("sleep 0.1 & seq 3 | head -1"),
    U("echo a | head -1; seq 3 | head -1"),
]

_SILENT = [
    S("true; seq 5 | tail -2"),
    S(": && seq 5 | head -2"),
    S("true && seq 5 | tail -1"),
    S("false || seq 5 | tail -1"),
    S("true || seq 5 | tail -1"),
    S("false && seq 5 | tail -1"),
    S("false; seq 3 | head -1"),
    S("export FOO=bar; env | grep -c '^FOO=bar$'"),
    S("A=1 B=2; seq 3 | tail -1"),
    S("[ -f README.md ] && cat README.md | head -2"),
    S("[ -f missing.md ] && cat README.md | head -2"),
    S("[ -d sub ] || seq 3 | head -1"),
    S("test -n x && seq 3 | head -1"),
    S("[[ -e src/app.py ]] && cat src/app.py | grep -c def"),
    S("declare -x MODE=fast; seq 3 | tail -1"),
    S("seq 5 | head -2; true"),
    S("seq 5 | grep 9; true"),
    S("seq 5 | grep 9; false"),
    S("seq 5 | grep 3; X=1"),
    S("seq 5 | grep 9; :"),
    S("seq 5 | tail -1; [ -f README.md ]"),
    S("seq 5 | tail -1; [ -f nothing.here ]"),
    # the view's file must exist before a test after the pipeline looks for it
    U("seq 3 | tail -1 > t.txt; [ -s t.txt ]"),
    U("seq 3 | grep 2 >> t.txt; [ -f t.txt ]"),
    # a pipeline member runs in a subshell: its cd or exit must not reach the statement after
    S("{ cd sub; ls; } | head -1; [ -f a.txt ]"),
    S("cd sub | head -1; [ -f a.txt ]"),
    S("{ echo a; exit 3; } | tail -1; true"),
    S("exit 3 | head -1; true"),
    S("(exit 3) | head -1; true"),
]

_STATUS = [
    U('seq 5 | head -1; echo "status $?"'),
    U("seq 5 | grep 9; echo $?"),
    U('seq 5 | head -1; echo "${PIPESTATUS[@]}"'),
    U("seq 5 | grep 9 && echo found"),
    U("seq 5 | grep 9 || echo missing"),
    U("seq 5 | grep 3 && echo found"),
    U("! seq 5 | grep 9"),
    U("seq 5 | grep 9; echo after"),
    U("set -o pipefail; false | head -1"),
    U("set -e; seq 3 | head -1"),
    U("TIMEFORMAT=; time seq 3 | head -1"),  # (no timings: they differ from run to run)
    U("seq 3 |& head -1"),
    U("seq 3 | command head -1"),
    U("( seq 5 | tail -1 )"),
    U("{ seq 5 | tail -1; }"),
    U("seq 3 | head -1 &"),
    U("seq 3 | head -1 & wait"),
]

_HEREDOCS = [
    U("cat <<EOF | head -2\nfirst\nsecond\nthird\nEOF"),
    U("cat <<'EOF' | grep b\na\nb\nEOF"),
    U("cat <<-EOF | tail -1\n\tone\n\ttwo\n\tEOF"),
    S("cat <<< 'here string line' | grep here"),
    S("grep -c a <<< 'banana' | head -1"),
]

_UNBOUNDED = [
    U("yes abc | head -2"),
    U("yes | grep -m 3 y"),
    U("seq inf | head -3"),
    U("seq 1 inf | grep -m2 7"),
    U("seq 1 100000000 | head -2"),
    U("while true; do echo loop; done | head -3"),
    U("while :; do echo spin; done | grep -m1 spin"),
    U("until false; do echo u; done | head -1"),
    U("for ((;;)); do echo c; done | head -2"),
    U("head -c 100 /dev/zero | tr '\\0' z | head -c 5"),
    U("cat /dev/zero | head -c 5 | wc -c"),
    U("tr -dc a-z < /dev/urandom | head -c 8 | wc -c"),
    U("bash -c 'yes' | head -2"),
    U("timeout 5 yes | head -2"),
    U("tail -F logs/app.log | grep -m1 ERROR"),
    U("tail --follow logs/app.log | head -2"),
    S("timeout 1 tail -f logs/app.log | grep -c INFO"),
    S("timeout 1 tail -f logs/app.log | tail -1"),
    S("seq 1 9999999 | tail -1"),
    # a real pipe waits for everything holding its write end, background jobs included
    U("{ (sleep 1; echo late) & echo now; } | tail -2"),
    U("{ sleep 1; echo late; } > >(cat) | tail -2"),
]

_REDIRECTS = [
    S("cat missing.txt 2>&1 | head -1"),
    S("cat missing.txt 2>/dev/null | head -1"),
    S("grep ERROR < logs/app.log | head -2"),
    S("cat < data/words.txt | tail -1"),
    S("sort -r < data/words.txt | uniq | head -3"),
    S("./scripts/mixed.sh 2>&1 | tail -3"),
    S("./scripts/mixed.sh 2>/dev/null | tail -3"),
    S("./scripts/mixed.sh 2>&1 | grep -c err"),
    S("./scripts/fail.sh 2>&1 | tail -1"),
    S("./scripts/fail.sh 2>/dev/null | head -1"),
    S("seq 3 | head -1 2>/dev/null"),
    S("seq 3 | head -1 > /dev/null"),
    S("seq 5 | grep 3 2>&1"),
    S("seq 3 | LC_ALL=C grep 2"),
    S("seq 10 | tail -3 > tail.txt"),
    S("seq 10 | tail -3 >> tail.txt; true"),
    S("seq 10 | head -3 > out/missing/dir.txt"),
    S("cat logs/build.log | grep ERROR > errors.txt"),
    S("cat logs/app.log | grep -c ERROR > count.txt"),
    S("seq 10 | head -2 &> both.txt"),
    S("seq 10 | grep -c 1 > /dev/null; true"),
    S("cat 'dir with space/file.txt' | head -1"),
    S("cat dir\\ with\\ space/file.txt | grep -c out"),
    U("seq 3 | head -1 1>&2"),
    U("seq 3 | head -1 > /dev/stderr"),
    U("seq 3 | head -1 < README.md"),
    U("seq 3 | head -n $N"),
    U("seq 3 | head -2 README.md"),
    U("seq 3 | grep -r x src"),
    S("seq 3 | grep -f patterns.txt"),
    S("seq 10 | tee all.txt | tail -2"),
    # the command runs to its end (documented): no broken pipe, a complete tee
    S(
        "python3 -c 'for i in range(100000): print(i)' | head -1",
        reference="out=$(python3 -c 'for i in range(100000): print(i)'); echo \"$out\" | head -1",
        deviation=_TO_THE_END,
    ),
    S(
        "seq 1 200000 | tee all.txt | head -1",
        reference="seq 1 200000 | tee all.txt > /dev/null; head -1 all.txt",
        deviation=_TO_THE_END,
    ),
    S("cat logs/app.log | tee copy.log | grep -c ERROR"),
]

_EXITS = [
    S("false | head -1"),
    # The script's stderr passes a real pipe by; the guard's view sees it (documented).
    S(
        "./scripts/fail.sh | tail -2",
        reference="./scripts/fail.sh 2>&1 | tail -2",
        deviation=_MERGED,
    ),
    S(
        "./scripts/fail.sh | grep step",
        reference="./scripts/fail.sh 2>&1 | grep step",
        deviation=_MERGED,
    ),
    S(
        "./scripts/fail.sh | grep -c nothing",
        reference="./scripts/fail.sh 2>&1 | grep -c nothing",
        deviation=_MERGED,
    ),
    S(
        "./scripts/mixed.sh | grep -c err",
        reference="./scripts/mixed.sh 2>&1 | grep -c err",
        deviation=_MERGED,
    ),
    S(
        "ls README.md missing | head -1",
        reference="ls README.md missing 2>&1 | head -1",
        deviation=_MERGED,
    ),
    S("./scripts/tests.sh | tail -2"),
    S("./scripts/tests.sh | grep -B1 -A1 FAILED"),
    S("./scripts/tests.sh | grep -c PASSED"),
    S("sh -c 'echo out; exit 7' | tail -1"),
    S("bash -c 'exit 4' | head -1"),
    S("seq 3 | grep 7"),
    S("seq 3 | grep -c 7"),
    S("seq 3 | grep -v '[0-9]'"),
    S("printf 'a\\n' | grep nomatch"),
    S("cat logs/empty.log | head -1"),
    S("cat logs/empty.log | grep -c x"),
    S("cat logs/empty.log | tail -n +3"),
    S("true | tail -1"),
    S("printf '' | grep ."),
    S("ls missing 2>/dev/null | head -1"),
    S("nonexistent-command-xyz 2>&1 | head -1"),
    U("seq 5 | head -n 2 -x"),
    U("seq 5 | grep --no-such-flag x"),
]

_SYNTAX = [
    S("# a comment\nseq 3 | head -1  # and another"),
    S("seq 3 | head -1 # | tail -5"),
    S("seq 10 \\\n  | tail -2"),
    S("seq 10 |\n  tail -2"),
    S("echo first\necho second\nseq 10 | tail -1"),
    S("echo a\necho $LINENO | head -1"),
    S("seq 3 | head -1;"),
    U("seq 3 | head -1 |"),
    U("seq 3 | head -1 )"),
    S("seq 3 | \\head -1"),
    S("seq 3 | 'tail' -1"),
    S("seq 3 | grep $'2'"),
    U("printf 'a\\tb\\n' | grep $'\\t'"),
    S("seq 5000 | head -n 2k | tail -1"),
    S("seq 10 | tail -n -3"),
    S("seq 3 | rg"),
    S("seq 3 | less -N"),
    S("pushd sub > /dev/null; ls | head -1"),
    S("popd; seq 3 | head -1"),
    S("umask 077 && seq 3 | tail -1"),
    U("umask 077 && seq 3 | tail -1 > u.txt"),
    S('read first < README.md; echo "$first" | head -1'),
    S("ls missing; echo $? | head -1"),
    S("false && echo a || echo b; seq 3 | head -1"),
    S("kill -9 $$; seq 3 | head -1"),
    S("sh -c 'kill -9 $$' | head -1"),
    S("{ sh -c 'kill -9 $$'; } 2> /dev/null; seq 3 | head -1"),  # bash's notice names a pid
    S("echo 'ünï' && printf 'ä\\nö\\n' | tail -1"),
    S("echo {a,b,c}-x | head -1"),
    S("printf 'a\\nb\\nc\\n' | grep 'a\nc'"),
    S("seq 3 | tail -n +10"),
    S("seq 3 | tail -0"),
    S("seq 9 | head -n1 -n2"),
    S("seq 20 | tail -c +45"),
    S("seq 3 | tail +2"),
    S("seq 30 | grep -m1 -A2 1"),
    S("printf 'a\\rb\\n' | tail -1"),  # a progress bar's \r ends no line
    S("printf '10%%\\r50%%\\r100%%\\ndone\\n' | head -1"),
    S("printf 'x\\r\\ny\\r\\n' | tail -n 1"),
    S("cat <<< hi; seq 3 | head -1"),
    U("(seq 3 | head -1); seq 3 | tail -1"),
    S("echo header; cat logs/build.log | tail -n +2"),
    S('set -- one two; echo "$2" | head -1'),
]

_FILES_AND_TOOLS = [
    S("ls | head -3"),
    S("ls -1 sub | tail -2"),
    S("ls -la src | grep -c py"),
    S("find . -name '*.py' | sort | head -2"),
    S("find sub -type f | sort | tail -1"),
    S("find . -type d | sort | grep -v '^\\.$' | head -4"),
    S("du -a sub | sort -k2 | head -2"),
    S("grep -rn TODO src | sort | head -3"),
    S("grep -c '' logs/*.log | sort | head -2"),
    S("cat src/data.json | grep -o '\"[a-z]*\"'"),
    S("python3 -c 'print(\"py out\")' | head -1"),
    S("python3 -c 'import sys; sys.exit(5)' | tail -1"),
    S("printf '%s\\n' c b a | sort | head -2"),
    S("printf 'x\\ty\\n' | grep -P '\\t'"),
    S("echo 'it'\"'\"'s quoted' | grep -o \"'s\""),
    S("echo '$(not run)' | grep -F '$('"),
    S("echo 'a|b|c' | grep -F '|b|'"),
    S("head -c 300 data/binary.bin | tail -c 20 | od -An -tx1 | head -2"),
    S("cat data/binary.bin | head -c 4 | od -c | head -1"),
    S("cat data/binary.bin | grep -c ."),
    S("cat data/binary.bin | head -c 64"),
    S("cat data/latin1.txt | head -2"),
    S("cat data/latin1.txt | tail -c 7"),
    S("cat data/latin1.txt | grep caf"),
    S("cat data/latin1.txt | head -c 6"),
    S("cat data/binary.bin | tail -c 3"),
    S("cat src/app.py | grep -n 'class\\|def' | tail -2"),
    S("cat src/util.py src/app.py | grep -c TODO"),
    S("git --version | head -c 3"),
    S("date -d @0 -u +%Y | head -1"),
    S("env | grep -c '^PATH='"),
    S("seq 20 | xargs -n 5 | tail -1"),
    S("seq 10 | paste -sd+ | bc | head -1"),
    S("grep -rn TODO src | head -3"),
]


CORPUS: list[Case] = [
    *_ISSUE,
    *_KNOWN_STATE,
    *_HEAD_TAIL,
    *_GREP,
    *_RG_LESS,
    *_LARGE,
    *_TRANSFORMS,
    *_CHAINS,
    *_HOISTED,
    *_SILENT,
    *_STATUS,
    *_HEREDOCS,
    *_UNBOUNDED,
    *_REDIRECTS,
    *_EXITS,
    *_SYNTAX,
    *_FILES_AND_TOOLS,
]
