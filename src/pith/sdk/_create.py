"""`create_session` and `open_session`: a session for a Python program, built the way the
`pith` command builds its own."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from pith.ai import Model, ModelRegistry, ThinkingLevel
from pith.app.session import SessionChoice, SessionOptions, open_store
from pith.errors import InputError
from pith.resources import agent_dir as default_agent_dir
from pith.sdk._assemble import ResourceChoice, SessionSetup, Warn, assemble_session, choose_thinking
from pith.sdk._models import PYTHON, choose_model
from pith.sdk._project import load_project, untrusted_notice
from pith.sdk._session import Session
from pith.session import SessionStore

__all__ = ["SessionSource", "create_session", "open_session", "print_warning"]

StrPath = str | os.PathLike[str]

SessionSource = Literal["new", "continue", "memory"] | StrPath
"""Where a session's conversation comes from and goes: `"new"` (a new session file),
`"continue"` (the latest session of the directory, else a new one), `"memory"` (nothing kept on
disk), or a session file or id to resume."""


def print_warning(message: str) -> None:
    """The default for `on_warning`: one line on standard error, as the `pith` command says
    it."""
    print(f"pith: warning: {message}", file=sys.stderr)


async def create_session(
    *,
    cwd: StrPath | None = None,
    model: str | Model | None = None,
    thinking: ThinkingLevel | None = None,
    tools: str | Sequence[str] | None = None,
    extensions: Sequence[StrPath] = (),
    discover_extensions: bool = True,
    settings: Mapping[str, object] | None = None,
    session: SessionSource = "new",
    fork: bool = False,
    name: str | None = None,
    session_dir: StrPath | None = None,
    system_prompt: str | None = None,
    trust_project: bool | None = None,
    api_key: str | None = None,
    agent_dir: StrPath | None = None,
    on_warning: Warn = print_warning,
) -> Session:
    """A started session, every choice optional (the defaults are those of `pith -p`):

    - `cwd`: where the tools work and whose project files apply (default: the current
      directory);
    - `model`: a `Model`, or `provider/id[:thinking]` as for `--model` (default: the settings'
      `defaultModel`, else the first model with credentials, else the first model of a local
      Ollama or LM Studio server, said through `on_warning`); `thinking` its level;
    - `tools`: names replacing the default set (`[]`: none), or a `--tools` text (`"+x,-y"`);
    - `extensions`: extension files, folders or modules to load besides the discovered ones
      (`discover_extensions=False` leaves those out; pith's built-ins always load);
    - `settings`: values in the shape of `settings.json`, merged over the user's (and a trusted
      project's) settings;
    - `session`: see `SessionSource`; with `fork=True` a file or id is copied into a new
      session instead of resumed; `name` names it; `session_dir` is where sessions are kept;
    - `system_prompt`: replaces pith's own (text, or a file that exists);
    - `trust_project`: `True` / `False` trusts (or not) the project's `.pith/` for this
      session, as `--approve` / `--no-approve`; `None` decides as `pith -p` does: the answer of
      an extension's `project_trust` handler, else the decision `pith trust` saved, else the
      `defaultProjectTrust` setting, where "ask" means not trusted (a program has nobody to
      ask); an untrusted project that holds files needing trust is said through `on_warning`;
    - `api_key`: the key for this session's requests; `agent_dir`: pith's folder (default
      `$PITH_AGENT_DIR`, else `~/.pith/agent`); `on_warning`: where warnings go.

    Raises `InputError` or `ConfigError` (both `PithError`s, with a one-line message) for a
    choice that cannot be used.
    """
    where = os.path.abspath(os.fspath(cwd) if cwd is not None else os.getcwd())
    if not os.path.isdir(where):
        raise InputError(f"cwd {where}: not a directory")
    home = Path(agent_dir) if agent_dir is not None else default_agent_dir()
    project = await load_project(
        where,
        home,
        extension_paths=[os.fspath(path) for path in extensions],
        no_extensions=not discover_extensions,
        trust=trust_project,
        settings=settings,
    )
    for warning in project.warnings:
        on_warning(warning)
    notice = untrusted_notice(project, PYTHON.approve)
    if notice is not None:
        on_warning(notice)
    registry = ModelRegistry.load(home)
    for warning in registry.warnings:
        on_warning(warning)
    choice = await choose_model(
        registry,
        model,
        None,
        project.settings,
        api_key=api_key,
        agent_dir=home,
        warn=on_warning,
        tell=on_warning,
    )
    chosen = choice.model
    store = _open(
        session, fork, name, session_dir, where, home, project.settings.values.session_dir
    )
    try:
        for warning in store.warnings:
            on_warning(warning)
        level, problem = choose_thinking(
            thinking or choice.thinking,
            store,
            chosen,
            project.settings.values.default_thinking_level,
        )
        if problem is not None:
            on_warning(problem)
        runtime = await assemble_session(
            SessionSetup(
                project=project,
                registry=registry,
                model=chosen,
                store=store,
                thinking=level,
                tools=_tool_options(tools, api_key),
                resources=ResourceChoice(system_prompt=system_prompt),
            ),
            on_warning,
        )
        await runtime.start()
    except BaseException:
        store.close()
        raise
    return Session(runtime, agent_dir=home)


async def open_session(
    session: StrPath,
    *,
    fork: bool = False,
    cwd: StrPath | None = None,
    model: str | Model | None = None,
    thinking: ThinkingLevel | None = None,
    tools: str | Sequence[str] | None = None,
    extensions: Sequence[StrPath] = (),
    discover_extensions: bool = True,
    settings: Mapping[str, object] | None = None,
    session_dir: StrPath | None = None,
    trust_project: bool | None = None,
    api_key: str | None = None,
    agent_dir: StrPath | None = None,
    on_warning: Warn = print_warning,
) -> Session:
    """Resume the session file or id `session` (as `pith --session`), or with `fork=True` go
    on in a new session copied from it (as `pith --fork`). A resumed session keeps the thinking
    level it last used unless `thinking` is given; the model is chosen as for a new session.
    The other choices are those of `create_session`."""
    return await create_session(
        cwd=cwd,
        model=model,
        thinking=thinking,
        tools=tools,
        extensions=extensions,
        discover_extensions=discover_extensions,
        settings=settings,
        session=session,
        fork=fork,
        session_dir=session_dir,
        trust_project=trust_project,
        api_key=api_key,
        agent_dir=agent_dir,
        on_warning=on_warning,
    )


def _open(
    session: SessionSource,
    fork: bool,
    name: str | None,
    session_dir: StrPath | None,
    cwd: str,
    home: Path,
    configured_dir: str | None,
) -> SessionStore:
    named = None if session in ("new", "continue", "memory") else os.fspath(session)
    if fork and named is None:
        raise InputError("fork=True needs the session to copy: a session file or id")
    store = open_store(
        SessionChoice(
            continue_latest=session == "continue",
            session=named if not fork else None,
            fork=named if fork else None,
            no_session=session == "memory",
            session_dir=os.fspath(session_dir) if session_dir is not None else None,
            name=name,
        ),
        cwd,
        home,
        configured_dir,
    )
    assert store is not None  # only a `resume` choice, never made here, gives none
    return store


def _tool_options(tools: str | Sequence[str] | None, api_key: str | None) -> SessionOptions:
    if tools is None or isinstance(tools, str):
        return SessionOptions(tools=tools, api_key=api_key)
    if not tools:
        return SessionOptions(no_tools=True, api_key=api_key)
    return SessionOptions(tools=",".join(tools), api_key=api_key)
