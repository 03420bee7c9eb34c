"""The pure-Python search gives the events `rg --json` gives, on the same tree and arguments.

Each test runs the real rg with grep's own arguments, parses its JSON (decoding `bytes` lines
as grep does) and compares it with the fallback; it also checks the events a person expects,
so a test cannot pass by both sides finding nothing.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pith.agent import AbortController, ToolError
from pith.tools import GrepTool
from pith.tools._grep_fallback import search
from pith.tools._grep_search import rg_arguments

RG = os.path.join(os.path.dirname(sys.executable), "rg")
Event = tuple[str, str, int, str]  # type, path, line number, text


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A HOME without git config, so the machine's global excludes file stays out."""
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in ("XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "PITH_RG"):
        monkeypatch.delenv(name, raising=False)


def make(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return root


def _text(field: dict[str, str]) -> str:
    if "text" in field:
        return field["text"]
    return base64.b64decode(field["bytes"]).decode("utf-8", "replace")


def rg_events(
    pattern: str,
    target: Path,
    *,
    ignore_case: bool = False,
    literal: bool = False,
    glob: str | None = None,
    context: int = 0,
) -> list[Event]:
    """rg's match and context events for grep's arguments; a directory is searched as `.`."""
    is_dir = target.is_dir()
    arguments = rg_arguments(
        pattern,
        "." if is_dir else str(target),
        ignore_case=ignore_case,
        literal=literal,
        glob=glob,
        context=context,
    )
    done = subprocess.run(
        [RG, *arguments], cwd=target if is_dir else None, capture_output=True, check=False
    )
    assert done.returncode in (0, 1), done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    return [
        (e["type"], _text(e["data"]["path"]), e["data"]["line_number"], _text(e["data"]["lines"]))
        for e in events
        if e["type"] in ("match", "context")
    ]


def fallback_events(
    pattern: str,
    target: Path,
    *,
    ignore_case: bool = False,
    literal: bool = False,
    glob: str | None = None,
    context: int = 0,
) -> list[Event]:
    found = search(
        pattern,
        str(target),
        target.is_dir(),
        ignore_case=ignore_case,
        literal=literal,
        glob=glob,
        context=context,
    )
    return [("match" if e.is_match else "context", e.path, e.line_number, e.text) for e in found]


def assert_same(pattern: str, target: Path, expected: list[Event], **options: Any) -> None:
    assert rg_events(pattern, target, **options) == expected
    assert fallback_events(pattern, target, **options) == expected


def test_directory_search_reports_paths_and_lines_like_rg(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    make(
        root,
        {
            ".gitignore": "ignored/\n",
            "src/a.py": "def foo():\n    return foo(foo)\n",
            "src/b.txt": "nothing here\n",
            ".hidden/c.md": "foo\n",
            "ignored/d.py": "foo\n",
        },
    )
    expected = [
        ("match", "./.hidden/c.md", 1, "foo\n"),
        ("match", "./src/a.py", 1, "def foo():\n"),
        ("match", "./src/a.py", 2, "    return foo(foo)\n"),
    ]
    assert_same("foo", root, expected)


def test_context_windows_merge_and_a_match_inside_context_stays_a_match(tmp_path: Path) -> None:
    lines = [f"line {n}" + (" hit" if n in (3, 5, 11) else "") for n in range(1, 15)]
    root = make(tmp_path / "tree", {"f.txt": "\n".join(lines) + "\n"})
    kinds = {1: "context", 2: "context", 3: "match", 4: "context", 5: "match", 6: "context"}
    kinds |= {7: "context", 9: "context", 10: "context", 11: "match", 12: "context", 13: "context"}
    expected = [(kind, "./f.txt", n, lines[n - 1] + "\n") for n, kind in sorted(kinds.items())]
    assert_same("hit", root, expected, context=2)


def test_crlf_lines_keep_their_carriage_return_and_the_last_line_needs_no_newline(
    tmp_path: Path,
) -> None:
    root = make(tmp_path / "tree", {"w.txt": b"one\r\ntwo\r\nlast one"})
    first, last = ("match", "./w.txt", 1, "one\r\n"), ("match", "./w.txt", 3, "last one")
    assert_same("one", root, [first, last])
    assert_same("one$", root, [last])  # `$` does not match before `\r`
    assert_same(r"one\r$", root, [first])


def test_invalid_utf8_line_is_decoded_with_replacement(tmp_path: Path) -> None:
    root = make(tmp_path / "tree", {"bad.txt": b"ok\nfoo \xff\xfe bar\nabc\xffdef\n"})
    assert_same("foo", root, [("match", "./bad.txt", 2, "foo \ufffd\ufffd bar\n")])
    # Rust's `.` and negated classes never match an invalid byte.
    assert_same("foo.+bar", root, [])
    assert_same("c[^x]d", root, [])


def test_nul_in_the_first_read_skips_the_file_but_the_three_peeked_bytes_count(
    tmp_path: Path,
) -> None:
    # rg's first read returns the 3 bytes it peeked at for a byte-order mark.
    root = make(tmp_path / "tree", {"a.bin": b"fo\nfoo\x00\n", "b.bin": b"foo\n\x00"})
    assert_same("fo", root, [("match", "./a.bin", 1, "fo\n")])


def test_binary_file_is_skipped_when_walked_but_searched_when_named(tmp_path: Path) -> None:
    root = make(tmp_path / "tree", {"bin.dat": b"\x00\x01foo\nfoo again\n", "t.txt": "foo\n"})
    assert_same("foo", root, [("match", "./t.txt", 1, "foo\n")])
    named = root / "bin.dat"
    expected = [("match", str(named), 1, "\x00\x01foo\n"), ("match", str(named), 2, "foo again\n")]
    assert_same("foo", named, expected)


@pytest.mark.parametrize("context", [0, 1])
def test_nul_past_the_first_buffer_keeps_the_matches_read_before_it(
    tmp_path: Path, context: int
) -> None:
    filler = b"".join(b"filler line %d\n" % n for n in range(6000))
    data = b"foo first\n" + filler + b"foo before nul\n\x00foo after\n"
    root = make(tmp_path / "tree", {"late.bin": data})
    expected = [("match", "./late.bin", 1, "foo first\n")]
    expected += [("context", "./late.bin", 2, "filler line 0\n")] * context
    assert_same("foo", root, expected, context=context)


def test_byte_order_marks_are_dropped_and_utf16_is_transcoded(tmp_path: Path) -> None:
    utf16 = b"\xff\xfe" + "caf\u00e9 foo\nbar\n".encode("utf-16-le")
    root = make(tmp_path / "tree", {"a.txt": b"\xef\xbb\xbffoo\n", "b.txt": utf16})
    expected = [("match", "./a.txt", 1, "foo\n"), ("match", "./b.txt", 1, "caf\u00e9 foo\n")]
    assert_same("^(foo|caf)", root, expected)


@pytest.mark.parametrize(
    ("glob", "paths"),
    [
        ("*.py", ["./main.py", "./src/a.py", "./src/deep/b.py"]),
        ("src/*.py", ["./src/a.py"]),
        ("./src/**", ["./src/a.py", "./src/deep/b.py", "./src/notes.md"]),
        ("!*.py", ["./README.md", "./src/notes.md"]),
        (
            "*.{md,py}",
            ["./README.md", "./main.py", "./src/a.py", "./src/deep/b.py", "./src/notes.md"],
        ),
        ("!src", ["./README.md", "./main.py"]),
    ],
)
def test_glob_filters_select_files_like_rg(tmp_path: Path, glob: str, paths: list[str]) -> None:
    names = ["main.py", "README.md", "src/a.py", "src/notes.md", "src/deep/b.py"]
    root = make(tmp_path / "tree", dict.fromkeys(names, "needle\n"))
    assert_same("needle", root, [("match", path, 1, "needle\n") for path in paths], glob=glob)


LINES = [
    "def parse_args(argv):",
    "    count = 42  # answer",
    "class HTTPServer:",
    "x = y+z",
    "price: $10.50",
    "naïve café ÉCOLE",
    "tab\there",
    "{{template}}",
    "",
    "OK\u212a",
]


@pytest.mark.parametrize(
    ("pattern", "ignore_case", "numbers"),
    [
        (r"\d+", False, [2, 5]),
        (r"\bcount\b\s*=", False, [2]),
        (r"(?i)httpserver", False, [3]),
        ("httpserver", True, [3]),
        ("(?-i)HTTP|class", True, [3]),
        (r"^\s*(def|class)\s", False, [1, 3]),
        (r"[[:upper:]]{4}", False, [3, 6]),
        (r"\w+\.\w+", False, [5]),
        (r"\$\d+\.\d{2}\b", False, [5]),
        (r"\pL\pL\pL\pL\pL\s\pL", False, [3, 6]),
        (r"[[:^alpha:]]", True, [1, 2, 3, 4, 5, 6, 7, 8]),
        (r"\P{Lu}", True, [1, 2, 3, 4, 5, 6, 7, 8]),
        (r"café|é", False, [6]),
        ("(?x) tab \\t here", False, [7]),
        (r"\{\{\w+\}\}", False, [8]),
        ("^$", False, [9]),
        (r"\B", False, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
        ("k", True, [10]),
        (r"[^a-z\s]", True, [1, 2, 3, 4, 5, 6, 8]),
        (r"a)|(x", False, [1, 2, 3, 4, 6, 7, 8]),
    ],
)
def test_rust_regex_syntax_matches_the_same_lines(
    tmp_path: Path, pattern: str, ignore_case: bool, numbers: list[int]
) -> None:
    root = make(tmp_path / "tree", {"f.txt": "\n".join(LINES) + "\n"})
    expected = [("match", "./f.txt", n, LINES[n - 1] + "\n") for n in numbers]
    assert_same(pattern, root, expected, ignore_case=ignore_case)


def test_literal_search_escapes_the_pattern(tmp_path: Path) -> None:
    root = make(tmp_path / "tree", {"f.txt": "call(a.b)\ncallXa.b)\nCALL(A.B)\n"})
    assert_same("call(a.b", root, [("match", "./f.txt", 1, "call(a.b)\n")], literal=True)
    expected = [("match", "./f.txt", 1, "call(a.b)\n"), ("match", "./f.txt", 3, "CALL(A.B)\n")]
    assert_same("call(a.b", root, expected, literal=True, ignore_case=True)


@pytest.mark.parametrize(
    "pattern", ["(foo", "{", "a{2", "a\nb", r"x\ny", "(?=x)", r"(a)\1", "[z-a]"]
)
def test_patterns_rg_rejects_raise_a_tool_error_naming_them(tmp_path: Path, pattern: str) -> None:
    root = make(tmp_path / "tree", {"f.txt": "foo\n"})
    arguments = rg_arguments(pattern, ".", ignore_case=False, literal=False, glob=None, context=0)
    rejected = subprocess.run([RG, *arguments], cwd=root, capture_output=True, check=False)
    assert rejected.returncode == 2
    with pytest.raises(ToolError) as raised:
        fallback_events(pattern, root)
    message = str(raised.value)
    assert repr(pattern) in message
    assert "\n" not in message


def test_invalid_glob_raises_a_tool_error(tmp_path: Path) -> None:
    root = make(tmp_path / "tree", {"f.txt": "foo\n"})
    with pytest.raises(ToolError, match="glob"):
        fallback_events("foo", root, glob="src/{a")


def test_grep_tool_output_is_the_same_without_rg(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "tree"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    body = "\n".join(f"def handler_{n}(request):  # TODO fix {n}" for n in range(40)) + "\n"
    make(
        root,
        {
            ".gitignore": "dist/\n",
            "app/views.py": body,
            "app/models.py": "class Model:\n    todo = 'later'\n",
            "app/data.bin": b"TODO\x00\x01",
            "dist/bundle.js": "// TODO generated\n",
            "docs/guide.md": "Todo list\n\n- TODO: write docs\n" + "x" * 600 + " TODO\n",
        },
    )
    tool = GrepTool(str(root))

    def run(arguments: dict[str, object]) -> str:
        result = asyncio.run(tool.execute("id", arguments, AbortController().signal, None))
        return result.text()

    calls: list[dict[str, object]] = [
        {"pattern": "TODO"},
        {"pattern": "todo", "ignoreCase": True, "context": 1, "limit": 5},
        {"pattern": r"handler_\d+\(", "glob": "*.py", "limit": 3, "context": 2},
        {"pattern": "TODO", "path": "docs/guide.md"},
    ]
    with_rg = [run(call) for call in calls]
    monkeypatch.setenv("PITH_RG", "none")
    without_rg = [run(call) for call in calls]
    assert without_rg == with_rg
    assert with_rg[0].startswith("app/views.py:1: def handler_0(request):  # TODO fix 0\n")
    assert "matches limit reached" in with_rg[2]
    assert "Some lines truncated" in with_rg[3]
