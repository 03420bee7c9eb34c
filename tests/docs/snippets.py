"""Shell snippets of the docs that are marked runnable, and a runner for them.

A snippet is marked by an HTML comment on the line right before its fence (GitHub does not show
it)::

    <!-- runnable -->
    <!-- runnable: expect "Next request for" exit 2 fixture sessions keep-going save hello.py -->

Options, in any order (quoted with shell rules):

- `expect TEXT`: the output (standard output and error together) contains TEXT; repeatable.
- `exit N`: the snippet ends with status N (default 0).
- `keep-going`: run with plain `bash`, so a line that fails does not stop the rest (the status
  is the last line's); otherwise the snippet runs with `bash -e`.
- `fixture NAME`: extra setup before the snippet runs (see `FIXTURES`).
- `save NAME`: write the doc's code block just before this one to NAME in the project first
  (a doc that says "save this as hello.py"); the doc's later snippets have the file too.

Each snippet runs in a fresh project (`~/project`, a git repository with the files the docs use)
under a temporary home whose agent dir (`~/.pith/agent`) points pith at a fake model server,
with the virtualenv's `bin` first on PATH and `.venv` linked into the project, so `pith` and
`.venv/bin/pith` both work. Standard input is empty.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pith.testing import FakeServer, configure_agent_dir

__all__ = [
    "FIXTURES",
    "REPO",
    "Outcome",
    "Snippet",
    "SnippetError",
    "check",
    "find_snippets",
    "parse_snippets",
    "run_snippet",
]

REPO = Path(__file__).resolve().parents[2]
TIMEOUT_SECONDS = 240.0
"""Only against a hang: a snippet that takes this long has failed."""
REPLIES = 60
"""Plain text replies the fake model has for one snippet."""

_MARKER = re.compile(r"^<!--\s*runnable\s*(?::(?P<options>.*?))?\s*-->\s*$")
_FENCE = re.compile(r"^(?P<ticks>```+)\s*(?P<lang>[\w+-]*)")
_SHELLS = frozenset({"sh", "bash", "shell"})
_SESSION_ID = re.compile(r"\b01[0-9a-f]{6}(?:-[0-9a-f]{1,12})*\b")
"""A session id or id prefix in a doc (ids are UUIDv7: `01a22900`, `01a22900-7c3f`, ...)."""


class SnippetError(Exception):
    """A marker that cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class Snippet:
    """One marked shell snippet and what it must do."""

    doc: str
    """The doc's path relative to the repository (or the name given to `parse_snippets`)."""
    line: int
    """The line of the opening fence."""
    code: str
    expect: tuple[str, ...] = ()
    exit: int = 0
    keep_going: bool = False
    fixtures: tuple[str, ...] = ()
    saves: Mapping[str, str] = field(default_factory=dict)
    """File name -> text, written into the project before the snippet runs."""

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


@dataclass(frozen=True)
class Outcome:
    """How a snippet's run ended."""

    exit: int | None
    """None when it did not finish within the timeout."""
    output: str


def find_snippets(paths: list[Path]) -> list[Snippet]:
    """The marked snippets of these Markdown files, in file and line order."""
    found: list[Snippet] = []
    for path in paths:
        name = path.resolve().relative_to(REPO).as_posix()
        found += parse_snippets(path.read_text(encoding="utf-8"), name)
    return found


def parse_snippets(text: str, doc: str) -> list[Snippet]:
    """The marked snippets of one Markdown text; raises `SnippetError` for a bad marker."""
    lines = text.split("\n")
    blocks = _code_blocks(lines)
    inside = {n for b in blocks for n in range(b.start, b.end + 1)}
    snippets: list[Snippet] = []
    saved: dict[str, str] = {}
    for number, line in enumerate(lines, start=1):
        marker = _MARKER.match(line.strip())
        if marker is None or number in inside:
            continue
        where = f"{doc}:{number}"
        block = next((b for b in blocks if b.start == number + 1), None)
        if block is None or block.lang not in _SHELLS:
            raise SnippetError(f"{where}: a runnable marker must stand right before a ```sh fence")
        earlier = [b for b in blocks if b.end < number]
        snippet = _snippet(where, doc, block, marker.group("options") or "", earlier)
        # A file the doc asked to save stays for its later snippets, as for a reader.
        saved = {**saved, **snippet.saves}
        snippets.append(dataclasses.replace(snippet, saves=saved))
    return snippets


