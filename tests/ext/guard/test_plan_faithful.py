"""The proof that a guard plan is faithful: real bash on both sides.

For each command the planner changes, the *original* runs as `bash -c ORIGINAL` and the
*emulation* runs exactly what the executor does (the module docstring of
`pith.ext.guard._plan`):

1. create the sink and the after file empty, make sure the marker does not exist;
2. run `bash -c plan.render(sink, marker, after)` (each only when the plan needs it);
3. marker present (or not needed): output = sink text + the run's output piped through
   `bash -c " | ".join(view texts)` on stdin, in `plan.view_directory(...)` of the run's
   directory + the after file's text; status = that view pipeline's, or the run's own when
   `has_following_statement`;
   marker absent: output = sink text + the run's output + the after file's text, status =
   the run's.

Both sides merge stderr into stdout (`stderr=STDOUT`, as the bash tool does) and run in a
fresh copy of the same fixture directory; the output bytes, the exit status and every file
left in the directory must be identical. The commands keep their pipeline's own stderr empty
(or redirect it into stdout inside the pipeline), which is the guard's one documented
deviation. Plain `head`/`tail` views are also applied in-process (as the executor may) and
must equal what bash printed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pith.ext.guard._plan import GuardPlan, View, plan_command

_BIN = os.path.dirname(sys.executable)  # the venv's rg
ENV = {
    "PATH": f"{_BIN}:/usr/local/bin:/usr/bin:/bin",
    "LC_ALL": "C.UTF-8",
    "HOME": "/nonexistent-home",
}


def _fixture(root: Path) -> None:
    root.mkdir()
    for folder in ("sub", "logs", "data", "text", "src"):
        (root / folder).mkdir()
    _texts(root)
    _texts(root / "sub")  # so that `cd sub && cat lines.txt` writes nothing to stderr
    for name in ("a.py", "b.py", "c.txt"):
        (root / "sub" / name).write_text(f"{name}\n")
    (root / "build.log").write_text(
        "".join(f"{'ERROR' if n % 7 == 0 else 'INFO'} step {n}\n" for n in range(1, 151))
    )
    (root / "logs" / "app.log").write_text(
        "".join(f"{('DEBUG', 'INFO', 'WARN', 'ERROR')[n % 4]} request {n}\n" for n in range(40))
    )
    (root / "data" / "patterns.txt").write_text("WARN\nrequest 3\n")
    (root / "text" / "notes.txt").write_text("notes\n")
    (root / "src" / "app.py").write_text("print('app')\n")


def _texts(root: Path) -> None:
    (root / "lines.txt").write_text("".join(f"line {n}\n" for n in range(1, 31)))
    (root / "log.txt").write_text(
        "INFO start\nERROR disk full\nINFO retry\nFAIL test_a\nERROR timeout\n"
        "INFO done\nFAIL test_b\n"
    )
    (root / "utf8.txt").write_text("héllo wörld ✓\n日本語のテキスト\nemoji 🎉 party\nplain ascii\n")
    (root / "noeol.txt").write_text("first\nsecond\nlast without newline")


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def _bash(script: str, cwd: Path, stdin: bytes = b"") -> tuple[bytes, int]:
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=cwd,
        input=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=ENV,
        timeout=30,
        check=False,
    )
    return done.stdout, done.returncode


_LINE = re.compile(rb"[^\n]*\n|[^\n]+\Z")


def _in_process(view: View, data: bytes) -> bytes:
    """A plain head/tail the way an executor may apply it without a subprocess."""
    lines = _LINE.findall(data)
    assert view.count is not None
    if view.simple == "head":
        return b"".join(lines[: view.count])
    if view.from_start:
        return b"".join(lines[max(view.count, 1) - 1 :])
    return b"".join(lines[max(len(lines) - view.count, 0) :]) if view.count else b""


def _emulate(plan: GuardPlan, cwd: Path, scratch: Path) -> tuple[bytes, int]:
    sink, marker, after = scratch / "sink.out", scratch / "marker", scratch / "after.out"
    sink.write_bytes(b"")
    after.write_bytes(b"")
    marker.unlink(missing_ok=True)
    script = plan.render(
        str(sink) if plan.needs_sink else None,
        str(marker) if plan.needs_marker else None,
        str(after) if plan.needs_after else None,
    )
    output, status = _bash(script, cwd)
    ran = marker.exists() or not plan.needs_marker
    side, later = sink.read_bytes(), after.read_bytes()
    if not ran:
        return side + output + later, status
    views_cwd = Path(plan.view_directory(str(cwd)))
    projected, view_status = _bash(plan.pipeline, views_cwd, stdin=output)
    if all(view.simple for view in plan.views):
        data = output
        for view in plan.views:
            data = _in_process(view, data)
        assert data == projected, f"in-process {plan.pipeline!r} differs from bash"
    return side + projected + later, status if plan.has_following_statement else view_status


def assert_faithful(command: str, tmp_path: Path) -> GuardPlan:
    base = tmp_path / "base"
    if not base.exists():
        _fixture(base)
    plan = plan_command(command, environment=ENV)
    assert plan.changed, plan.reason
    original_dir, emulated_dir = tmp_path / "original", tmp_path / "emulated"
    for folder in (original_dir, emulated_dir):
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(base, folder)
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    expected = _bash(command, original_dir)
    actual = _emulate(plan, emulated_dir, scratch)
    assert actual == expected, f"{command!r} → {plan.render('<sink>', '<marker>', '<after>')!r}"
    assert _snapshot(emulated_dir) == _snapshot(original_dir)
    if not plan.needs_marker:
        # "No marker needed" must mean the pipeline always runs.
        shutil.rmtree(emulated_dir)
        shutil.copytree(base, emulated_dir)
        (scratch / "sink.out").write_bytes(b"")
        marker = scratch / "always"
        marker.unlink(missing_ok=True)
        sink = str(scratch / "sink.out") if plan.needs_sink else None
        after = str(scratch / "after.out") if plan.needs_after else None
        _bash(plan.render(sink, str(marker), after), emulated_dir)
        assert marker.exists()
    return plan


FAITHFUL = [
    # the differential examples
    "seq 1 5 | head -n2",
    "seq 1 5 | tail -n2",
    "cat lines.txt | head -5",
    "cat lines.txt | tail -3",
    "cat lines.txt | tail -n +25",
    "seq 30 | tail -n +28",
    "cat lines.txt | head -n 0",
    "cat lines.txt | /usr/bin/head -2",
    "cat lines.txt | head -20 | tail -2",
    "cat lines.txt | tail -n 3 | head -n 1",
    "cat noeol.txt | tail -1",
    "cat noeol.txt | head -2",
    "cat noeol.txt | tail -n 2",
    "seq 2 | tail -5",
    "printf 'a' | tail -3",
    "seq 2 | head -5 | tail -n +4",
    # grep views, no match, exit status
    "cat lines.txt | grep 1",
    "cat lines.txt | grep nomatch",
    "printf 'a\\n' | grep nomatch",
    "cat log.txt | grep ERROR | head -2",
    "cat log.txt | grep -c INFO",
    "cat lines.txt | grep -m 2 1",
    "seq 1 20 | grep -A1 5 | head -4",
    "seq 5 | grep -v 3 | tail -n 2",
    "seq 3 | LC_ALL=C grep 2",
    "seq 3 | grep 2 2>&1",
    "seq 10 | rg 1",
    "seq 10 | egrep '1|2'",
    "seq 3 | less",
    # multibyte text, in output and in the command
    "cat utf8.txt | grep ö",
    "cat utf8.txt | tail -2",
    "cat utf8.txt | head -c 5",
    "echo '日本語 ✓ done' | grep '✓'",
    "echo 'émoji 🎉'; seq 3 | head -1",
    # transforms stay in the shell
    "ls sub | sort -r | head -2",
    "seq 100 | awk '{s+=$1} END {print s}' | head -1",
    "cat lines.txt | sort -r | uniq | head -3",
    # redirections stay with their command
    "cat < lines.txt | head -2",
    "sort -r < lines.txt | head -2",
    "cat missing.txt 2>&1 | head -1",
    "cat lines.txt | tail -5 > out.txt",
    "cat lines.txt | head -3 >> out2.txt; true",
    "cat lines.txt | head -3 2>/dev/null",
    "grep -n 2 lines.txt | head -3",
    # silent statements, before and after
    "FOO=bar; echo $FOO | head -1",
    "a=1 && echo $a | head -1",
    "export A=1; env | grep '^A=' | head -1",
    "[ -d sub ] && ls sub | head -1",
    "[[ -f lines.txt ]] && cat lines.txt | tail -1",
    "printf 'a\\n' | grep nomatch; true",
    "printf 'a\\n' | grep nomatch; false",
    "ls sub | grep py | head -1; x=1",
    "true || cat lines.txt | head -1",
    "false || cat lines.txt | head -1",
    "echo start; false && cat lines.txt | tail -2",
    # hoisting: echo, cd, && short-circuits, stderr, groups
    "cd sub && ls | head -2",
    "cd missing && ls | tail -1",
    "cd sub && echo '=== list ===' && ls | tail -2",
    "cd missing && echo hi && ls | tail -1",
    "cd missing; ls | tail -1",
    "echo start; cat lines.txt | tail -2",
    "echo hi >&2; cat lines.txt | head -2",
    "ls nonexistent; cat lines.txt | head -1",
    "echo err 1>&2 && seq 3 | tail -1",
    'x=$(echo hi); echo "$x there" | head -1',
    "(echo in a subshell); seq 3 | tail -1",
    "{ echo grp; echo grp2; }; seq 3 | head -1",
    "mkdir -p newdir && cd newdir && pwd | grep -c newdir",
    "cd sub && cd .. && ls | grep lines",
    "echo a && echo b || echo c; seq 2 | head -1",
    "echo x > f.txt && cat f.txt | head -1",
    "echo one\necho two\nseq 3 | tail -1",
    # what the pipeline reads of the shell is preserved
    "false; echo $? | head -1",
    "echo a b; echo $_ | head -1",
    "mkdir -p made && echo $_ | head -1",
    'echo a; false; echo "${PIPESTATUS[0]}" | head -1',
    "echo x\necho $LINENO | head -1",
    "echo first && echo $LINENO | tail -1",
    # variables assigned literals earlier in the command are known
    "X=5; seq 1 $X | tail -2",
    'f=build.log; tail -n 100 "$f" | grep -c INFO',
    'f=missing.log; tail -n 100 "$f" 2>&1 | grep -c INFO',
    "N=3 && seq $N | tail -1",
    'A=2; B="$A"0; seq 1 $B | tail -1',
    "X=5; X+=0; seq 1 $X | tail -2",
    "X='1 3'; seq $X | tail -1",
    # the views run in the directory the shell is in
    "cd logs && cat app.log | grep -f ../data/patterns.txt | head -2",
    "cd logs && cat app.log | grep --file=../data/patterns.txt -c",
    "cd logs && cd ../data && cat ../logs/app.log | grep -f patterns.txt | tail -1",
    "cd missing && cat app.log | grep -f ../data/patterns.txt | head -2",
    "cat logs/app.log | grep -f data/patterns.txt | head -3",
    "cat logs/app.log | grep -f data/nothing.txt",
    "cd text && cat ../build.log | grep -c ERROR > ../count.txt",
    "cd text && cd ../sub && cat lines.txt | tail -2 > out.txt",
    "cd sub && seq 3 | tail -1 > out.txt",
    "cd sub/ && seq 3 | tail -1 >> ./out.txt; true",
    # `-` is the pipe
    "seq 1 10 | tail -n 2 -",
    "seq 1 10 | head -3 -",
    "seq 1 10 | grep 1 -",
    "seq 1 10 | grep -H 1 - -",
    "seq 1 10 | tail -n 2 -- -",
    "seq 3 | head - -",
    # shell options that leave exit statuses alone
    "shopt -s nullglob; echo *.nothing | head -1",
    "shopt -s dotglob nullglob && ls -d * | head -3",
    "shopt -u nullglob; echo *.nothing | head -1",
    "shopt -q nullglob; seq 3 | tail -1",
    # a `cd` after the pipeline
    "cat build.log | grep -c ERROR; cd src",
    "cat build.log | grep -c ERROR; cd missing",
    "cat build.log | grep -c ERROR; cd src; true",
    "cat build.log | grep -c ERROR; cd src; [ -f app.py ]",
    "cd missing && cat build.log | grep ERROR; cd src",
    "echo start; cat build.log | tail -1; cd missing; cd src",
    # bounded producers still strip
    "timeout 5 tail -n 3 lines.txt | head -1",
    "seq 1000 | tail -2",
    "bash -c 'echo inner' | head -1",
]


@pytest.mark.parametrize("command", FAITHFUL)
def test_the_plan_reproduces_what_bash_prints(command: str, tmp_path: Path) -> None:
    assert_faithful(command, tmp_path)


# Composed commands: any silent or hoistable prefix, any producer, any run of views, any
# silent trailer.
_PREFIXES = [
    "",
    "cd sub && ",
    "cd missing && ",
    "echo '== hdr ==' && ",
    "echo first; ",
    "FOO=1; ",
    "true && ",
    "false && ",
    "false || ",
    "ls nope 2>&1; ",
    "[ -f lines.txt ] && echo yes && ",
    "x=$(echo hi) && ",
]
_PRODUCERS = ["cat lines.txt", "seq 12", "cat log.txt", "ls", "cat utf8.txt", "printf 'a\\nb'"]
_VIEWS = [
    "head -3",
    "tail -2",
    "tail -n +3",
    "head -n 1",
    "grep 1",
    "grep -v INFO",
    "grep nomatch",
    "grep -c a",
    "head -c 7",
    "sort -r | head -2",
]
_TRAILERS = ["", "; true", "; false", "; z=2"]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    prefix=st.sampled_from(_PREFIXES),
    producer=st.sampled_from(_PRODUCERS),
    views=st.lists(st.sampled_from(_VIEWS), min_size=1, max_size=3),
    trailer=st.sampled_from(_TRAILERS),
)
def test_composed_commands_are_reproduced(
    prefix: str, producer: str, views: list[str], trailer: str, tmp_path: Path
) -> None:
    command = f"{prefix}{producer} | {' | '.join(views)}{trailer}"
    assert_faithful(command, tmp_path)
