"""Fixture workspaces and tool calls shared by record_tools.py and test_tools_conformance.py.

Every fixture is built from the definitions below, byte for byte, so the tests can rebuild it in a
temporary directory without Node. Big inputs are generated here rather than stored in the JSON.
Stored results use `<ROOT>` for the fixture directory and `<BASH_LOG>` for bash's full-output
file; strings longer than `LONG_STRING` are replaced by a hash with their head and tail.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import struct
import subprocess
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT_PLACEHOLDER = "<ROOT>"
BASH_LOG_PLACEHOLDER = "<BASH_LOG>"
LONG_STRING = 4000
# Pi writes `$TMPDIR/pi-bash-<hex>.log`, pith `$TMPDIR/pith-bash-<hex>.log`.
_BASH_LOG = re.compile(r"/[^\s\]\"']*/pi(?:th)?-bash-[0-9A-Za-z_-]+\.log")


# --------------------------------------------------------------------------------------------
# File contents
# --------------------------------------------------------------------------------------------


def _lines(count: int, *, template: str = "line {}", trailing_newline: bool = True) -> bytes:
    text = "\n".join(template.format(i) for i in range(1, count + 1))
    return (text + ("\n" if trailing_newline else "")).encode()


def tiny_png(width: int = 2, height: int = 2) -> bytes:
    """A valid, non-animated RGB PNG: a red square."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


CODE_PY = """\
import os


def greet(name):
    print("Hello, " + name)
    return name


def farewell(name):
    print("Goodbye, " + name)
    return None


def main():
    greet("world")
    farewell("world")
"""

CONTEXT_TXT = "\n".join(
    [
        "alpha",
        "beta",
        "match one",
        "gamma",
        "match two",
        "delta",
        "epsilon",
        "zeta",
        "eta",
        "match three",
        "theta",
    ]
)

# files: read and bash.
FILES: dict[str, bytes] = {
    "small.txt": _lines(10),
    "lines_2000.txt": _lines(2000, trailing_newline=False),
    "lines_2000_nl.txt": _lines(2000),
    "lines_2001.txt": _lines(2001),
    # 1500 lines of 50 bytes: 75 000 bytes, cut by the 50 KB cap long before 2000 lines.
    "big_bytes.txt": _lines(1500, template="{:049d}"),
    # 2000 lines of 61 bytes (30 two-byte characters): the byte cap with multibyte text.
    "big_utf8.txt": ("é" * 30 + "\n").encode() * 2000,
    "huge_line1.txt": b"x" * 61440 + b"\nsecond\nthird\n",
    "huge_line5.txt": b"l1\nl2\nl3\nl4\n" + b"y" * 61440 + b"\nl6\nl7\n",
    "no_newline.txt": b"alpha\nbeta\ngamma",
    "crlf.txt": b"one\r\ntwo\r\nthree\r\n",
    "bom.txt": "\ufeffhello\nworld\n".encode(),
    "utf8.txt": "café\nnaïve — “quoted”\n日本語テキスト\nemoji 😀👩‍💻 end\n".encode(),
    "empty.txt": b"",
    "only_newline.txt": b"\n",
    "binary.bin": b"\x00\x01\x02binary\x00data\n",
    "invalid_utf8.txt": b"good line\nbad \xff\xfe bytes\nend\n",
    "image.png": tiny_png(),
    ".hidden.txt": b"hidden content\n",
    "sub/inner.txt": b"inner file\n",
    "sub/nested/deep.txt": b"deep file\n",
}
FILES_LINKS = {"link.txt": "small.txt", "broken_link.txt": "missing-target.txt"}

# edit: every edit case rebuilds this, so cases never see each other's changes.
EDIT_FILES: dict[str, bytes] = {
    "code.py": CODE_PY.encode(),
    "dup.txt": b"foo\nbar\nfoo\nbaz\n",
    "quotes.txt": "say “hello” and ‘bye’\nnext line\n".encode(),
    "trailing.txt": b"alpha   \nbeta\t\ngamma\n",
    "nbsp.txt": "a\u00a0b c\nrest\n".encode(),
    "dashes.txt": "range 1–5 — ok\nminus −2\n".encode(),
    "mixed.txt": "first “a”\nsecond plain\nthird “c”\n".encode(),
    "crlf.txt": b"one\r\ntwo\r\nthree\r\n",
    "bom.txt": "\ufeffhello\nworld\n".encode(),
    "bom_crlf.txt": "\ufeffhello\r\nworld\r\n".encode(),
    "invalid_utf8.txt": b"good line\nbad \xff\xfe bytes\nend\n",
    "no_newline.txt": b"alpha\nbeta\ngamma",
    "sub/inner.txt": b"inner file\n",
}