@dataclass(frozen=True)
class _Block:
    start: int
    end: int
    lang: str
    code: str


def _code_blocks(lines: list[str]) -> list[_Block]:
    blocks: list[_Block] = []
    opening: tuple[int, str, str] | None = None
    body: list[str] = []
    for number, line in enumerate(lines, start=1):
        fence = _FENCE.match(line)
        if opening is None:
            if fence is not None:
                opening, body = (number, fence.group("ticks"), fence.group("lang")), []
        elif line.strip().startswith(opening[1]) and not line.strip().strip("`"):
            code = "\n".join(body) + "\n"
            blocks.append(_Block(opening[0], number, opening[2], code))
            opening = None
        else:
            body.append(line)
    return blocks


def _snippet(where: str, doc: str, block: _Block, options: str, earlier: list[_Block]) -> Snippet:
    try:
        words = shlex.split(options)
    except ValueError as error:
        raise SnippetError(f"{where}: runnable options: {error}") from None
    expect: list[str] = []
    fixtures: list[str] = []
    saves: dict[str, str] = {}
    exit_code, keep_going = 0, False
    while words:
        word = words.pop(0)
        if word == "keep-going":
            keep_going = True
            continue
        if word not in ("expect", "exit", "fixture", "save") or not words:
            raise SnippetError(
                f"{where}: runnable option {word!r} is unknown or lacks its value; "
                "use expect TEXT, exit N, fixture NAME, save FILE or keep-going"
            )
        value = words.pop(0)
        if word == "expect":
            expect.append(value)
        elif word == "exit":
            if not value.isdigit():
                raise SnippetError(f"{where}: 'exit' needs a number, got {value!r}")
            exit_code = int(value)
        elif word == "fixture":
            if value not in FIXTURES:
                raise SnippetError(f"{where}: no fixture {value!r}; known: {', '.join(FIXTURES)}")
            fixtures.append(value)
        else:
            if not earlier:
                raise SnippetError(f"{where}: 'save {value}' needs a code block before this one")
            saves[value] = earlier[-1].code
    return Snippet(
        doc=doc,
        line=block.start,
        code=block.code,
        expect=tuple(expect),
        exit=exit_code,
        keep_going=keep_going,
        fixtures=tuple(fixtures),
        saves=saves,
    )


# --- running ---------------------------------------------------------------------------------


def run_snippet(snippet: Snippet, root: Path) -> Outcome:
    """Run `snippet` in a fresh project under `root` (an empty folder) against a fake model."""
    replies = [{"text": f"Reply {n} from the fake model."} for n in range(1, REPLIES + 1)]
    with FakeServer({"turns": replies}) as server:
        home = root / "home"
        agent = configure_agent_dir(home / ".pith" / "agent", server)
        settings = {"defaultProvider": "fake", "defaultModel": "m"}
        (agent / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        project = _make_project(home / "project")
        tmp = root / "tmp"
        tmp.mkdir()
        env = _environment(home, agent, tmp)
        for name, text in snippet.saves.items():
            (project / name).write_text(text, encoding="utf-8")
        for name in snippet.fixtures:
            FIXTURES[name](snippet, project, env)
        script = root / "snippet.sh"
        script.write_text(snippet.code, encoding="utf-8")
        command = ["bash", str(script)] if snippet.keep_going else ["bash", "-e", str(script)]
        try:
            done = subprocess.run(
                command,
                cwd=project,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=TIMEOUT_SECONDS,
            )
        except subprocess.TimeoutExpired as error:
            output = error.output.decode("utf-8", "replace") if error.output else ""
            return Outcome(None, output)
        return Outcome(done.returncode, done.stdout.decode("utf-8", "replace"))


def check(snippet: Snippet, outcome: Outcome) -> list[str]:
    """What the run did wrong against the marker's expectations (empty: it passed)."""
    problems: list[str] = []
    if outcome.exit is None:
        problems.append(f"did not finish within {TIMEOUT_SECONDS:.0f} s")
    elif outcome.exit != snippet.exit:
        problems.append(f"exit status {outcome.exit}, expected {snippet.exit}")
    problems += [f"output lacks {text!r}" for text in snippet.expect if text not in outcome.output]
    return problems


_STEPS = "".join(f"\n\ndef step_{n}(value):\n    return value + {n}\n" for n in range(1, 41))
_PROJECT_FILES = {
    "README.md": "# demo\n\nA small project for the docs' snippets.\n\nRun `python src/app.py`.\n",
    "src/app.py": (
        "def greet(name):\n"
        "    # TODO: greet in other languages\n"
        '    return f"hello, {name}"\n\n\n'
        "def main():\n"
        '    print(greet("world"))\n'
        f"{_STEPS}\n\n"
        'if __name__ == "__main__":\n'
        "    main()\n"
    ),
    "tests/test_app.py": (
        "import sys\n"
        "from pathlib import Path\n\n"
        'sys.path.insert(0, str(Path(__file__).parent.parent / "src"))\n\n'
        "from app import greet  # noqa: E402\n\n\n"
        "def test_greet():\n"
        '    assert greet("x") == "hello, x"\n'
    ),
    "notes.txt": "teh first note\n",
    ".gitignore": ".venv\n",
}
_GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Doc Snippet",
    "GIT_AUTHOR_EMAIL": "docs@example.invalid",
    "GIT_COMMITTER_NAME": "Doc Snippet",
    "GIT_COMMITTER_EMAIL": "docs@example.invalid",
}


