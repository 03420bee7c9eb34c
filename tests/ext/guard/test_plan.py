"""The pipeline-stripping planner: which trailing views are stripped, which producers are
unbounded, which prefixes are silent or hoisted into the side channel, which statements read
the status or own it, and the shapes left untouched (docs/guard.md, "Pipelines"). What bash
makes of the plans is proved in test_plan_faithful.py."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from pith.ext.guard._plan import GuardPlan, plan_command


def changed(command: str) -> GuardPlan:
    plan = plan_command(command)
    assert plan.changed, plan.reason
    return plan


def untouched(command: str, because: str) -> GuardPlan:
    plan = plan_command(command)
    assert not plan.changed, f"{command!r} was changed: {plan.render('<s>', '<m>')!r}"
    assert because in plan.reason, plan.reason
    assert plan.render() == command
    assert plan.cleaned == command
    assert plan.views == ()
    return plan


# --- the basic strips, and a status read that stops one -------------------------------------


def test_ls_head_strips_head_and_runs_ls() -> None:
    plan = changed("ls | head -5")
    assert plan.cleaned == "ls"
    assert plan.render() == "ls"
    assert [view.text for view in plan.views] == ["head -5"]
    assert plan.views[0].simple == "head"
    assert plan.views[0].count == 5
    assert not plan.needs_sink
    assert not plan.needs_marker


def test_npm_test_tail_strips_tail() -> None:
    plan = changed("npm test | tail -10")
    assert plan.cleaned == "npm test"
    assert plan.pipeline == "tail -10"
    assert (plan.views[0].simple, plan.views[0].count) == ("tail", 10)


def test_a_status_read_after_the_window_leaves_a_compound_command_untouched() -> None:
    untouched(
        'cd app && echo "=== build ===" && npm test | tail -12; echo "R=$?"',
        "reads $? or PIPESTATUS",
    )


def test_without_the_status_read_the_dialogue_command_hoists_its_echo() -> None:
    plan = changed('cd app && echo "=== build ===" && npm test | tail -12')
    assert plan.cleaned == 'cd app && echo "=== build ===" && npm test'
    assert plan.hoisted == ('cd app && echo "=== build ==="',)
    assert plan.render("/tmp/s.out", "/tmp/m") == (
        "{ cd app && echo \"=== build ===\"; } >> '/tmp/s.out' 2>&1 && "
        "{ npm test; } 9>'/tmp/m' 9>&-"
    )
    assert plan.needs_sink
    assert plan.needs_marker


def test_a_transform_stops_the_run_but_a_view_after_it_is_still_projected() -> None:
    plan = changed("du -sh * | sort -rh | head -15")
    assert plan.cleaned == "du -sh * | sort -rh"
    assert plan.pipeline == "head -15"


@pytest.mark.parametrize(
    "transform",
    [
        "sed 1d",
        "awk '{print $1}'",
        "cut -c1-3",
        "sort",
        "uniq",
        "wc -l",
        "column -t",
        "jq .",
        "yq .",
        "tr a b",
    ],
)
def test_a_transform_at_the_end_is_never_stripped(transform: str) -> None:
    untouched(f"cat file | {transform}", "a transform")


@pytest.mark.parametrize(
    "view", ["head", "tail", "grep x", "egrep x", "fgrep x", "rg x", "less", "more"]
)
def test_every_view_extractor_is_stripped(view: str) -> None:
    assert changed(f"make | {view}").pipeline == view


def test_redirections_stay_with_their_command() -> None:
    plan = changed("sort < in.txt 2>&1 | tail -5 > out.txt")
    assert plan.cleaned == "sort < in.txt 2>&1"
    assert plan.views[0].text == "tail -5 > out.txt"
    assert plan.views[0].redirected
    assert plan.views[0].simple is None  # the redirection must run with it


def test_unbounded_producers_are_never_stripped() -> None:
    untouched("tail -f build.log | grep -m 1 DONE", "`tail -f` follows")
    untouched("yes | head -5", "`yes` never stops")
    untouched("journalctl -f | grep error", "journalctl -f")
    untouched("watch -n1 date | head -3", "`watch` repeats")
    untouched("ping example.com | head -3", "without a count")
    untouched("tail -F app.log | head", "`tail -f`")
    untouched("tail --follow=name app.log | head", "`tail -f`")


def test_a_bounded_wrapper_is_not_an_unbounded_producer() -> None:
    assert changed("timeout 5 tail -f x | head").cleaned == "timeout 5 tail -f x"
    assert changed("ping -c 3 host | head").cleaned == "ping -c 3 host"
    assert changed("ping -w 2 host | tail -1").cleaned == "ping -w 2 host"
    assert changed("timeout -s KILL 5s journalctl -f | grep x").cleaned.startswith("timeout")


def test_silent_prefixes_stay_in_place() -> None:
    plan = changed("FOO=bar; npm test | head")
    assert plan.render() == "FOO=bar; npm test"
    assert plan.hoisted == ()
    assert not plan.needs_marker  # `;` cannot skip the pipeline
    for prefix in (
        "true",
        ":",
        "false",
        "A=1 B='two'",
        "export A=1",
        "readonly R=1",
        "declare -x D=1",
        "test -f x",
        "[ -d src ]",
        "[[ -n $x ]]",
    ):
        assert changed(f"{prefix}; npm test | tail").hoisted == (), prefix


def test_prefixes_that_may_print_are_hoisted_not_assumed_silent() -> None:
    # `cd` could pass for silent; pith hoists it because a failing `cd` writes to
    # stderr, which the executor merges into the output the view reads.
    assert changed("cd /tmp && npm test | tail").hoisted == ("cd /tmp",)
    assert changed("FOO=bar 2>&1; npm test | tail").hoisted == ("FOO=bar 2>&1",)
    assert changed("(cd x); npm test | tail").hoisted == ("(cd x)",)
    assert changed("{ echo a; }; npm test | tail").hoisted == ("{ echo a; }",)
    assert changed("x=$(date); npm test | tail").hoisted == ("x=$(date)",)
    assert changed("test $x -eq 1; npm test | tail").hoisted == ("test $x -eq 1",)


def test_hoisted_statements_share_one_sink_in_order() -> None:
    plan = changed("echo one; echo two\necho three && make 2>&1 | tail -3")
    assert plan.hoisted == ("echo one", "echo two", "echo three")
    assert plan.render("/s", "/m") == (
        "{ echo one; } >> '/s' 2>&1; { echo two; } >> '/s' 2>&1\n"
        "{ echo three; } >> '/s' 2>&1 && { make 2>&1; } 9>'/m' 9>&-"
    )


def test_a_backgrounded_prefix_is_never_hoisted() -> None:
    untouched("sleep 5 & npm test | tail", "in the background")
    untouched("{ (sleep 1; echo late) & }; npm test | tail", "in the background")
    untouched("echo hi > >(cat); npm test | tail", "in the background")


def test_a_here_document_anywhere_leaves_the_command_untouched() -> None:
    untouched("cat <<EOF > f\nbody\nEOF\nnpm test | tail", "here-document")
    untouched("cat <<'EOF' | head -2\na\nb\nEOF", "here-document")
    untouched("npm test | tail; cat <<-EOF\n\tx\n\tEOF", "here-document")


def test_a_here_string_is_fine() -> None:
    assert changed('grep x <<< "$text" | head -1').cleaned == 'grep x <<< "$text"'


def test_status_reading_statements_after_the_window_are_refused() -> None:
    untouched("printf 'a\\n' | grep nomatch; echo \"R=$?\"", "reads $?")
    untouched("make | tail -3; echo ${?}", "reads $?")
    untouched("make | tail -3; echo ${PIPESTATUS[0]}", "PIPESTATUS")
    untouched("make | tail -3; r=$?", "reads $?")


def test_prefixes_may_read_the_status_of_what_ran_before_them() -> None:
    assert changed('make; echo "make=$?"; ls | head').hoisted == ("make", 'echo "make=$?"')


def test_the_exit_status_owner_is_recorded_when_a_silent_statement_follows() -> None:
    plan = changed("a | grep x; true")
    assert plan.has_following_statement
    assert plan.render() == "a; true"
    assert "owns the exit status" in plan.reason
    assert not changed("a | grep x").has_following_statement


def test_a_printing_statement_after_the_window_is_refused() -> None:
    untouched("a | grep x; echo done", "not silent")
    untouched("cmd | tail -5 > out.txt; cat out.txt", "not silent")


# --- pi-tool-guard's own test table -------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "cleaned", "names"),
    [
        ("npm run build 2>&1 | tail -20", "npm run build 2>&1", ["tail"]),
        (
            "npm run typecheck 2>&1 && npm run build 2>&1 | tail -5",
            "npm run typecheck 2>&1 && npm run build 2>&1",
            ["tail"],
        ),
        ("find src -type f -name '*.ts' | head -20", "find src -type f -name '*.ts'", ["head"]),
        ("cd /path && npm test 2>&1 | tail -20", "cd /path && npm test 2>&1", ["tail"]),
        ("npm test | grep FAIL | head -5", "npm test", ["grep", "head"]),
        ("ps aux | grep uvicorn | grep -v grep", "ps aux", ["grep", "grep"]),
        (
            "curl -s URL 2>&1 | python3 -m json.tool 2>&1 | head -30",
            "curl -s URL 2>&1 | python3 -m json.tool 2>&1",
            ["head"],
        ),
        (
            "head -c 2000 /tmp/file.js | cat -v | head -10",
            "head -c 2000 /tmp/file.js | cat -v",
            ["head"],
        ),
        (
            "PAT_TOKEN=abc ./scripts/calc.py 2>&1 | head -50",
            "PAT_TOKEN=abc ./scripts/calc.py 2>&1",
            ["head"],
        ),
        ('pytest tests/ -x | grep -A 50 "FAILED"', "pytest tests/ -x", ["grep"]),
    ],
)
def test_upstream_cases_that_strip(command: str, cleaned: str, names: list[str]) -> None:
    plan = changed(command)
    assert plan.cleaned == cleaned
    assert [view.name for view in plan.views] == names


def test_upstream_pipeline_text_joins_the_removed_stages() -> None:
    assert changed("npm test | grep FAIL | head -5").pipeline == "grep FAIL | head -5"


@pytest.mark.parametrize(
    "command",
    [
        "sed -n '130,140p' f.ts | cat -n",
        "echo hello | cat",
        "tail -30 /tmp/server.log",
        "ls -la",
        "npm test",
        "cd /tmp && npm install",
        "",
        "   ",
        # pi-tool-guard strips these; pith counts sort and wc as transforms, never stripped
        "cat file | sort",
        "cat file | wc -l",
    ],
)
def test_upstream_cases_that_do_not_change(command: str) -> None:
    plan = plan_command(command)
    assert not plan.changed
    assert plan.render() == command


def test_upstream_defect_a_following_statement_is_never_dropped() -> None:
    untouched("a | head; b", "not silent")  # pi-tool-guard ran only `a`


# --- after the pipeline, here-documents, producers, status options, other shapes ------------


def test_silent_statements_after_the_pipeline_stay() -> None:
    assert changed("make | tail -3; true").render() == "make; true"
    assert changed("make | tail -3; :").render() == "make; :"
    assert changed("make | tail -3; X=1; false").render() == "make; X=1; false"


def test_an_and_or_member_after_the_pipeline_is_refused() -> None:
    untouched("make | tail -3 && echo ok", "joined by && or ||")
    untouched("make | grep -q ok || exit 1", "joined by && or ||")


def test_here_strings_are_not_here_documents() -> None:
    assert changed("cat <<< 'x' | head").changed


@pytest.mark.parametrize(
    ("command", "because"),
    [
        ("while true; do echo y; done | head -3", "`while true`"),
        ("while :; do date; done | head -3", "`while :`"),
        ("until false; do date; done | head -3", "`until false`"),
        ("for ((;;)); do echo; done | head", "`for ((;;))`"),
        ("seq inf | head", "`seq` to infinity"),
        ("seq 1 inf | head", "`seq` to infinity"),
        ("seq 1 100000000000 | head", "numbers"),
        ("seq 1 $N | head", "cannot read"),
        ("cat /dev/zero | head -c 10", "/dev/zero"),
        ("head -c 100 /dev/urandom | base64 | head -2", "/dev/urandom"),
        ("tr -dc a-z < /dev/random | head -c 5", "/dev/random"),
        ("timeout 5 yes | head", "`yes`"),
        ("timeout 5 seq inf | head", "`seq` to infinity"),
        ("timeout 5 cat /dev/urandom | head -c 5", "/dev/urandom"),
        ("nice -n 5 yes | head", "`yes`"),
        ("env FOO=1 stdbuf -oL yes | head", "`yes`"),
        ("bash -c 'tail -f log' | head", "`tail -f`"),
        ("docker logs -f web | grep -m1 ready", "logs -f"),
        ("kubectl logs --follow pod | head", "logs -f"),
        ("npx jest --watch | head", "--watch"),
        ("dmesg -w | head", "dmesg -w"),
        ("tcpdump -i any | head", "tcpdump"),
        ("vmstat 1 | head -3", "interval"),
    ],
)
def test_more_unbounded_producers(command: str, because: str) -> None:
    untouched(command, because)


def test_slow_followers_under_timeout_or_a_count_still_strip() -> None:
    assert changed("timeout 10 journalctl -f | grep x").changed
    assert changed("timeout 3 docker logs -f web | tail -5").changed
    assert changed("seq 1 1000 | tail -2").changed
    assert changed("vmstat 1 3 | tail -1").changed
    assert changed("top -bn1 | head -5").changed


def test_cat_of_a_fifo_is_unbounded(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "file").write_text("x\n")
    assert not plan_command("cat pipe | head -1", cwd=str(tmp_path)).changed
    assert "FIFO" in plan_command("cat pipe | head -1", cwd=str(tmp_path)).reason
    assert not plan_command("sort < pipe | head -1", cwd=str(tmp_path)).changed
    assert plan_command("cat file | head -1", cwd=str(tmp_path)).changed
    # Without a directory the planner does not look at the disk.
    assert plan_command("cat pipe | head -1").changed


@pytest.mark.parametrize(
    "prefix",
    [
        "set -e",
        "set +e",
        "set -euo pipefail",
        "set -o errexit",
        "set +o pipefail",
        "set -o pipefail",
        "shopt -so pipefail",
    ],
)
def test_exit_status_options_leave_the_command_untouched(prefix: str) -> None:
    untouched(f"{prefix}; make | tail -3", "exit-status options")


def test_other_option_changes_are_not_modelled_either() -> None:
    untouched("set -x; make | tail -3", "shell options")
    untouched("shopt -s lastpipe; make | tail -3", "shell options")
    untouched("shopt -s nullglob extglob; make | tail -3", "does not model (extglob)")
    untouched("shopt -u cdable_vars; make | tail -3", "shell options")
    untouched("shopt -so noclobber; make | tail -3", "shell options")
    untouched("shopt -o; make | tail -3", "shell options")
    assert changed("shopt -s nullglob dotglob; make | tail -3").changed  # globbing only
    assert changed("shopt -q nullglob && make | tail -3").changed  # a query
    assert changed("shopt; make | tail -3").changed  # a listing
    untouched("(set -e; make) | tail -3", "exit-status options")
    assert changed("set -- a b; make | tail -3").changed  # positional parameters only


@pytest.mark.parametrize(
    ("command", "because"),
    [
        ("! make | grep -q ok", "negated"),
        ("! true && make | tail", "negated"),
        ("make |& grep error", "`|&`"),
        ("ls | head -2 file", "file operand"),
        ("ls | grep x file", "file operand"),
        ("ls | grep -e x file", "file operand"),
        ("ls | grep -r x", "searches files"),
        ("ls | grep -f -", "not a file"),
        ("ls | grep -f /dev/stdin", "not a file"),
        ("ls | grep -f /dev/fd/0", "not a file"),
        ("ls | head -2 - file", "file operand"),
        ("ls | grep -f p.txt x", "file operand"),
        ("ls | tee p.txt | grep -f p.txt", "the pipeline names"),
        ("ls | rg --files", "lists files"),
        ("ls | head -n $N", "not literal"),
        ("ls | head -n $(cat n)", "not literal"),
        ('ls | grep "$pattern"', "not literal"),
        ("ls | grep *.py", "not literal"),
        ("ls | head -3 1>&2", "another descriptor"),
        ("ls | head -3 >&2", "another descriptor"),
        ("ls | head -3 > /dev/stderr", "another descriptor"),
        ("ls | head -3 3>x", "does not handle"),
        ("ls | head < other.txt", "not the pipe"),
        ("ls | head > $OUT", "not literal"),
        ("ls | tail -f", "follows forever"),
        ("ls | grep --frobnicate x", "does not know the option"),
        ("ls | command head", "`command head`"),
        ("ls | builtin head", "`builtin head`"),
        ("(ls | head)", "inside a ( ) or { } group"),
        ("{ ls | head; }", "inside a ( ) or { } group"),
        ("if true; then :; fi; ls | head", "an `if` statement"),
        ("for f in a b; do echo $f; done; ls | head", "a `for` loop"),
        ("while read l; do :; done < f; ls | head", "loop"),
        ("case x in x) ;; esac; ls | head", "a `case` statement"),
        ("f() { :; }; ls | head", "a function definition"),
        ("exit 0; ls | head", "`exit`"),
        ("return; ls | head", "`return`"),
        ("(echo a; exit 1); ls | head", "`exit`"),
        ("time ls | head", "`time`"),
    ],
)
def test_shapes_left_untouched(command: str, because: str) -> None:
    untouched(command, because)


def test_standard_paths_name_the_view_but_local_scripts_do_not() -> None:
    assert changed("ls | /usr/bin/head -3").views[0].name == "head"
    assert changed("ls | /bin/grep x").views[0].name == "grep"
    untouched("ls | ./head -3", "standard bin directory")


def test_tests_and_false_are_silent_like_test() -> None:
    assert changed("[[ -f x ]]; false; make | tail").hoisted == ()


def test_declarations_with_literal_values_count_as_assignments() -> None:
    assert changed("export A=1 B=two; readonly C=3; make | tail; declare -x D=4").hoisted == ()
    assert changed("export A=$(date); make | tail").hoisted == ("export A=$(date)",)
    untouched("make | tail; export -p", "not silent")  # prints every variable


def test_groups_before_the_pipeline_are_hoisted() -> None:
    assert changed("(echo a; echo b); make | tail").hoisted == ("(echo a; echo b)",)
    assert changed("{ cd x; for f in *; do echo $f; done; }; make | tail").changed
    untouched("{ echo a | head -1; }; make | tail", "view of its own")
    untouched("( return ); make | tail", "`return`")


def test_a_prefix_with_a_view_of_its_own_is_never_hoisted() -> None:
    untouched("git log | head -3; make | tail -3", "view of its own")
    untouched("v=$(git describe | head -1) && make | tail", "view of its own")
    untouched("a | grep x && b | tail -2", "view of its own")


def test_a_backgrounded_final_statement_is_never_stripped() -> None:
    untouched("make | tail -3 &", "in the background")
    untouched("make | tail -3 & true", "in the background")


# --- commands that must never be touched, and close relatives that may be --------------------


def test_what_must_stay_untouched_and_its_relatives_that_strip() -> None:
    untouched("yes | head -5", "yes")
    untouched("tail -f log | grep -m 1 DONE", "tail -f")
    untouched('make | tail -3; echo "R=$?"', "$?")
    untouched("cat <<EOF | grep x\nx\nEOF", "here-document")
    untouched("seq inf | head", "seq")
    assert changed("timeout 5 tail -f x | head").changed
    assert changed("ping -c 3 host | head").changed
    assert changed("du -h | sort -rh | head -15").cleaned == "du -h | sort -rh"
    assert changed("cmd | tail -5 > out.txt").views[0].text == "tail -5 > out.txt"


def test_hoisted_echoes_keep_and_and_short_circuiting_and_cd() -> None:
    plan = changed("cd /missing && echo hi && npm test | tail -3")
    assert plan.render("/s", "/m") == (
        "{ cd /missing && echo hi; } >> '/s' 2>&1 && { npm test; } 9>'/m' 9>&-"
    )
    assert plan.needs_marker  # the executor must know the pipeline was skipped


def test_multibyte_text_is_sliced_on_bytes() -> None:
    plan = changed("echo 'héllo wörld ✓' && printf '日本語\\n' | grep '語' | head -1; x=ü")
    assert plan.hoisted == ("echo 'héllo wörld ✓'",)
    assert plan.pipeline == "grep '語' | head -1"
    assert plan.views[0].argv == ("語",)
    assert plan.render("/s", "/m") == (
        "{ echo 'héllo wörld ✓'; } >> '/s' 2>&1 && { printf '日本語\\n'; } 9>'/m' 9>&-; x=ü"
    )


def test_views_with_output_redirections_refuse_a_directory_the_guard_cannot_follow() -> None:
    untouched("cd build; make | tail -5 > out.txt", "relative path")  # the cd may have failed
    untouched("pushd build && make | tail -5 > out.txt", "relative path")
    untouched("{ cd build; } && make | tail -5 > log/out.txt", "relative path")
    untouched('cd "$D" && make | tail -5 > out.txt', "relative path")
    untouched("cd .. && make | tail -5 > out.txt", "relative path")
    untouched("true || cd a && make | tail -5 > out.txt", "relative path")
    assert changed("cd build && make | tail -5 > /tmp/out.txt").directory is None  # absolute
    assert changed("cd build && make | tail -5 2>&1").directory is None  # no file
    assert changed("cd build; make | tail -5 2>&1").directory is None
    assert changed("cd build && make | tail -5 > out.txt").directory == "build"
    assert changed("cd a/b && cd ../c && make | tail -5 > out.txt").directory == "a/c"
    assert changed("cd x; cd /abs && make | tail -5 > out.txt").directory == "/abs"
    assert changed("make | tail -5 > out.txt").directory is None


def test_a_cd_that_cdpath_could_redirect_is_not_followed() -> None:
    command = "cd build && make | tail -5 > out.txt"
    plan = plan_command(command, environment={"CDPATH": "/elsewhere"})
    assert not plan.changed
    assert "relative path" in plan.reason
    assert plan_command(command, environment={"CDPATH": ""}).directory == "build"
    assert plan_command("cd ./build && make | tail -5 > out.txt", environment={"CDPATH": "/x"})
    untouched("CDPATH=/x; cd build && make | tail -5 > out.txt", "relative path")


def test_a_view_reading_a_pattern_file_runs_where_the_shell_is() -> None:
    plan = changed("cd logs && cat app.log | grep -f ../data/patterns.txt | head -2")
    assert plan.views[0].reads == ("../data/patterns.txt",)
    assert plan.directory == "logs"
    assert plan.view_directory("/work") == "/work/logs"
    assert changed("cat app.log | grep --file=p.txt").view_directory("/work") == "/work"
    untouched("cd logs; cat app.log | grep -f ../p.txt", "relative path")


@pytest.mark.parametrize(
    "command",
    [
        "X=5; seq 1 $X | tail -2",
        'f=build.log; tail -n 100 "$f" | grep -c INFO',
        "N=3 && seq $N | tail -1",
        'A=2 B="$A"0; seq 1 $B | head -1',
        "X=5; X+=0; seq $X | tail -1",
        "X=5; seq 10 | head -2; Y=$X",
        "d=log.txt; cat < $d | head -1",
    ],
)
def test_literal_assignments_before_the_pipeline_are_known(command: str) -> None:
    assert changed(command).changed


@pytest.mark.parametrize(
    ("command", "because"),
    [
        ("X=inf; seq 1 $X | head -2", "to infinity"),
        ("X=99999999999; seq $X | head -2", "numbers"),
        ("d=/dev/zero; cat $d | head -c 5", "/dev/zero"),
        ("d=/dev/urandom; tr -dc a < $d | head -c 5", "/dev/urandom"),
        ("X=5; { X=inf; seq $X; } | head -1", "cannot read"),
        ("X=5; read X; seq 1 $X | tail -2", "cannot read"),
        ("X=5; { X=9; }; seq 1 $X | tail -2", "cannot read"),
        ("X=5; (X=9); seq 1 $X | tail -2", "cannot read"),
        ("X=5; eval 'true'; seq 1 $X | tail -2", "`eval`"),
        ("X=5; { eval true; seq $X; } | tail -2", "cannot read"),
        ("X=5; { . ./x.sh; seq $X; } | tail -2", "cannot read"),
        ("true || X=5 && seq 1 $X | tail -2", "cannot read"),
        ("X=$(cat n); seq 1 $X | tail -2", "cannot read"),
        ("declare -i X=5; seq 1 $X | tail -2", "cannot read"),
        ("RANDOM=5; seq 1 $RANDOM | tail -2", "cannot read"),
        ("X=5; seq 1 $X | tail -2; X=9", "cannot read"),
        ("X=5; for X in 1; do :; done; seq $X | tail -1", "a `for` loop"),
        ("X=5; f() { X=9; }; seq $X | tail -1", "a function definition"),
        ("X=5; seq 1 $X | tail -$X", "not literal"),
        ("X=5; bash -c 'seq 1 $X' | tail -2", "cannot read"),
        ("IFS=,; X=5; seq 1 $X | tail -2", "cannot read"),
    ],
)
def test_variables_the_planner_cannot_know_stay_unknown(command: str, because: str) -> None:
    untouched(command, because)


def test_a_cd_after_the_pipeline_prints_into_the_after_channel() -> None:
    plan = changed("cat build.log | grep -c ERROR; cd src")
    assert plan.has_following_statement
    assert plan.needs_after
    assert plan.render(None, None, "/a") == "cat build.log; { cd src; } >> '/a' 2>&1"
    with pytest.raises(ValueError, match="after"):
        plan.render()
    assert changed('make | tail -3; cd "$D"; true').needs_after
    assert not changed("make | tail -3; true").needs_after
    untouched("make | tail -3; cd $(pwd)", "not silent")
    untouched("make | tail -3; cd src > x", "not silent")
    untouched("make | tail -3 > out.txt; cd src", "a cd follows")
    untouched("make | tail -3; cd $?", "$?")
    untouched("make | tail -3 && cd src", "&& or ||")


def test_umask_before_a_view_that_writes_a_file_is_refused() -> None:
    untouched("umask 077 && seq 3 | tail -1 > /tmp/u.txt", "umask")
    assert changed("umask 077 && seq 3 | tail -1 > /dev/null").changed
    assert changed("umask 077 && seq 3 | tail -1").changed


def test_prefixes_that_change_what_a_view_sees_are_refused() -> None:
    untouched("export LC_ALL=C; make | grep -i x", "$LC_ALL")
    untouched("PATH=/opt/bin:$PATH; make | head", "$PATH")
    untouched("unset LANG; make | head", "$LANG")
    untouched("source .venv/bin/activate && pytest | tail", "`source`")
    untouched(". ./env.sh; make | tail", "`.`")
    untouched("eval $x; make | tail", "`eval`")
    untouched("trap 'echo bye' EXIT; make | tail", "`trap`")
    untouched("exec > log; make | tail", "`exec`")
    untouched("hash -p /bin/true head; make | head", "`hash`")
    untouched("$CMD x; make | tail", "not literal")
    untouched("echo x > /dev/stdout; make | tail", "descriptor path")
    assert changed("LC_ALL=C make | grep -i x").changed  # a stage's own environment


# --- views ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("view", "simple", "count", "from_start"),
    [
        ("head", "head", 10, False),
        ("head -5", "head", 5, False),
        ("head -n 5", "head", 5, False),
        ("head -n5", "head", 5, False),
        ("head --lines=5", "head", 5, False),
        ("head --lines 5", "head", 5, False),
        ("head -n 0", "head", 0, False),
        ("tail", "tail", 10, False),
        ("tail -3", "tail", 3, False),
        ("tail -n 3", "tail", 3, False),
        ("tail -n +3", "tail", 3, True),
        ("tail --lines=+3", "tail", 3, True),
        ("head -n -2", None, None, False),  # all but the last two
        ("head -c 5", None, None, False),
        ("head -n 2k", None, None, False),
        ("head -q -n 2", None, None, False),
        ("tail +3", None, None, False),  # obsolete syntax: bash runs it
        ("tail -n 3 -", "tail", 3, False),  # `-` is the pipe
        ("head -- -", "head", 10, False),
        ("head - -", None, None, False),  # a header per `-`: bash runs it
        ("tail -z -n 2", None, None, False),
        ("LC_ALL=C head -2", None, None, False),
        ("grep x", None, None, False),
    ],
)
def test_plain_head_and_tail_are_marked_simple(
    view: str, simple: str | None, count: int | None, from_start: bool
) -> None:
    parsed = changed(f"seq 20 | {view}").views[0]
    assert (parsed.simple, parsed.count, parsed.from_start) == (simple, count, from_start)


def test_view_arguments_are_literal_words_after_quote_removal() -> None:
    view = changed("""make | grep -E -e "error|warn"'ing' -e \\$x""").views[0]
    assert view.argv == ("-E", "-e", "error|warning", "-e", "$x")


@pytest.mark.parametrize(
    "view",
    [
        "grep -iv foo",
        "grep -A3 -B 2 x",
        "grep -5 x",
        "grep --color=never x",
        "grep -m1 x",
        "grep --max-count 1 x",
        "grep x --count",
        "grep -e a -e b",
        "rg -i x",
        "rg -N --no-heading x",
        "egrep 'a|b'",
        "fgrep -x a.b",
        "less -R",
        "more",
        "grep -- -x",
    ],
)
def test_view_options_that_keep_reading_the_pipe(view: str) -> None:
    assert changed(f"make | {view}").pipeline == view


# --- render ------------------------------------------------------------------------------------


def test_render_requires_the_paths_the_plan_needs() -> None:
    plan = changed("echo hi && make | tail")
    with pytest.raises(ValueError, match="sink"):
        plan.render(None, "/m")
    with pytest.raises(ValueError, match="marker"):
        plan.render("/s", None)
    with pytest.raises(ValueError, match="quotes"):
        plan.render("/tmp/it's", "/m")


def test_a_marker_is_optional_when_nothing_can_skip_the_pipeline() -> None:
    plan = changed("make | tail")
    assert plan.render() == "make"
    assert plan.render(None, "/m") == "{ make; } 9>'/m' 9>&-"


def test_comments_and_line_continuations_survive() -> None:
    plan = changed("echo a # note\nmake \\\n  | tail -2 # last")
    assert plan.render("/s", "/m") == (
        "{ echo a; } >> '/s' 2>&1 # note\n{ make; } 9>'/m' 9>&- # last"
    )


@pytest.mark.parametrize(
    "command",
    [
        "cd x && echo 'a;b' && make | tail",
        "a=$(echo ')'); { echo x; }; (echo y) | cat | grep x | head -2",
        '[[ -f x ]] && echo "$(ls)" || echo no; make 2>&1 | tail -3; true',
        "echo é \\\n  && make | head",
    ],
)
def test_rendered_commands_are_valid_bash(command: str) -> None:
    script = changed(command).render("/tmp/s", "/tmp/m")
    done = subprocess.run(["bash", "-n", "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_an_unparsable_command_is_left_alone() -> None:
    untouched("echo 'unterminated | head", "does not parse")
