"""What the extension tests share: an `AgentSession` with extensions against the fake server,
and `pith` run as a subprocess with its own agent dir.

Extensions in-process are loaded through the real loader (`load_extensions` with an
`ExtensionSpec` whose `load` returns the test's `register`), so failures while registering go
through the same path as a file's would.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pith.ai import ModelRegistry
from pith.app import AgentSession, SessionOptions, build_agent_session
from pith.app.session import PromptOutcome
from pith.extensions import (
    ExtensionAPI,
    ExtensionRunner,
    ExtensionSpec,
    NoticeLevel,
    load_extensions,
)
from pith.session import SessionStore
from pith.testing import FakeServer, configure_agent_dir, subprocess_env

Register = Callable[[ExtensionAPI], object]


@dataclass
class RecordingUI:
    """An `ExtensionUI` that keeps every notice (what a person would have seen)."""

    notices: list[tuple[str, str]] = field(default_factory=list)

    def notify(self, message: str, level: NoticeLevel = "info") -> None:
        self.notices.append((level, message))

    async def confirm(self, title: str, message: str = "", *, timeout: float | None = None) -> bool:
        return False

    async def select(
        self, title: str, options: object, *, timeout: float | None = None
    ) -> str | None:
        return None

    async def input(
        self, title: str, placeholder: str | None = None, *, timeout: float | None = None
    ) -> str | None:
        return None

    def errors(self) -> list[str]:
        return [message for level, message in self.notices if level == "error"]


def make_runner(tmp_path: Path, *extensions: tuple[str, Register]) -> ExtensionRunner:
    """A runner (logging to `tmp_path/extensions.log`) with `extensions` loaded in order."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    runner = ExtensionRunner(str(work), log_path=tmp_path / "extensions.log")
    specs = [
        ExtensionSpec(name, "cli", f"<test {name}>", lambda register=register: register)
        for name, register in extensions
    ]
    asyncio.run(load_extensions(runner, specs))
    return runner


def make_session(
    tmp_path: Path,
    server: FakeServer,
    runner: ExtensionRunner,
    *,
    ui: RecordingUI | None = None,
) -> AgentSession:
    """A session in `tmp_path/work` on the fake server's model, with `runner`'s extensions."""
    agent = configure_agent_dir(tmp_path / "agent", server)
    registry = ModelRegistry.load(agent)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    store = SessionStore.create(str(work), tmp_path / "sessions")
    return build_agent_session(
        cwd=str(work),
        store=store,
        registry=registry,
        model=registry.find("fake/m").model,
        thinking="off",
        options=SessionOptions(),
        extensions=runner,
        ui=ui,
    )


def body(server: FakeServer, n: int) -> dict[str, object]:
    """The JSON body of the server's `n`-th model request."""
    value = server.requests[n]["body"]
    assert isinstance(value, dict)
    return value


def sent_texts(request_body: dict[str, object]) -> list[str]:
    """Every text a request's messages carry, in order (system prompt included)."""
    texts: list[str] = []
    messages = request_body["messages"]
    assert isinstance(messages, list)
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts.extend(part["text"] for part in content if part.get("type") == "text")
    return texts


def tool_message_text(request_body: dict[str, object]) -> str:
    """The text of the one tool result a request carries."""
    messages = request_body["messages"]
    assert isinstance(messages, list)
    found = [m for m in messages if m["role"] == "tool"]
    assert len(found) == 1, found
    content = found[0]["content"]
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


def system_prompt_of(request_body: dict[str, object]) -> str:
    messages = request_body["messages"]
    assert isinstance(messages, list)
    first = messages[0]
    assert first["role"] in ("system", "developer"), first
    content = first["content"]
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


def tool_names_of(request_body: dict[str, object]) -> list[str]:
    tools = request_body.get("tools") or []
    assert isinstance(tools, list)
    return [tool["function"]["name"] for tool in tools]


def session_entries(session: AgentSession) -> list[dict[str, object]]:
    """The session file's entries (after the header)."""
    assert session.store.path is not None
    lines = session.store.path.read_text().splitlines()
    return [json.loads(line) for line in lines[1:]]


def drive_outcomes(session: AgentSession, *prompts: str) -> list[PromptOutcome]:
    """Start `session`, send `prompts` one after another, shut it down; what each came to."""

    async def scenario() -> list[PromptOutcome]:
        await session.start()
        try:
            return [await session.prompt(text) for text in prompts]
        finally:
            await session.shutdown()

    return asyncio.run(scenario())


def drive(session: AgentSession, *prompts: str) -> list[object]:
    """As `drive_outcomes`; the model's reply to each prompt (None where a command or an
    input handler took it)."""
    return [
        None if outcome.handled else outcome.reply for outcome in drive_outcomes(session, *prompts)
    ]


def messages_of(entries: list[dict[str, object]]) -> list[dict[str, object]]:
    """The messages of `message` entries."""
    found = []
    for entry in entries:
        if entry["type"] == "message":
            message = entry["message"]
            assert isinstance(message, dict)
            found.append(message)
    return found


# --- pith as a process ------------------------------------------------------------------------


def pith_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of a `pith` subprocess: its own agent dir, no real API keys."""
    return subprocess_env(tmp_path / "agent", **extra)


def run_pith(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """`python -m pith ARGS` in `tmp_path/work`."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (tmp_path / "agent").mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "pith", *args],
        cwd=work,
        env=env if env is not None else pith_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def warnings_of(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("pith: warning: ")]
