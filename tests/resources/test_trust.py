"""Project-trust resolution beyond the recorded cases: extensions, the interactive choices,
what gets saved, and which layouts need trust."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from pith.errors import ConfigError
from pith.extensions.events import TrustDecision
from pith.resources._trust import (
    TrustChoice,
    TrustQuestion,
    TrustResolution,
    has_trust_requiring_resources,
    resolve_project_trust,
    trust_options,
    trust_question,
)
from pith.resources._trust_store import TrustStore


@dataclass
class Tree:
    root: Path
    home: Path
    agent: Path
    project: Path

    @property
    def store(self) -> TrustStore:
        return TrustStore(self.agent)


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    root = Path(os.path.realpath(tmp_path))
    home = root / "home"
    project = home / "proj"
    (project / ".pith" / "skills").mkdir(parents=True)
    return Tree(root, home, home / ".pith" / "agent", project)


def _resolve(tree: Tree, **options: object) -> TrustResolution:
    return asyncio.run(
        resolve_project_trust(tree.project, tree.agent, tree.home, **options)  # type: ignore[arg-type]
    )


class _Asker:
    def __init__(self, answer: TrustChoice | None) -> None:
        self.answer = answer
        self.questions: list[TrustQuestion] = []

    async def __call__(self, question: TrustQuestion) -> TrustChoice | None:
        self.questions.append(question)
        return self.answer


class _Extension:
    def __init__(self, decision: TrustDecision | None) -> None:
        self.decision = decision
        self.calls = 0

    async def __call__(self) -> TrustDecision | None:
        self.calls += 1
        return self.decision


# --- which layouts need trust -----------------------------------------------------------------


def test_protected_entry_is_found_through_a_symlinked_cwd(tree: Tree) -> None:
    (tree.root / "alias").symlink_to(tree.project)
    assert has_trust_requiring_resources(tree.root / "alias", tree.home)


def test_user_agents_skills_do_not_count_even_through_a_symlinked_home(tree: Tree) -> None:
    (tree.home / ".agents" / "skills").mkdir(parents=True)
    (tree.root / "home-link").symlink_to(tree.home)
    (tree.home / "plain").mkdir()
    assert not has_trust_requiring_resources(tree.home / "plain", tree.root / "home-link")


def test_dangling_protected_symlink_does_not_count(tree: Tree) -> None:
    (tree.home / "p" / ".pith").mkdir(parents=True)
    (tree.home / "p" / ".pith" / "settings.json").symlink_to("missing.json")
    assert not has_trust_requiring_resources(tree.home / "p", tree.home)


# --- extensions -------------------------------------------------------------------------------


def test_extension_yes_with_remember_is_saved(tree: Tree) -> None:
    resolution = _resolve(tree, extension_decision=TrustDecision("yes", remember=True))
    assert (resolution.trusted, resolution.reason) == (True, "extension")
    assert tree.store.read() == {str(tree.project): True}


def test_extension_no_without_remember_saves_nothing(tree: Tree) -> None:
    tree.store.save(tree.project, True)
    resolution = _resolve(tree, extension_decision=_Extension(TrustDecision("no")))
    assert (resolution.trusted, resolution.reason) == (False, "extension")
    assert tree.store.read() == {str(tree.project): True}


def test_undecided_extension_falls_through_to_the_saved_decision(tree: Tree) -> None:
    tree.store.save(tree.home, True)
    extension = _Extension(TrustDecision("undecided", remember=True))
    resolution = _resolve(tree, extension_decision=extension)
    assert (resolution.trusted, resolution.reason, resolution.saved_path) == (
        True,
        "saved",
        str(tree.home),
    )
    assert extension.calls == 1


def test_extension_is_not_asked_when_nothing_needs_trust(tree: Tree) -> None:
    (tree.project / ".pith" / "skills").rmdir()
    extension = _Extension(TrustDecision("no"))
    assert _resolve(tree, extension_decision=extension).reason == "unprotected"
    assert extension.calls == 0


def test_extension_is_not_asked_under_an_override(tree: Tree) -> None:
    extension = _Extension(TrustDecision("no"))
    assert _resolve(tree, override=True, extension_decision=extension).trusted
    assert extension.calls == 0


def test_extension_beats_a_saved_decision(tree: Tree) -> None:
    tree.store.save(tree.project, False)
    assert _resolve(tree, extension_decision=TrustDecision("yes")).trusted


# --- asking -----------------------------------------------------------------------------------


def test_question_offers_the_five_choices_in_order(tree: Tree) -> None:
    question = trust_question(tree.project)
    assert [o.label for o in question.options] == [
        "Trust",
        f"Trust parent folder ({tree.home})",
        "Trust (this session only)",
        "Do not trust",
        "Do not trust (this session only)",
    ]
    assert str(tree.project) in question.prompt


def test_root_folder_has_no_parent_choice() -> None:
    assert [o.choice for o in trust_options("/", session_only=False)] == [
        TrustChoice.TRUST,
        TrustChoice.DISTRUST,
    ]


@pytest.mark.parametrize(
    ("choice", "trusted", "saved"),
    [
        (TrustChoice.TRUST, True, "project"),
        (TrustChoice.DISTRUST, False, "project"),
        (TrustChoice.TRUST_SESSION, True, None),
        (TrustChoice.DISTRUST_SESSION, False, None),
    ],
)
def test_answer_decides_and_remembered_answers_are_saved(
    tree: Tree, choice: TrustChoice, trusted: bool, saved: str | None
) -> None:
    asker = _Asker(choice)
    resolution = _resolve(tree, ask=asker)
    assert (resolution.trusted, resolution.reason, resolution.choice) == (trusted, "asked", choice)
    assert len(asker.questions) == 1
    expected = {str(tree.project): trusted} if saved else {}
    assert tree.store.read() == expected
    assert resolution.saved_path == (str(tree.project) if saved else None)


def test_trusting_the_parent_saves_the_parent(tree: Tree) -> None:
    resolution = _resolve(tree, ask=_Asker(TrustChoice.TRUST_PARENT))
    assert (resolution.trusted, resolution.saved_path) == (True, str(tree.home))
    assert tree.store.read() == {str(tree.home): True}


def test_parent_choice_also_drops_the_folder_own_decision(tree: Tree) -> None:
    option = next(o for o in trust_options(tree.project) if o.choice is TrustChoice.TRUST_PARENT)
    assert option.updates == ((str(tree.home), True), (str(tree.project), None))
    tree.store.save(tree.project, False)
    tree.store.save_many(option.updates)
    assert tree.store.read() == {str(tree.home): True}


def test_dismissed_question_means_untrusted_and_saves_nothing(tree: Tree) -> None:
    resolution = _resolve(tree, ask=_Asker(None))
    assert (resolution.trusted, resolution.reason) == (False, "cancelled")
    assert not tree.store.path.exists()


@pytest.mark.parametrize(("default", "trusted"), [("always", True), ("never", False)])
def test_default_always_or_never_does_not_ask(tree: Tree, default: str, trusted: bool) -> None:
    asker = _Asker(TrustChoice.DISTRUST)
    resolution = _resolve(tree, default_trust=default, ask=asker)
    assert (resolution.trusted, resolution.reason) == (trusted, "default")
    assert asker.questions == []


def test_saved_decision_is_used_before_asking(tree: Tree) -> None:
    tree.store.save(tree.home, False)
    asker = _Asker(TrustChoice.TRUST)
    assert not _resolve(tree, ask=asker).trusted
    assert asker.questions == []


def test_corrupt_trust_file_stops_resolution(tree: Tree) -> None:
    tree.agent.mkdir(parents=True)
    (tree.agent / "trust.json").write_text("{oops", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"trust\.json:1:2: not valid JSON"):
        _resolve(tree, ask=_Asker(TrustChoice.TRUST))
    assert (tree.agent / "trust.json").read_text(encoding="utf-8") == "{oops"


def test_describe_says_what_decided(tree: Tree) -> None:
    tree.store.save(tree.home, True)
    assert _resolve(tree).describe() == f"trusted: saved decision for {tree.home}"
    assert _resolve(tree, override=False).describe() == "not trusted: --no-approve"
