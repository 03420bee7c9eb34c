"""Every place bash evaluates code: a command substitution anywhere a word is expanded runs,
so a denied command inside it is denied, wherever it hides."""

from __future__ import annotations

from pathlib import Path

import pytest

from pith.ext.permissions import PermissionLayer, Ruleset, Situation, build_rules, decide

HOME = "/home/ann"

RM_DENIED = {"*": "allow", "bash": {"*": "allow", "rm *": "deny"}}


def bash(command: str, cwd: Path) -> str:
    rules = Ruleset(build_rules([PermissionLayer("settings.json", RM_DENIED)]), HOME)
    return decide(rules, "bash", {"command": command}, Situation(str(cwd), HOME)).state


@pytest.mark.parametrize(
    "command",
    [
        # array subscripts: in an assignment before a command, alone, and in expansions
        "FOO[$(rm -rf build)]=1 ls",
        "A=1 FOO[$(rm -rf build)]=1 ls",
        "ls | FOO[$(rm -rf build)]=1 cat",
        "FOO[$(rm -rf build)]=1 BAR[x]=2 ls",
        "FOO[ $(rm -rf build) ]=1 ls",
        "FOO[$(rm -rf build)]=1",
        "FOO[`rm -rf build`]+=1",
        "a=(); echo ${a[$(rm -rf build)]}",
        'echo "${a[$(rm -rf build)]}"',
        "a=([$(rm -rf build)]=1)",
        "bash -c 'FOO[$(rm -rf build)]=1 ls'",
        # arithmetic
        "echo $(( $(rm -rf build) + 1 ))",
        "(( $(rm -rf build) ))",
        "(( a[$(rm -rf build)] = 1 ))",
        "let 'a[$(rm -rf build)]=1'",
        "(( 'a[$(rm -rf build)]' ))",
        "echo $(( 'a[$(rm -rf build)]' ))",
        "echo ${a['$(rm -rf build)']}",
        "[[ 1 -eq 'a[$(rm -rf build)]' ]]",
        "x='a[$(rm -rf build)]'; echo $((x))",
        "declare -n r='a[$(rm -rf build)]'; echo $r",
        "for (( i=$(rm -rf build); i<1; i++ )); do :; done",
        "echo ${x:$(rm -rf build)}",
        # parameter expansions
        "echo ${x:-$(rm -rf build)}",
        "echo ${x:=$(rm -rf build)}",
        "echo ${x:+$(rm -rf build)}",
        "echo ${x:?$(rm -rf build)}",
        "echo ${x#$(rm -rf build)}",
        "echo ${x%%$(rm -rf build)}",
        "echo ${x/$(rm -rf build)/y}",
        "echo ${x//a/$(rm -rf build)}",
        "echo ${x:0:$(rm -rf build)}",
        'echo "${x:-"$(rm -rf build)"}"',
        # tests
        "[[ $(rm -rf build) ]]",
        "[[ -f $(rm -rf build) ]]",
        "[[ x == $(rm -rf build) ]]",
        "[[ x =~ $(rm -rf build) ]]",
        "[[ a -eq $(rm -rf build) ]]",
        "[ -n $(rm -rf build) ]",
        # here-strings and here-documents
        "cat <<< $(rm -rf build)",
        'cat <<< "$(rm -rf build)"',
        "cat <<EOF\n$(rm -rf build)\nEOF",
        # case words and patterns
        "case $(rm -rf build) in x) ;; esac",
        "case x in $(rm -rf build)) ;; esac",
        "case x in a|$(rm -rf build)) ;; esac",
        # declarations
        "declare x=$(rm -rf build)",
        "local x=$(rm -rf build)",
        "export x=$(rm -rf build)",
        "readonly x=$(rm -rf build)",
        "typeset x=$(rm -rf build)",
        "declare -a a=($(rm -rf build))",
        "declare a[$(rm -rf build)]=1",
        "f() { local x=${1:-$(rm -rf build)}; }",
        # variable names bash looks up (an array element's subscript is evaluated)
        "printf -v 'a[$(rm -rf build)]' x",
        "read 'a[$(rm -rf build)]' <<< x",
        "unset 'a[$(rm -rf build)]'",
        "test -v 'a[$(rm -rf build)]'",
        "[ -v 'a[$(rm -rf build)]' ]",
        "[[ -v 'a[$(rm -rf build)]' ]]",
        # other word positions
        "for x in $(rm -rf build); do :; done",
        "select x in $(rm -rf build); do :; done",
        "echo > $(rm -rf build)",
        "x=$(rm -rf build)",
        "x=( $(rm -rf build) )",
        "echo $'a' \"$(rm -rf build)\"",
        "cat <(rm -rf build)",
        "echo >(rm -rf build)",
    ],
)
def test_a_denied_command_is_denied_wherever_bash_evaluates_code(
    tmp_path: Path, command: str
) -> None:
    assert bash(command, tmp_path) == "deny", command


@pytest.mark.parametrize(
    "command",
    [
        "echo '$(rm -rf build)'",
        "grep -r '$(rm' .",
        "printf '%s\\n' '$(rm -rf build)'",
        "FOO[1]=2 ls",
        "a[i+1]=x; echo ${a[i]}",
    ],
)
def test_text_that_bash_never_evaluates_is_left_alone(tmp_path: Path, command: str) -> None:
    assert bash(command, tmp_path) == "allow", command
