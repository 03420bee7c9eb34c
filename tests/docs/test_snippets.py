"""Every shell snippet marked runnable in README.md, docs/*.md and examples/extensions/README.md
runs as its doc says.

Mark a snippet with `<!-- runnable -->` on the line before its fence (options in
`tests/docs/snippets.py`); it then runs here against the fake model server, so a doc that no
longer matches the code fails this test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.snippets import REPO, Snippet, check, find_snippets, run_snippet

DOCS = [
    REPO / "README.md",
    *sorted((REPO / "docs").glob("*.md")),
    REPO / "examples" / "extensions" / "README.md",
]
SNIPPETS = find_snippets(DOCS)


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.id for s in SNIPPETS])
def test_snippet_runs_as_documented(snippet: Snippet, tmp_path: Path) -> None:
    outcome = run_snippet(snippet, tmp_path)
    problems = check(snippet, outcome)
    assert not problems, (
        f"{snippet.id}: {'; '.join(problems)}\n--- snippet\n{snippet.code}--- output\n"
        f"{outcome.output}"
    )


def test_the_docs_with_shell_examples_have_runnable_snippets() -> None:
    marked = {snippet.doc for snippet in SNIPPETS}
    expected = {"README.md", "examples/extensions/README.md"} | {
        f"docs/{name}.md"
        for name in (
            "batch",
            "compaction",
            "export",
            "extensions",
            "guard",
            "mcp",
            "permissions",
            "providers",
            "pruning",
            "resources",
            "sdk",
            "sessions",
            "tools",
        )
    }
    assert expected <= marked, sorted(expected - marked)