def _make_project(project: Path) -> Path:
    for name, text in _PROJECT_FILES.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    shutil.copytree(REPO / "examples", project / "examples")
    (project / ".venv").symlink_to(sys.prefix, target_is_directory=True)
    env = {**os.environ, **_GIT_IDENTITY}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "a small project"]):
        subprocess.run(["git", *args], cwd=project, env=env, check=True, capture_output=True)
    return project


def _environment(home: Path, agent: Path, tmp: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.endswith("_API_KEY") and not key.startswith(("PITH_", "PYTEST_"))
    }
    env.pop("VIRTUAL_ENV", None)
    bin_dir = str(Path(sys.prefix) / "bin")
    env.update(_GIT_IDENTITY)
    env.update(HOME=str(home), PITH_AGENT_DIR=str(agent), TERM="dumb", TMPDIR=str(tmp))
    env["PATH"] = os.pathsep.join([bin_dir, env.get("PATH", "/usr/bin:/bin")])
    return env


def _sessions(snippet: Snippet, project: Path, env: Mapping[str, str]) -> None:
    """One earlier session in the project for each session id the snippet names (`01a22900`),
    so `--session 01a22900` and `pith export 01a22a02` find one."""
    for prefix in dict.fromkeys(_SESSION_ID.findall(snippet.code)):
        full = (prefix.replace("-", "") + "0" * 32)[:32]
        session_id = f"{full[:8]}-{full[8:12]}-{full[12:16]}-{full[16:20]}-{full[20:]}"
        args = ["-p", "--session-id", session_id, f"an earlier session ({prefix})"]
        _pith(args, project, env, "sessions")


def _long_session(snippet: Snippet, project: Path, env: Mapping[str, str]) -> None:
    """A session in the project with two long prompts (about 27k tokens each), so that
    `/compact` has an older part to summarize while the newest prompt is kept."""
    prompts = [(1, ["-p", "what do these say?"]), (20001, ["-p", "-c", "and these?"])]
    for first, args in prompts:
        text = "".join(f"{n}\n" for n in range(first, first + 20000))
        _pith(args, project, env, "long-session", stdin=text)


def _pith(
    args: list[str], project: Path, env: Mapping[str, str], fixture: str, stdin: str = ""
) -> None:
    done = subprocess.run(
        ["pith", *args],
        cwd=project,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
    )
    assert done.returncode == 0, f"fixture {fixture}: pith {shlex.join(args)}: {done.stderr}"


FIXTURES: dict[str, Callable[[Snippet, Path, Mapping[str, str]], None]] = {
    "long-session": _long_session,
    "sessions": _sessions,
}