# tree: grep, find and ls (not a git repository).
TREE_FILES: dict[str, bytes] = {
    "README.md": b"# Project\nTODO: write docs\n",
    "Makefile": b"all:\n\techo build\n",
    ".env": b"SECRET=1\n# TODO hidden\n",
    ".config/settings.json": b'{"debug": true}\n',
    "src/main.py": b"import os\n\n\ndef main():\n    # TODO: more\n    return os.getcwd()\n",
    "src/util.py": b"def helper(x):\n    return x * 2\n",
    "src/App.PY": b"def upper():\n    pass\n",
    "src/pkg/__init__.py": b"",
    "src/pkg/mod.py": b"def mod_func():\n    return 1\n",
    "tests/test_main.py": b"from src.main import main\n\n\ndef test_main():\n    assert main()\n",
    "docs/guide.md": b"Guide\nSee the TODO list.\n",
    "docs/api/index.md": b"API index\n",
    "docs/config.json": b"{}\n",
    "case.txt": b"Hello\nhello\nHELLO\nhelp\n",
    "regex.txt": b"a.b\naxb\n(x+y)*\n[brackets]\n--flag-like\n",
    # 1200 matching lines of ~80 bytes of grep output: over the 50 KB cap.
    "bulk.txt": b"".join(b"bulk %04d " % i + b"b" * 60 + b"\n" for i in range(1, 1201)),
    "context.txt": CONTEXT_TXT.encode() + b"\n",
    "limit.txt": b"hit 1\nmiss\nhit 2\nhit 3\nmiss\nhit 4\nhit 5\nend\n",
    "three.txt": b"hit a\nhit b\nhit c\n",
    "long.txt": b"short needle\n" + b"n" * 300 + b" needle " + b"z" * 300 + b"\nend\n",
    "crlf.txt": b"one\r\ntwo\r\nthree\r\n",
    "data.bin": b"needle\x00binary\n",
    "sortme/b.txt": b"",
    "sortme/B2.txt": b"",
    "sortme/a.txt": b"",
    "sortme/A1.txt": b"",
    "sortme/_under.txt": b"",
    "sortme/10.txt": b"",
    "sortme/9.txt": b"",
    "sortme/Zed.txt": b"",
    "sortme/.dot": b"",
    "sortme/éclair.txt": b"",
    "sortme/-dash.txt": b"",
    **{f"many/f{i:02d}.txt": b"needle\n" for i in range(1, 13)},
}
TREE_DIRS = ["empty_dir"]
TREE_LINKS = {"link_dir": "src", "dangling": "nowhere"}

REPO_FILES: dict[str, bytes] = {
    ".gitignore": b"*.log\nbuild/\n",
    "app.py": b"import sys\n\nprint(sys.argv)\n",
    "lib/core.py": b"import json\n",
    "debug.log": b"import this is a log\n",
    "build/gen.py": b"import generated\n",
    "notes.md": b"notes\n",
}


# --------------------------------------------------------------------------------------------
# Builders
# --------------------------------------------------------------------------------------------


def _write_files(root: Path, files: dict[str, bytes]) -> None:
    for relative, data in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _link(root: Path, links: dict[str, str]) -> None:
    for name, target in links.items():
        os.symlink(target, root / name)


def build_files(root: Path) -> None:
    _write_files(root, FILES)
    _link(root, FILES_LINKS)


def build_edit(root: Path) -> None:
    _write_files(root, EDIT_FILES)


def build_tree(root: Path) -> None:
    _write_files(root, TREE_FILES)
    for directory in TREE_DIRS:
        (root / directory).mkdir()
    _link(root, TREE_LINKS)


