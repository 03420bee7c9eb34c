"""The pure-Python walker lists what `rg --files` lists, in the same order, on the same tree.

Every test builds a tree, runs the real rg on it and the walker, and checks both against the
list a person expects, so a test cannot pass by both sides listing nothing.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pith.agent import AbortController
from pith.tools import FindTool
from pith.tools._walk import list_files

RG = os.path.join(os.path.dirname(sys.executable), "rg")
GIT = [
    "git",
    "-c",
    "user.email=test@example.com",
    "-c",
    "user.name=Test",
    "-c",
    "init.defaultBranch=main",
]


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME without git config, so the machine's global excludes file stays out."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "PITH_RG"):
        monkeypatch.delenv(name, raising=False)
    return home


def make(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


def git_init(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run([*GIT, "init", "-q", str(root)], check=True)


def rg_files(root: Path, *, require_git: bool = True) -> list[str]:
    args = [RG, "--no-config", "--files", "--hidden", "--color=never", "--sort", "path"]
    args += ["--glob", "!.git"] + ([] if require_git else ["--no-require-git"])
    done = subprocess.run([*args, "--", "."], cwd=root, capture_output=True, check=False)
    assert done.returncode in (0, 1), done.stderr
    lines = done.stdout.decode("utf-8", "surrogateescape").splitlines()
    return [line.removeprefix("./") for line in lines]


def assert_listing(root: Path, expected: list[str], *, require_git: bool = True) -> None:
    assert rg_files(root, require_git=require_git) == expected
    assert list(list_files(str(root), require_git=require_git)) == expected


def test_hidden_files_are_listed_and_git_directories_skipped(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    git_init(root)
    make(root, {".env": "", ".config/app.toml": "", "src/a.py": "", "vendor/.git": "gitdir: x"})
    assert_listing(root, [".config/app.toml", ".env", "src/a.py"])


def test_entries_are_sorted_by_name_bytes_within_each_directory(tmp_path: Path) -> None:
    root = make(
        tmp_path / "tree", dict.fromkeys(["a/b", "a b", "a-b", "a.txt", "B", "_x", "é", "Z"], "")
    )
    assert_listing(root, ["B", "Z", "_x", "a/b", "a b", "a-b", "a.txt", "é"])


def test_nested_gitignore_negation_and_directory_only_rules(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    git_init(root)
    make(
        root,
        {
            ".gitignore": "*.log\n!keep.log\nbuild/\n",
            "a.log": "",
            "keep.log": "",
            "build/out.txt": "",
            "src/build/gen.c": "",
            "sub/.gitignore": "!*.log\nkeep.log\n",
            "sub/b.log": "",
            "sub/keep.log": "",
            "sub/build": "a file, which a directory-only rule leaves alone",
        },
    )
    assert_listing(root, [".gitignore", "keep.log", "sub/.gitignore", "sub/b.log", "sub/build"])


def test_anchored_unanchored_and_double_star_rules(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    git_init(root)
    rules = "/top.txt\ndocs/*.md\n**/gen/*.py\na/**/z.txt\nlogs/**\n"
    names = ["top.txt", "sub/top.txt", "docs/a.md", "docs/deep/b.md", "x/docs/c.md"]
    names += ["gen/g.py", "x/y/gen/h.py", "gen/keep.txt", "a/z.txt", "a/b/c/z.txt", "logs/1.txt"]
    make(root, {".gitignore": rules, **dict.fromkeys(names, "")})
    expected = [".gitignore", "docs/deep/b.md", "gen/keep.txt", "sub/top.txt", "x/docs/c.md"]
    assert_listing(root, expected)


def test_comments_escapes_trailing_spaces_and_crlf(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    git_init(root)
    rules = "# a comment\n\n\\#hash\n\\!bang\nkept\\ \nspaces   \r\ncrlf\r\n*.o\n"
    names = ["# a comment", "#hash", "!bang", "kept ", "kept", "spaces", "crlf", "x.o", "x.c"]
    make(root, {".gitignore": rules.encode(), **dict.fromkeys(names, "")})
    assert_listing(root, ["# a comment", ".gitignore", "kept", "x.c"])


def test_rgignore_beats_ignore_and_gitignore_needs_a_repository(tmp_path: Path) -> None:
    root = make(
        tmp_path / "tree",
        {
            ".ignore": "*.tmp\n",
            ".rgignore": "!keep.tmp\n",
            ".gitignore": "*.md\n",
            "a.tmp": "",
            "keep.tmp": "",
            "notes.md": "",
            "sub/.ignore": "!*.tmp\n",
            "sub/b.tmp": "",
        },
    )
    expected = [".gitignore", ".ignore", ".rgignore", "keep.tmp", "notes.md", "sub/.ignore"]
    assert_listing(root, [*expected, "sub/b.tmp"])


@pytest.mark.parametrize(
    ("require_git", "expected"),
    [(True, [".gitignore", "a.log", "b.txt"]), (False, [".gitignore", "b.txt"])],
)
def test_gitignore_outside_a_repository_applies_only_without_require_git(
    tmp_path: Path, require_git: bool, expected: list[str]
) -> None:
    root = make(tmp_path / "tree", {".gitignore": "*.log\n", "a.log": "", "b.txt": ""})
    assert_listing(root, expected, require_git=require_git)


def test_git_info_exclude_ranks_below_gitignore(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    git_init(root)
    make(root, {".git/info/exclude": "secret*\n", ".gitignore": "!secret.keep\n"})
    make(root, {"secret.txt": "", "secret.keep": "", "public.txt": ""})
    assert_listing(root, [".gitignore", "public.txt", "secret.keep"])


def test_rules_from_parent_directories_apply_up_to_the_repository_root(tmp_path: Path) -> None:
    outer = make(tmp_path / "outer", {".gitignore": "*.md\n", ".ignore": "*.skip\n"})
    repo = outer / "repo"
    git_init(repo)
    make(repo, {".gitignore": "/sub/local.txt\n*.bak\n"})
    names = ["sub/local.txt", "sub/x.bak", "sub/y.md", "sub/z.skip", "sub/keep.txt"]
    make(repo, dict.fromkeys(names, ""))
    assert_listing(repo / "sub", ["keep.txt", "y.md"])


def test_symlinks_are_not_listed(tmp_path: Path) -> None:
    root = make(tmp_path / "tree", {"real.txt": "", "dir/inside.txt": ""})
    (root / "file-link").symlink_to("real.txt")
    (root / "dir-link").symlink_to("dir")
    (root / "broken-link").symlink_to("missing")
    assert_listing(root, ["dir/inside.txt", "real.txt"])


def test_global_excludes_file_from_git_config(tmp_path: Path, home: Path) -> None:
    root = tmp_path / "tree"
    git_init(root)
    make(home, {".config/git/ignore": "*.swp\n", ".gitconfig": "[core]\n\texcludesFile = ~/ex\n"})
    make(home, {"ex": "/build\n"})
    make(root, {"a.swp": "", "build/x": "", "src/build/y": ""})
    assert_listing(root, ["a.swp", "src/build/y"])


def test_worktree_reads_the_exclude_file_of_its_main_repository(tmp_path: Path) -> None:
    main = tmp_path / "main"
    git_init(main)
    subprocess.run([*GIT, "-C", str(main), "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    worktree = tmp_path / "worktree"
    subprocess.run([*GIT, "-C", str(main), "worktree", "add", "-q", str(worktree)], check=True)
    make(main, {".git/info/exclude": "*.secret\n"})
    make(worktree, {"a.secret": "", "b.txt": ""})
    assert_listing(worktree, ["b.txt"])


def test_find_tool_output_is_the_same_without_rg(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "tree"
    git_init(root)
    names = ["src/app.py", "src/util/io.py", "src/util/.hidden.py", "tests/test_app.py"]
    names += ["docs/index.md", "README.md", "build/out.py", "node_modules/x/index.js"]
    make(root, {".gitignore": "build/\nnode_modules/\n", **dict.fromkeys(names, "")})
    tool = FindTool(str(root))

    def run(arguments: dict[str, object]) -> str:
        result = asyncio.run(tool.execute("id", arguments, AbortController().signal, None))
        return result.text()

    calls: list[dict[str, object]] = [
        {"pattern": "*.py"},
        {"pattern": "src/**"},
        {"pattern": "**/*.md", "limit": 1},
        {"pattern": "*", "path": "src"},
    ]
    with_rg = [run(call) for call in calls]
    monkeypatch.setenv("PITH_RG", "none")
    without_rg = [run(call) for call in calls]
    assert without_rg == with_rg
    assert with_rg[0] == "src/app.py\nsrc/util/.hidden.py\nsrc/util/io.py\ntests/test_app.py"
