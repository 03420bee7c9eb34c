"""Project trust: whether pith may load a project's own settings and resources (`.pith/`
settings, extensions, skills, prompts, themes, SYSTEM.md, project `.agents/skills`).

Context files (AGENTS.md, CLAUDE.md) do not depend on it.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from pith.resources._pathnames import PROJECT_DIR, StrPath, canonical_path, resolve_path
from pith.resources._trust_store import TRUST_FILE, TrustEntry, TrustStore, trust_key

__all__ = [
    "PROTECTED_PROJECT_ENTRIES",
    "TRUST_FILE",
    "DefaultTrust",
    "ExtensionTrustVote",
    "TrustChoice",
    "TrustEntry",
    "TrustOption",
    "TrustQuestion",
    "TrustReason",
    "TrustResolution",
    "TrustStore",
    "has_trust_requiring_resources",
    "resolve_project_trust",
    "trust_options",
    "trust_question",
    "trust_requiring_resources",
]

PROTECTED_PROJECT_ENTRIES = (
    "settings.json",
    "mcp.json",
    "extensions",
    "skills",
    "prompts",
    "themes",
    "SYSTEM.md",
    "APPEND_SYSTEM.md",
)
"""What in a project's `.pith/` makes a trust decision necessary (a bare `.pith/` does not)."""

DefaultTrust = Literal["ask", "always", "never"]


def has_trust_requiring_resources(cwd: StrPath, home: StrPath | None = None) -> bool:
    """True when a session in `cwd` would load something only a trusted project may give:
    one of `PROTECTED_PROJECT_ENTRIES` in `cwd/.pith/`, or `.agents/skills` in `cwd` or any
    ancestor up to `/` (git roots do not stop the search). `<home>/.agents/skills` is the
    user's own and does not count, even when `cwd` is `home`."""
    return bool(trust_requiring_resources(cwd, home, first_only=True))


def trust_requiring_resources(
    cwd: StrPath, home: StrPath | None = None, *, first_only: bool = False
) -> list[str]:
    """The paths that make `has_trust_requiring_resources` true (what an untrusted project
    keeps from the session), nearest first."""
    home_dir = canonical_path(resolve_path(os.path.expanduser("~") if home is None else home))
    user_skills = os.path.join(home_dir, ".agents", "skills")
    directory = trust_key(cwd)
    project_dir = os.path.join(directory, PROJECT_DIR)
    found: list[str] = []
    for name in PROTECTED_PROJECT_ENTRIES:
        path = os.path.join(project_dir, name)
        if os.path.exists(path):
            found.append(path)
            if first_only:
                return found
    while True:
        skills = os.path.join(directory, ".agents", "skills")
        if skills != user_skills and os.path.exists(skills):
            found.append(skills)
            if first_only:
                return found
        parent = os.path.dirname(directory)
        if parent == directory:
            return found
        directory = parent


# --- the interactive question ---------------------------------------------------------------


class TrustChoice(enum.Enum):
    """An answer to "trust this project?" (the interactive prompt and `pith trust`)."""

    TRUST = "trust"
    TRUST_PARENT = "trust-parent"
    """Trust the folder above: saved for the parent, the folder's own entry removed."""
    TRUST_SESSION = "trust-session"
    DISTRUST = "distrust"
    DISTRUST_SESSION = "distrust-session"

    @property
    def trusted(self) -> bool:
        return self in (TrustChoice.TRUST, TrustChoice.TRUST_PARENT, TrustChoice.TRUST_SESSION)

    @property
    def remembered(self) -> bool:
        """Saved in trust.json (the session-only choices are not)."""
        return self not in (TrustChoice.TRUST_SESSION, TrustChoice.DISTRUST_SESSION)


@dataclass(frozen=True)
class TrustOption:
    choice: TrustChoice
    label: str
    updates: tuple[tuple[str, bool | None], ...]
    """What choosing it saves: (canonical path, decision or None to remove)."""

    @property
    def trusted(self) -> bool:
        return self.choice.trusted

    @property
    def saved_path(self) -> str | None:
        """The folder whose decision it saves; None for a session-only choice."""
        return next((path for path, decision in self.updates if decision is not None), None)


def trust_options(cwd: StrPath, *, session_only: bool = True) -> list[TrustOption]:
    """The choices to offer for `cwd`, in display order. "Trust parent folder" is left out at
    `/`; the session-only choices when `session_only` is false (e.g. `pith trust`)."""
    folder = trust_key(cwd)
    parent = os.path.dirname(folder)
    options = [TrustOption(TrustChoice.TRUST, "Trust", ((folder, True),))]
    if parent != folder:
        options.append(
            TrustOption(
                TrustChoice.TRUST_PARENT,
                f"Trust parent folder ({parent})",
                ((parent, True), (folder, None)),
            )
        )
    if session_only:
        options.append(TrustOption(TrustChoice.TRUST_SESSION, "Trust (this session only)", ()))
    options.append(TrustOption(TrustChoice.DISTRUST, "Do not trust", ((folder, False),)))
    if session_only:
        options.append(
            TrustOption(TrustChoice.DISTRUST_SESSION, "Do not trust (this session only)", ())
        )
    return options