def build_repo(root: Path) -> None:
    # An empty template gives a .git without hooks or description, the same on every git.
    subprocess.run(
        ["git", "init", "-q", "--template=", str(root)],
        check=True,
        env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"},
    )
    _write_files(root, REPO_FILES)


def build_unreadable(root: Path) -> None:
    _write_files(root, {"secret.txt": b"top secret\n", "ok.txt": b"fine\n"})
    os.chmod(root / "secret.txt", 0)


def release_unreadable(root: Path) -> None:
    """Let the temporary directory be deleted."""
    secret = root / "secret.txt"
    if secret.exists():
        os.chmod(secret, 0o644)


FIXTURES: dict[str, Callable[[Path], None]] = {
    "files": build_files,
    "edit": build_edit,
    "tree": build_tree,
    "repo": build_repo,
    "unreadable": build_unreadable,
}


def build_fixture(name: str, root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    FIXTURES[name](root)


def permission_checks_apply() -> bool:
    # root bypasses file permissions, so a chmod 000 file stays readable: such cases cannot be
    # recorded or tested as root.
    return os.geteuid() != 0


# --------------------------------------------------------------------------------------------
# Calls
# --------------------------------------------------------------------------------------------


def _case(
    case_id: str,
    tool: str,
    fixture: str,
    params: dict[str, Any],
    *,
    files: list[str] | None = None,
    needs_permissions: bool = False,
) -> dict[str, Any]:
    case: dict[str, Any] = {"id": case_id, "tool": tool, "fixture": fixture, "params": params}
    if files:
        case["files"] = files
    if needs_permissions:
        case["needsPermissions"] = True
    return case


def _read(case_id: str, params: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return _case(f"read-{case_id}", "read", kw.pop("fixture", "files"), params, **kw)


def _bash(case_id: str, params: dict[str, Any]) -> dict[str, Any]:
    return _case(f"bash-{case_id}", "bash", "files", params)


def _edit(case_id: str, params: dict[str, Any], *files: str) -> dict[str, Any]:
    path = params.get("path")
    watched = list(files) or ([path.lstrip("@")] if isinstance(path, str) else [])
    return _case(f"edit-{case_id}", "edit", "edit", params, files=watched)


def _write(case_id: str, params: dict[str, Any], *files: str) -> dict[str, Any]:
    return _case(f"write-{case_id}", "write", "edit", params, files=list(files))


def _grep(case_id: str, params: dict[str, Any], fixture: str = "tree") -> dict[str, Any]:
    return _case(f"grep-{case_id}", "grep", fixture, params)


def _find(case_id: str, params: dict[str, Any], fixture: str = "tree") -> dict[str, Any]:
    return _case(f"find-{case_id}", "find", fixture, params)


def _ls(case_id: str, params: dict[str, Any], fixture: str = "tree") -> dict[str, Any]:
    return _case(f"ls-{case_id}", "ls", fixture, params)


def _e(old: str, new: str) -> dict[str, str]:
    return {"oldText": old, "newText": new}


READ_CASES = [
    _read("plain", {"path": "small.txt"}),
    _read("offset-2", {"path": "small.txt", "offset": 2}),
    _read("offset-3-limit-2", {"path": "small.txt", "offset": 3, "limit": 2}),
    _read("offset-0", {"path": "small.txt", "offset": 0}),
    _read("offset-negative", {"path": "small.txt", "offset": -1}),
    _read("offset-fraction", {"path": "small.txt", "offset": 2.7, "limit": 1.5}),
    _read("limit-0", {"path": "small.txt", "limit": 0}),
    _read("limit-negative", {"path": "small.txt", "limit": -1}),
    _read("limit-1", {"path": "small.txt", "limit": 1}),
    _read("limit-bigger-than-file", {"path": "small.txt", "limit": 100}),
    _read("limit-to-exact-end", {"path": "small.txt", "offset": 9, "limit": 3}),
    _read("offset-trailing-empty-line", {"path": "small.txt", "offset": 11}),
    _read("offset-past-end", {"path": "small.txt", "offset": 12}),
    _read("offset-far-past-end", {"path": "small.txt", "offset": 50}),
    _read("lines-2000-no-trailing-newline", {"path": "lines_2000.txt"}),
    _read("lines-2000-trailing-newline", {"path": "lines_2000_nl.txt"}),
    _read("lines-2001", {"path": "lines_2001.txt"}),
    _read("lines-2001-continue", {"path": "lines_2001.txt", "offset": 2001}),
    _read("lines-2001-limit-2000", {"path": "lines_2001.txt", "limit": 2000}),
    _read("byte-cap", {"path": "big_bytes.txt"}),
    _read("byte-cap-offset", {"path": "big_bytes.txt", "offset": 1000}),
    _read("byte-cap-limit", {"path": "big_bytes.txt", "limit": 5}),
    _read("byte-cap-multibyte", {"path": "big_utf8.txt"}),
    _read("huge-first-line", {"path": "huge_line1.txt"}),
    _read("huge-first-line-offset-2", {"path": "huge_line1.txt", "offset": 2}),
    _read("huge-line-5", {"path": "huge_line5.txt"}),
    _read("huge-line-5-offset-5", {"path": "huge_line5.txt", "offset": 5}),
    _read("huge-line-5-offset-4-limit-1", {"path": "huge_line5.txt", "offset": 4, "limit": 1}),
    _read("huge-line-5-offset-6", {"path": "huge_line5.txt", "offset": 6}),
    _read("no-trailing-newline", {"path": "no_newline.txt"}),
    _read("no-trailing-newline-limit-2", {"path": "no_newline.txt", "limit": 2}),
    _read("crlf", {"path": "crlf.txt"}),
    _read("crlf-offset-2", {"path": "crlf.txt", "offset": 2, "limit": 1}),
    _read("bom", {"path": "bom.txt"}),
    _read("utf8", {"path": "utf8.txt"}),
    _read("empty", {"path": "empty.txt"}),
    _read("empty-offset-1", {"path": "empty.txt", "offset": 1}),
    _read("empty-offset-2", {"path": "empty.txt", "offset": 2}),
    _read("only-newline", {"path": "only_newline.txt"}),
    _read("image", {"path": "image.png"}),
    _read("directory", {"path": "sub"}),
    _read("missing", {"path": "nope.txt"}),
    _read("missing-parent", {"path": "nodir/x.txt"}),
    _read("at-prefix", {"path": "@small.txt"}),
    _read("absolute", {"path": f"{ROOT_PLACEHOLDER}/sub/inner.txt"}),
    _read("dot-slash", {"path": "./sub/nested/deep.txt"}),
    _read("hidden", {"path": ".hidden.txt"}),
    _read("symlink", {"path": "link.txt"}),
    _read("broken-symlink", {"path": "broken_link.txt"}),
    _read("binary", {"path": "binary.bin"}),
    _read("invalid-utf8", {"path": "invalid_utf8.txt"}),
    _read("string-offset", {"path": "small.txt", "offset": "2"}),
    _read("string-limit", {"path": "small.txt", "limit": "3"}),
    _read("non-numeric-offset", {"path": "small.txt", "offset": "abc"}),
    _read("bool-offset", {"path": "small.txt", "offset": True}),
    _read("null-offset", {"path": "small.txt", "offset": None}),
    _read("missing-path", {}),
    _read("path-number", {"path": 3}),
    _read("path-null", {"path": None}),
    _read("extra-field", {"path": "small.txt", "foo": 1}),
    _read("unreadable", {"path": "secret.txt"}, fixture="unreadable", needs_permissions=True),
]

BASH_CASES = [
    _bash("echo", {"command": "echo hello"}),
    _bash("exit-1", {"command": "exit 1"}),
    _bash("output-and-exit-42", {"command": "echo out; exit 42"}),
    _bash("stderr-interleaved", {"command": "echo a; echo b 1>&2; echo c"}),
    # Pi reads stdout and stderr through two pipes: unpaced, their order is a race.
    _bash(
        "stderr-interleaved-paced",
        {"command": "echo a; sleep 0.1; echo b 1>&2; sleep 0.1; echo c"},
    ),
    _bash("stderr-only", {"command": "echo err 1>&2"}),
    _bash("failing-command", {"command": "ls /nonexistent-pith-dir"}),
    _bash("no-output", {"command": "true"}),
    _bash("no-output-failure", {"command": "false"}),
    _bash("pwd", {"command": "pwd"}),
    _bash("ls-subdir", {"command": "ls sub"}),
    _bash("trailing-blank-lines", {"command": "printf 'a\\n\\n\\n'"}),
    _bash("no-trailing-newline", {"command": "printf abc"}),
    _bash("utf8", {"command": "printf 'caf\\xc3\\xa9 \\xf0\\x9f\\x98\\x80\\n'"}),
    _bash("invalid-utf8", {"command": "printf 'a\\xff\\xfeb\\n'"}),
    _bash("crlf", {"command": "printf 'a\\r\\nb\\r\\n'"}),
    _bash("lines-2000", {"command": "seq 1 2000"}),
    _bash("lines-3000", {"command": "seq 1 3000"}),
    _bash(
        "bytes-60k-short-lines",
        {"command": "for i in $(seq 1 1500); do printf '%039d\\n' $i; done"},
    ),
    _bash("one-100k-line", {"command": "head -c 100000 /dev/zero | tr '\\0' x"}),
    _bash("one-100k-line-newline", {"command": "head -c 100000 /dev/zero | tr '\\0' x; echo"}),
    _bash("truncated-and-failing", {"command": "seq 1 3000; exit 3"}),
    _bash("stdin-cat", {"command": "cat"}),
    _bash("stdin-read", {"command": "read x; echo got:$x"}),
    _bash("killed-by-signal", {"command": "kill -9 $$"}),
    _bash("timeout", {"command": "sleep 2", "timeout": 0.3}),
    _bash("timeout-with-output", {"command": "echo start; sleep 2", "timeout": 0.5}),
    _bash("timeout-not-reached", {"command": "echo quick", "timeout": 5}),
    _bash("timeout-zero", {"command": "echo x", "timeout": 0}),
    _bash("timeout-negative", {"command": "echo x", "timeout": -1}),
    _bash("timeout-too-large", {"command": "echo x", "timeout": 3_000_000}),
    _bash("empty-command", {"command": ""}),
    _bash("background-writer", {"command": "(sleep 0.2; echo late) & echo early"}),
    _bash("timeout-string", {"command": "echo x", "timeout": "5"}),
    _bash("missing-command", {}),
    _bash("command-number", {"command": 5}),
]

EDIT_CASES = [
    _edit("exact", {"path": "code.py", "edits": [_e('"Hello, "', '"Hi, "')]}),
    _edit(
        "multiple",
        {
            "path": "code.py",
            "edits": [_e("return name", "return name.upper()"), _e("import os", "import sys")],
        },
    ),
    _edit(
        "multiline", {"path": "code.py", "edits": [_e("def main():\n", "def main() -> None:\n")]}
    ),
    _edit("delete", {"path": "code.py", "edits": [_e("import os\n\n\n", "")]}),
    _edit("add-lines", {"path": "no_newline.txt", "edits": [_e("gamma", "gamma\ndelta\n")]}),
    _edit("not-found", {"path": "code.py", "edits": [_e("does not exist", "x")]}),
    _edit(
        "not-found-multi",
        {"path": "code.py", "edits": [_e("import os", "import sys"), _e("nothing here", "x")]},
    ),
    _edit("duplicate", {"path": "dup.txt", "edits": [_e("foo", "qux")]}),
    _edit(
        "duplicate-multi",
        {"path": "dup.txt", "edits": [_e("bar", "BAR"), _e("foo", "qux")]},
    ),
    _edit(
        "overlap",
        {
            "path": "code.py",
            "edits": [_e("def greet(name):", "x"), _e("greet(name):\n    print", "y")],
        },
    ),
    _edit("empty-old-text", {"path": "code.py", "edits": [_e("", "x")]}),
    _edit(
        "empty-old-text-multi", {"path": "code.py", "edits": [_e("import os", "y"), _e("", "x")]}
    ),
    _edit("no-change", {"path": "code.py", "edits": [_e("import os", "import os")]}),
    _edit("fuzzy-smart-quotes", {"path": "quotes.txt", "edits": [_e('say "hello"', 'say "hi"')]}),
    _edit("fuzzy-single-quotes", {"path": "quotes.txt", "edits": [_e("'bye'", "'ciao'")]}),
    _edit(
        "fuzzy-trailing-space", {"path": "trailing.txt", "edits": [_e("alpha\nbeta\n", "A\nB\n")]}
    ),
    _edit("fuzzy-nbsp", {"path": "nbsp.txt", "edits": [_e("a b c", "abc")]}),
    _edit("fuzzy-dashes", {"path": "dashes.txt", "edits": [_e("range 1-5 - ok", "range 1..5")]}),
    _edit("fuzzy-minus", {"path": "dashes.txt", "edits": [_e("minus -2", "minus 2")]}),
    _edit(
        "fuzzy-with-exact",
        {
            "path": "mixed.txt",
            "edits": [_e("second plain", "SECOND"), _e('first "a"', 'first "A"')],
        },
    ),
    _edit(
        "fuzzy-duplicate",
        {"path": "mixed.txt", "edits": [_e('"', "'")]},
    ),
    _edit("crlf-single-line", {"path": "crlf.txt", "edits": [_e("two", "TWO")]}),
    _edit("crlf-multiline-old", {"path": "crlf.txt", "edits": [_e("one\ntwo", "1\n2")]}),
    _edit("crlf-new-lines", {"path": "crlf.txt", "edits": [_e("three", "three\nfour")]}),
    _edit("crlf-old-text-with-cr", {"path": "crlf.txt", "edits": [_e("one\r\ntwo", "x")]}),
    _edit("bom", {"path": "bom.txt", "edits": [_e("hello", "HELLO")]}),
    _edit("bom-crlf", {"path": "bom_crlf.txt", "edits": [_e("world", "WORLD")]}),
    _edit("legacy-top-level", {"path": "code.py", "oldText": "import os", "newText": "import re"}),
    _edit(
        "legacy-plus-edits",
        {
            "path": "code.py",
            "oldText": "import os",
            "newText": "import re",
            "edits": [_e("return None", "return 0")],
        },
    ),
    _edit(
        "edits-json-string",
        {"path": "code.py", "edits": '[{"oldText": "import os", "newText": "import json"}]'},
    ),
    _edit("edits-invalid-json-string", {"path": "code.py", "edits": "[{oldText: nope"}),
    _edit("edits-single-object", {"path": "code.py", "edits": _e("import os", "import io")}),
    _edit("edits-empty-list", {"path": "code.py", "edits": []}),
    _edit("edits-missing", {"path": "code.py"}),
    _edit("edit-missing-new-text", {"path": "code.py", "edits": [{"oldText": "import os"}]}),
    _edit("missing-file", {"path": "nope.py", "edits": [_e("a", "b")]}, "nope.py"),
    _edit("directory", {"path": "sub", "edits": [_e("a", "b")]}, "sub/inner.txt"),
    _edit("invalid-utf8", {"path": "invalid_utf8.txt", "edits": [_e("good", "fine")]}),
    _edit("at-prefix", {"path": "@code.py", "edits": [_e("import os", "import abc")]}),
    _edit(
        "unreadable",
        {"path": "secret.txt", "edits": [_e("top", "bottom")]},
    )
    | {"fixture": "unreadable", "needsPermissions": True},
]

WRITE_CASES = [
    _write(
        "new-nested",
        {"path": "new/deep/dir/file.txt", "content": "fresh\ncontent\n"},
        "new/deep/dir/file.txt",
    ),
    _write("overwrite", {"path": "code.py", "content": "print('replaced')\n"}, "code.py"),
    _write("empty-content", {"path": "blank.txt", "content": ""}, "blank.txt"),
    _write(
        "unicode-crlf",
        {"path": "u.txt", "content": "emoji 😀\r\ncafé\r\n\ufeffbom-inside"},
        "u.txt",
    ),
    _write("absolute", {"path": f"{ROOT_PLACEHOLDER}/abs.txt", "content": "abs\n"}, "abs.txt"),
    _write("at-prefix", {"path": "@at.txt", "content": "at\n"}, "at.txt"),
    _write("missing-content", {"path": "x.txt"}, "x.txt"),
    _write("content-number", {"path": "n.txt", "content": 42}, "n.txt"),
    _write("to-directory", {"path": "sub", "content": "x"}, "sub/inner.txt"),
]

GREP_CASES = [
    _grep("basic", {"pattern": "TODO"}),
    _grep("single-file", {"pattern": "def", "path": "src/main.py"}),
    _grep("subdir", {"pattern": "def", "path": "src"}),
    _grep("case-sensitive", {"pattern": "hello", "path": "case.txt"}),
    _grep("ignore-case", {"pattern": "hello", "path": "case.txt", "ignoreCase": True}),
    _grep("regex-dot", {"pattern": "a.b", "path": "regex.txt"}),
    _grep("literal-dot", {"pattern": "a.b", "path": "regex.txt", "literal": True}),
    _grep("literal-regex-chars", {"pattern": "(x+y)*", "path": "regex.txt", "literal": True}),
    _grep("literal-brackets", {"pattern": "[brackets]", "path": "regex.txt", "literal": True}),
    _grep("pattern-leading-dashes", {"pattern": "--flag", "path": "regex.txt"}),
    _grep("byte-cap", {"pattern": "bulk", "path": "bulk.txt", "limit": 5000}),
    _grep("default-limit-100", {"pattern": "bulk", "path": "bulk.txt"}),
    _grep("glob-no-slash", {"pattern": "TODO", "glob": "*.py"}),
    _grep("glob-with-slash", {"pattern": "def", "glob": "src/pkg/*.py"}),
    _grep("glob-dot-slash", {"pattern": "def", "glob": "./src/*.py"}),
    _grep("glob-double-star", {"pattern": "def", "glob": "**/*.py"}),
    _grep("glob-braces", {"pattern": "TODO", "glob": "*.{md,json}"}),
    _grep("glob-no-file", {"pattern": "TODO", "glob": "*.xyz"}),
    _grep("context-string", {"pattern": "match one", "path": "context.txt", "context": "1"}),
    _grep("ignore-case-string", {"pattern": "HELP", "path": "case.txt", "ignoreCase": "true"}),
    _grep("absolute-path", {"pattern": "hello", "path": f"{ROOT_PLACEHOLDER}/case.txt"}),
    _grep("context-1", {"pattern": "match", "path": "context.txt", "context": 1}),
    _grep("context-2-overlapping", {"pattern": "match", "path": "context.txt", "context": 2}),
    _grep("limit-1", {"pattern": "hit", "path": "limit.txt", "limit": 1}),
    _grep("limit-3", {"pattern": "hit", "path": "limit.txt", "limit": 3}),
    _grep("limit-exactly-n", {"pattern": "hit", "path": "limit.txt", "limit": 5}),
    _grep("limit-3-of-3", {"pattern": "hit", "path": "three.txt", "limit": 3}),
    _grep("limit-with-context", {"pattern": "hit", "path": "limit.txt", "limit": 2, "context": 1}),
    _grep("limit-zero", {"pattern": "hit", "path": "limit.txt", "limit": 0}),
    _grep("limit-string", {"pattern": "hit", "path": "limit.txt", "limit": "2"}),
    _grep("long-line", {"pattern": "needle", "path": "long.txt"}),
    _grep("crlf", {"pattern": "two", "path": "crlf.txt"}),
    _grep("binary-file", {"pattern": "needle", "path": "data.bin"}),
    _grep("hidden-file", {"pattern": "SECRET"}),
    _grep("missing-path", {"pattern": "x", "path": "nope"}),
    _grep("no-match", {"pattern": "zzzz-no-such-text"}),
    _grep("invalid-regex", {"pattern": "(unclosed", "path": "regex.txt"}),
    _grep("missing-pattern", {"path": "regex.txt"}),
    _grep("repo-gitignored", {"pattern": "import"}, fixture="repo"),
    _grep("repo-dot-git-contents", {"pattern": "repositoryformatversion"}, fixture="repo"),
]

FIND_CASES = [
    _find("star-py", {"pattern": "*.py"}),
    _find("double-star-py", {"pattern": "**/*.py"}),
    _find("src-star-py", {"pattern": "src/*.py"}),
    _find("dot-slash", {"pattern": "./src/*.py"}),
    _find("dir-name", {"pattern": "pkg"}),
    _find("top-dir-name", {"pattern": "src"}),
    _find("limit-zero", {"pattern": "f01.txt", "path": "many", "limit": 0}),
    _find("nested-dir-name", {"pattern": "api"}),
    _find("uppercase-pattern", {"pattern": "*.PY"}),
    _find("lowercase-matches-uppercase", {"pattern": "readme.md"}),
    _find("braces", {"pattern": "*.{md,json}"}),
    _find("question-mark", {"pattern": "f0?.txt", "path": "many"}),
    _find("limit-reached", {"pattern": "*.txt", "path": "many", "limit": 3}),
    _find("limit-exact", {"pattern": "*.txt", "path": "many", "limit": 12}),
    _find("in-subdir", {"pattern": "*.py", "path": "src"}),
    _find("hidden", {"pattern": ".env"}),
    _find("no-match", {"pattern": "*.xyz"}),
    _find("missing-path", {"pattern": "*", "path": "nope"}),
    _find("path-is-file", {"pattern": "*", "path": "README.md"}),
    _find("empty-dir", {"pattern": "empty_*"}),
    _find("missing-pattern", {}),
    _find("repo-gitignored", {"pattern": "*.py"}, fixture="repo"),
    _find("repo-ignored-log", {"pattern": "*.log"}, fixture="repo"),
    _find("repo-dot-git", {"pattern": "HEAD"}, fixture="repo"),
]

LS_CASES = [
    _ls("root", {}),
    _ls("dot", {"path": "."}),
    _ls("subdir", {"path": "src"}),
    _ls("hidden-dir", {"path": ".config"}),
    _ls("sorting", {"path": "sortme"}),
    _ls("limit-reached", {"path": "many", "limit": 5}),
    _ls("limit-exact", {"path": "many", "limit": 12}),
    _ls("limit-string", {"path": "many", "limit": "3"}),
    _ls("limit-zero", {"path": "many", "limit": 0}),
    _ls("trailing-slash", {"path": "src/"}),
    _ls("at-prefix", {"path": "@src"}),
    _ls("empty-dir", {"path": "empty_dir"}),
    _ls("missing-path", {"path": "nope"}),
    _ls("file-not-dir", {"path": "README.md"}),
    _ls("symlinked-dir", {"path": "link_dir"}),
    _ls("repo-root", {}, fixture="repo"),
]

CASES: list[dict[str, Any]] = [
    *READ_CASES,
    *BASH_CASES,
    *EDIT_CASES,
    *WRITE_CASES,
    *GREP_CASES,
    *FIND_CASES,
    *LS_CASES,
]


# --------------------------------------------------------------------------------------------
# Normalisation
# --------------------------------------------------------------------------------------------


def substitute_root(value: Any, root: str) -> Any:
    """Params as sent: `<ROOT>` replaced by the fixture directory."""
    if isinstance(value, str):
        return value.replace(ROOT_PLACEHOLDER, root)
    if isinstance(value, list):
        return [substitute_root(item, root) for item in value]
    if isinstance(value, dict):
        return {key: substitute_root(item, root) for key, item in value.items()}
    return value


def normalize(value: Any, root: str) -> Any:
    """Machine-specific paths replaced by placeholders, long strings by a digest."""
    if isinstance(value, str):
        text = _BASH_LOG.sub(BASH_LOG_PLACEHOLDER, value.replace(root, ROOT_PLACEHOLDER))
        return compact_string(text)
    if isinstance(value, list):
        return [normalize(item, root) for item in value]
    if isinstance(value, dict):
        return {key: normalize(item, root) for key, item in value.items()}
    return value


def compact_string(text: str) -> Any:
    if len(text) <= LONG_STRING:
        return text
    return {
        "sha256": hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(),
        "chars": len(text),
        "head": text[:300],
        "tail": text[-600:],
    }


def snapshot(root: Path, files: list[str]) -> dict[str, Any]:
    """The bytes of `files` after the call: text when UTF-8, else base64; None when absent."""
    result: dict[str, Any] = {}
    for relative in files:
        path = root / relative
        if not path.is_file():
            result[relative] = None
            continue
        try:
            data = path.read_bytes()
        except PermissionError:
            result[relative] = {"unreadable": True}
            continue
        try:
            result[relative] = {"text": compact_string(data.decode("utf-8"))}
        except UnicodeDecodeError:
            result[relative] = {"base64": base64.b64encode(data).decode("ascii")}
    return result
