"""Commands that change pith's own controls or git's configuration, which the permission
gates never let through on a broad allow.

- **pith itself** run from bash (`pith …`, `python -m pith …`, `uv run pith …`): only the
  forms that change nothing are plain commands — help, version, the model list, and the
  `sessions`, `context`, `export`, `permissions`, `guard` commands, and `trust` without a
  decision. Anything else (`trust --yes`, `--approve`, `-e`, `tool … --yes`, a nested agent
  run, whose settings and trust the environment may have changed) is a *control* command.
- **git**: `git config` that sets or removes a value writes the configuration file
  (`.git/config`, `~/.gitconfig` with `--global`, the `--file` given), which is a control
  path; `git -c key=value` / `--config-env` sets configuration for one command, and the keys
  that run programs (hooks paths, pagers, editors, `fsmonitor`, filters, aliases starting with
  `!`, …) make it a control command.

Pure: argv in, facts out.
"""

from __future__ import annotations

from collections.abc import Sequence

from pith.ext.permissions._bash_argv import Arg, Facts, Mode, Origin, Unknown, basename

__all__ = ["git_facts", "pith_arguments", "pith_changes_controls"]

_PYTHONS = ("python", "python3", "pypy", "pypy3")
_RUNNERS = {"uv": ("run", "tool"), "uvx": (), "pipx": ("run",), "poetry": ("run",),
            "pdm": ("run",), "hatch": ("run",), "rye": ("run",)}  # fmt: skip

_READ_ONLY_COMMANDS = frozenset({"sessions", "context", "export", "permissions", "guard"})
_READ_ONLY_FLAGS = frozenset({"-h", "--help", "--version", "--list-models", "--options"})
_CHANGING_FLAGS = ("-e", "--extension", "-a", "--approve", "--yes")
_TRUST_DECISIONS = frozenset({"--yes", "--no", "--parent", "--forget"})


def _is_python(name: str) -> bool:
    return any(name == p or (name.startswith(p) and name[len(p) :].replace(".", "").isdigit())
               for p in _PYTHONS)  # fmt: skip


def pith_arguments(argv: Sequence[Arg]) -> list[Arg] | None:
    """pith's own arguments when `argv` runs pith's CLI (`pith`, `.venv/bin/pith`,
    `python -m pith`, `uv run pith`, …); None when it does not."""
    if not argv or isinstance(argv[0], Unknown):
        return None
    name = basename(argv[0])
    if name == "pith":
        return list(argv[1:])
    if _is_python(name):
        for index, arg in enumerate(argv[1:], start=1):
            if isinstance(arg, Unknown):
                return None
            if arg == "-c" or (arg.startswith("-c") and len(arg) > 2):
                code = arg[2:] or (argv[index + 1] if index + 1 < len(argv) else "")
                # Code that imports pith can do whatever pith's CLI does.
                return [Unknown("<python -c>")] if "pith" in str(code) else None
            if arg.startswith("-m"):
                module = (
                    arg[2:] if len(arg) > 2 else (argv[index + 1] if index + 1 < len(argv) else "")
                )
                if isinstance(module, str) and (module == "pith" or module.startswith("pith.")):
                    skip = index + (1 if len(arg) > 2 else 2)
                    return list(argv[skip:])
                return None
            if not arg.startswith("-"):
                return None
        return None
    if name in _RUNNERS:
        rest = list(argv[1:])
        verbs = _RUNNERS[name]
        if verbs:
            if not rest or rest[0] not in verbs:
                return None
            rest = rest[1:]
        for index, arg in enumerate(rest):
            if isinstance(arg, str) and basename(arg) == "pith":
                return rest[index + 1 :]
            if isinstance(arg, str) and not arg.startswith("-"):
                return None
    return None


def pith_changes_controls(arguments: Sequence[Arg]) -> str | None:
    """Why running pith with `arguments` may change what pith allows or runs; None when it
    only reads (help, listings, `permissions check`, …)."""
    texts = [arg if isinstance(arg, str) else "" for arg in arguments]
    if any(isinstance(arg, Unknown) for arg in arguments):
        return "pith with arguments only known when the command runs"
    command = next((text for text in texts if not text.startswith("-")), None)
    if command == "trust":
        decided = _TRUST_DECISIONS.intersection(texts)
        if decided:
            return f"`pith trust {sorted(decided)[0]}`, which changes the project's trust"
    for flag in _CHANGING_FLAGS:
        if any(text == flag or text.startswith(flag + "=") for text in texts):
            return f"pith with {flag}, which changes what it trusts or allows"
    if command == "trust":
        return None
    if command in _READ_ONLY_COMMANDS:
        return None
    if command is None and texts and all(text in _READ_ONLY_FLAGS for text in texts):
        return None
    if command == "tool":
        return "`pith tool`, which runs a tool outside this run's permission checks"
    if command == "auth":
        return "`pith auth`, which saves and removes the API keys pith sends"
    return "a nested pith run, whose settings and trust this run cannot see"


