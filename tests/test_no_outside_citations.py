"""The repository speaks for itself: code, tests and docs never cite documents that are not in it.

A reader of this repository cannot open notes kept elsewhere (numbered decisions, the sections
of a spec, a seed, a shared folder next to the checkout), so a comment that says only "see
decision 5" tells them nothing. State the rule in a short clause where it is used, or link to the
docs/ page that states it. Prose words such as "specification" or "a fixed seed" are fine; only
the citation shapes below are refused.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("src", "tests", "docs", "bench", "examples", "README.md")
"""What is checked: every code and prose file under these (recorded data is not)."""
SUFFIXES = {".py", ".md", ".toml", ".txt", ".sh", ".cfg", ".ini", ".yml", ".yaml", ".rst"}
SELF = Path(__file__).resolve()

CITATIONS: dict[str, re.Pattern[str]] = {
    "a spec folder (`spec/…`)": re.compile(r"(?<![\w./-])spec/"),
    "a section of a spec (`spec A.6.7`, `spec: §2`)": re.compile(
        r"\bspec:?\s+(?:§|[A-Z]\.\d|pi-core\b|extensions\.md)"
    ),
    "the core spec (`pi-core §3`)": re.compile(r"\bpi-core(?:\.md|\s*§)"),
    "a section sign with a number (`§5.3`)": re.compile(r"§\s*\d"),
    "the decisions file": re.compile(r"\bdecisions\.md\b"),
    "a numbered decision (`decision 5`)": re.compile(r"\b[Dd]ecisions?\s+\d+\b"),
    "the field notes": re.compile(r"\bfield-notes\b|\bfield notes\s*§"),
    "a numbered seed (`seed 004`)": re.compile(r"\b[Ss]eeds?\s+\d{3}\b"),
    "the seeds folder": re.compile(r"(?<![\w./-])seeds/"),
    "the shared folder (`../shared/…`)": re.compile(
        r"\.\./shared(?:/(?:oracle|spec|seeds|hooks|ARCHITECTURE\.md|CONVENTIONS\.md)|(?![\w/-]))"
    ),
    "the shared folder by absolute path": re.compile(r"/work/shared\b|\bshared/oracle\b"),
}


def scanned_files() -> list[Path]:
    files: list[Path] = []
    for name in SCANNED:
        top = ROOT / name
        if top.is_file():
            files.append(top)
            continue
        files.extend(
            path
            for path in sorted(top.rglob("*"))
            if path.is_file() and path.suffix in SUFFIXES and "__pycache__" not in path.parts
        )
    return [path for path in files if path.resolve() != SELF]


def citations(text: str) -> list[tuple[int, str, str]]:
    """(line number, what is cited, the line) for every citation of an outside document."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for what, pattern in CITATIONS.items():
            if pattern.search(line):
                found.append((number, what, line.strip()))
    return found


def test_no_file_cites_a_document_outside_the_repository() -> None:
    files = scanned_files()
    assert len(files) > 100, "the scan found almost nothing; has the layout changed?"
    problems = [
        f"{path.relative_to(ROOT)}:{number}: {what}: {line}"
        for path in files
        for number, what, line in citations(path.read_text(encoding="utf-8", errors="replace"))
    ]
    assert not problems, (
        "These cite documents that are not in the repository; state the rule in our own words "
        "where it is used, or link to the docs/ page that states it:\n" + "\n".join(problems)
    )


@pytest.mark.parametrize(
    "line",
    [
        "Gates, in this order (spec/extensions.md B.4):",
        "Chains (spec A.6.7): detection and selection.",
        '"""`ls`: one directory\'s entries (spec: §2.7)."""',
        "Token estimates (spec: pi-core §3.2).",
        "Known keys are typed (Pi's names, pi-core §9.3)",
        "the skill paths lose collisions, contrary to §5.3",
        "(spec/decisions.md 5)",
        "    # decision 11: `cat .en?` is judged as `cat .env`",
        "Decisions 1-7 of the tool guard",
        "Bypass cases come from field-notes §5.4",
        "Protection (seed 000): which calls the pruner never touches.",
        "see /work/shared/seeds/004.txt",
        "Needs the oracle installed (see ../shared/oracle/pi/README.md)",
        "the layers of `../shared/ARCHITECTURE.md` hold",
        "the folder `../shared` may be read-only",
    ],
)
def test_citations_of_outside_documents_are_found(line: str) -> None:
    assert citations(line), line


@pytest.mark.parametrize(
    "line",
    [
        "the Language Server Protocol specification says",
        "built below from a fixed seed, hundreds of entries each",
        "SEED = 20261129",
        '{"prune": {"seed": 5}}',
        "if spec is not None and spec.loader is not None:",
        "import msgspec",
        "def _spec_ranges(spec: str) -> list[tuple[int, int]]:",
        "Every fixture is built from the definitions below",
        'a trusted project may allow (`"external_directory": {"../shared-lib/*": "allow"}`)',
        '"ln -s ../shared/config config/shared",',
        "Decisions for whole tool calls: the gates together",
        "describe_decision(decision)",
        "the decision is cached for 5 minutes",
        "openapi-spec/ holds the schemas",
        "docs/extensions.md explains the events",
    ],
)
def test_ordinary_words_are_not_citations(line: str) -> None:
    assert not citations(line), line