@dataclass(frozen=True)
class TrustQuestion:
    """What the UI shows: `prompt`, then one entry per option."""

    cwd: str
    prompt: str
    options: Sequence[TrustOption]


def trust_question(cwd: StrPath) -> TrustQuestion:
    folder = trust_key(cwd)
    prompt = (
        f"Do you trust the project folder {folder}?\n"
        f"A trusted project can change pith's settings and give it skills, prompt templates "
        f"and a system prompt from {PROJECT_DIR}/, and its extensions run as code on this "
        f"machine."
    )
    return TrustQuestion(folder, prompt, trust_options(folder))


# --- resolution ------------------------------------------------------------------------------


class ExtensionTrustVote(Protocol):
    """An extension's answer to the `project_trust` event (`pith.extensions.TrustDecision`
    fits): `trusted` is "yes", "no" or anything else for undecided."""

    @property
    def trusted(self) -> str: ...

    @property
    def remember(self) -> bool: ...


ExtensionDecision = ExtensionTrustVote | Callable[[], Awaitable[ExtensionTrustVote | None]] | None
Ask = Callable[[TrustQuestion], Awaitable[TrustChoice | None]]

TrustReason = Literal[
    "override", "unprotected", "saved", "extension", "default", "no-ui", "asked", "cancelled"
]


@dataclass(frozen=True)
class TrustResolution:
    trusted: bool
    reason: TrustReason
    """What decided: `override` (--approve / --no-approve), `unprotected` (nothing needs
    trust), `saved` (trust.json), `extension`, `default` (defaultProjectTrust always/never),
    `no-ui` (ask, but nobody to ask), `asked` (the user chose), `cancelled` (the user
    dismissed the question)."""
    saved_path: str | None = None
    """The trust.json entry that decided, or that this resolution saved."""
    choice: TrustChoice | None = None
    """The user's answer, when asked."""

    def describe(self) -> str:
        """One line for the user, e.g. `trusted: saved decision for /home/me/src`."""
        verdict = "trusted" if self.trusted else "not trusted"
        where = f" for {self.saved_path}" if self.saved_path else ""
        why = {
            "override": "--approve" if self.trusted else "--no-approve",
            "unprotected": "nothing in the project needs trust",
            "saved": f"saved decision{where}",
            "extension": f"an extension decided{' (saved' + where + ')' if where else ''}",
            "default": f"defaultProjectTrust is {'always' if self.trusted else 'never'}",
            "no-ui": "no one to ask (defaultProjectTrust is ask)",
            "asked": f"you chose {self.choice.value if self.choice else '?'}",
            "cancelled": "the question was dismissed",
        }[self.reason]
        return f"{verdict}: {why}"


async def _extension_vote(decision: ExtensionDecision) -> ExtensionTrustVote | None:
    if decision is None:
        return None
    if callable(decision):
        return await decision()
    return decision


async def resolve_project_trust(
    cwd: StrPath,
    agent_dir: StrPath,
    home: StrPath | None = None,
    *,
    override: bool | None = None,
    default_trust: DefaultTrust = "ask",
    extension_decision: ExtensionDecision = None,
    ask: Ask | None = None,
) -> TrustResolution:
    """Whether the project at `cwd` is trusted, decided in this order:

    1. `override` (--approve / --no-approve);
    2. nothing needs trust (`has_trust_requiring_resources`): a saved decision, else trusted;
    3. the extensions' first yes/no (`extension_decision`, only awaited here), saved for
       `cwd` when it says `remember`;
    4. the decision saved in `<agent_dir>/trust.json` for `cwd` or its nearest ancestor;
    5. `default_trust`: always / never; for "ask", `ask(question)` when there is a UI (a
       remembered choice is saved), untrusted when `ask` is None or the question dismissed.

    Raises `ConfigError` when trust.json is malformed."""
    if override is not None:
        return TrustResolution(override, "override")
    store = TrustStore(agent_dir)
    if not has_trust_requiring_resources(cwd, home):
        entry = store.entry(cwd)
        if entry is not None:
            return TrustResolution(entry.trusted, "saved", entry.path)
        return TrustResolution(True, "unprotected")
    vote = await _extension_vote(extension_decision)
    if vote is not None and vote.trusted in ("yes", "no"):
        trusted = vote.trusted == "yes"
        if vote.remember:
            store.save(cwd, trusted)
            return TrustResolution(trusted, "extension", trust_key(cwd))
        return TrustResolution(trusted, "extension")
    entry = store.entry(cwd)
    if entry is not None:
        return TrustResolution(entry.trusted, "saved", entry.path)
    if default_trust == "always":
        return TrustResolution(True, "default")
    if default_trust == "never":
        return TrustResolution(False, "default")
    if ask is None:
        return TrustResolution(False, "no-ui")
    question = trust_question(cwd)
    choice = await ask(question)
    if choice is None:
        return TrustResolution(False, "cancelled")
    option = next((o for o in question.options if o.choice is choice), None)
    if option is None:
        raise ValueError(f"{choice.value!r} was not offered for {question.cwd}")
    if option.updates:
        store.save_many(option.updates)
    return TrustResolution(option.trusted, "asked", option.saved_path, choice)