# --- git -------------------------------------------------------------------------------------

_GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace",
                                "--config-env", "--exec-path", "--super-prefix"})  # fmt: skip
_GIT_SAFE_KEYS = ("color.", "user.", "advice.", "init.defaultbranch", "log.", "format.pretty",
                  "core.quotepath", "pull.rebase", "column.ui", "i18n.")  # fmt: skip
_CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l",
                           "--list", "get", "list", "--get-color", "--get-colorbool",
                           "--show-origin", "--show-scope", "--name-only"})  # fmt: skip
_CONFIG_VALUE_OPTIONS = frozenset({"-f", "--file", "--blob", "--type", "--default",
                                   "--comment", "--value"})  # fmt: skip


def _git_key_runs_code(setting: str) -> bool:
    key, _, value = setting.partition("=")
    key = key.lower()
    if key.startswith("alias."):
        return value.lstrip().startswith("!")
    return not key.startswith(_GIT_SAFE_KEYS)


def git_facts(args: Sequence[Arg]) -> Facts | None:
    """What `git args` does to git's configuration, or None when it leaves it alone (the
    caller then treats git like any other command)."""
    index = 0
    directory: str = ""
    control = None
    while index < len(args):
        arg = args[index]
        if isinstance(arg, Unknown):
            return Facts(wrapper="opaque")
        if arg in _GIT_VALUE_OPTIONS:
            value = args[index + 1] if index + 1 < len(args) else ""
            if isinstance(value, Unknown):
                return Facts(wrapper="opaque")
            if arg == "-c" and _git_key_runs_code(value):
                control = f"git -c {value.partition('=')[0]}"
            if arg == "--config-env":
                control = f"git --config-env {value.partition('=')[0]}"
            if arg == "-C":
                directory = value.rstrip("/") + "/" if value else ""
            index += 2
            continue
        if arg.startswith("--config-env=") or arg.startswith("--git-dir="):
            if arg.startswith("--config-env="):
                control = "git --config-env"
            index += 1
            continue
        if arg.startswith("-"):
            index += 1
            continue
        break
    rest = list(args[index:])
    facts = Facts(wrapper="control" if control else None, control=control)
    if rest and rest[0] == "config":
        _config(rest[1:], directory, facts)
    if facts.wrapper is None and not facts.paths:
        return None
    return facts


def _config(args: Sequence[Arg], directory: str, facts: Facts) -> None:
    target = f"{directory}.git/config"
    operands: list[Arg] = []
    reads = False
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if isinstance(arg, Unknown):
            operands.append(arg)
            continue
        if arg in ("--global",):
            target = "~/.gitconfig"
        elif arg == "--system":
            target = "/etc/gitconfig"
        elif arg == "--worktree":
            target = f"{directory}.git/config.worktree"
        elif arg in ("-f", "--file"):
            value = args[index] if index < len(args) else ""
            index += 1
            if isinstance(value, str) and value:
                target = value
        elif arg.startswith("--file="):
            target = arg.partition("=")[2]
        elif arg in _CONFIG_VALUE_OPTIONS:
            index += 1
        elif arg in _CONFIG_READS:
            reads = True
        elif not arg.startswith("-"):
            operands.append(arg)
    writes = not reads and (len(operands) != 1 or any(
        isinstance(a, str) and a in ("set", "unset", "edit", "rename-section", "remove-section")
        for a in operands[:1]))  # fmt: skip
    if any(a in ("--unset", "--unset-all", "--add", "--replace-all", "-e", "--edit",
                 "--rename-section", "--remove-section") for a in args):  # fmt: skip
        writes = True
    if operands and operands[0] in ("get", "list"):
        writes = False
    mode: Mode = "write" if writes else "read"
    origin: Origin = "operand"
    facts.paths.append((target, mode, origin))
