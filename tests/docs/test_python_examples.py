"""The Python examples of the docs use pith's public API only."""

from __future__ import annotations

import re

from tests.docs.snippets import REPO

_PRIVATE_IMPORT = re.compile(r"^\s*(?:from|import)\s+pith(?:\.\w+)*\._\w+", re.MULTILINE)


def test_no_doc_imports_a_private_module() -> None:
    docs = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    offenders = [
        f"{doc.relative_to(REPO)}: {match.group(0).strip()}"
        for doc in docs
        for match in _PRIVATE_IMPORT.finditer(doc.read_text(encoding="utf-8"))
    ]
    assert offenders == []
