"""The same patterns through every glob dialect, to show where they part ways.

Each row is a pattern, a path and one letter per dialect in `DIALECTS` order: `T` when the
dialect matches the path (for the two ignore dialects: a one-line ignore file ignores it),
`-` when not. The rows follow the contracts listed side by side in `pith.glob`'s docstring.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pith.glob import (
    IgnoreRules,
    command_matches,
    find_glob_regex,
    minimatch,
    parse_ripgrep_rule,
    path_pattern,
    ripgrep_verdict,
    segment_glob_match,
)

HOME = "/home/ann"


def _gitignore(pattern: str, path: str) -> bool:
    rules = IgnoreRules()
    rules.add([pattern])
    return rules.ignores(path)


def _ripgrep(pattern: str, path: str) -> bool:
    """Whether the walk would skip the file `path`: a folder on its way or the file itself."""
    rule = parse_ripgrep_rule(pattern)
    if rule is None:
        return False
    parts = path.split("/")
    folders = ["/".join(parts[:end]) for end in range(1, len(parts))]
    if any(ripgrep_verdict([rule], folder.encode(), True) for folder in folders):
        return True
    return ripgrep_verdict([rule], path.encode(), False) is True


DIALECTS: dict[str, Callable[[str, str], bool]] = {
    "segment": segment_glob_match,
    "command": lambda pattern, path: command_matches(pattern, path, HOME),
    "path": lambda pattern, path: path_pattern(pattern, HOME).matches(path),
    "minimatch": lambda pattern, path: minimatch(path, pattern),
    "gitignore": _gitignore,
    "ripgrep": _ripgrep,
    "find": lambda pattern, path: find_glob_regex(pattern).fullmatch(path) is not None,
}

TABLE = [
    # pattern      path            segment command path minimatch gitignore ripgrep find
    ("*.md", "a.md", "TTTTTTT"),
    ("*.md", "docs/a.md", "-TT-TT-"),  # `*` crosses `/`; a name matches at any depth
    ("src/*.py", "src/a/b.py", "-TT----"),
    ("src/*.py", "lib/src/a.py", "-------"),  # a `/` inside anchors the ignore rules
    ("/a", "a", "----TT-"),  # a leading `/` anchors an ignore rule, else it is literal
    ("a?c", "a/c", "-TT----"),
    ("**/a.md", "a.md", "T-TTTTT"),  # `**/` also matches no folder
    ("**/a.md", ".git/a.md", "TTT-TTT"),  # minimatch's `**` skips hidden folders
    ("a**/b", "a/c/b", "TTT----"),  # `**` is `*` when it is not a whole segment
    ("*", ".env", "TTT-TTT"),  # only minimatch keeps `*` off a leading dot
    ("[ab].md", "a.md", "---TTTT"),
    ("[ab].md", "[ab].md", "TTT----"),
    ("[ab", "[ab", "TTTT-TT"),  # an unclosed class drops the ignore rule
    ("{a,b}.md", "b.md", "---T-TT"),
    ("a\\*b", "a*b", "---TTTT"),  # `\` escapes; the segment glob reads it as `/`
    ("*.MD", "a.md", "----T--"),  # only gitignore ignores case
    ("!a.md", "b.md", "---T---"),  # minimatch negates; a lone `!` rule ignores nothing
    ("#a", "#a", "TTT---T"),  # a comment in minimatch and both ignore dialects
    ("docs/*", "docs", "--T----"),  # a path wildcard's `dir/*` covers `dir`
    ("docs/", "docs", "--T----"),  # an ignore rule ending in `/` is for folders only
    ("docs/", "docs/a.md", "--T-TT-"),  # ... and what is inside them
]


@pytest.mark.parametrize(("pattern", "path", "expected"), TABLE)
def test_each_dialect_reads_the_pattern_its_own_way(pattern: str, path: str, expected: str) -> None:
    got = "".join("T" if match(pattern, path) else "-" for match in DIALECTS.values())
    assert got == expected, f"{pattern!r} on {path!r}: {dict(zip(DIALECTS, got, strict=True))}"


def test_the_table_tells_every_dialect_apart() -> None:
    columns = ["".join(row[2][index] for row in TABLE) for index in range(len(DIALECTS))]
    assert len(set(columns)) == len(DIALECTS)
