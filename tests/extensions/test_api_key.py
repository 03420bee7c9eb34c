"""`ctx.get_api_key(model)`: extensions that call a model themselves send the key pith sends."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pith.ai import ModelRegistry
from pith.app import SessionOptions, build_agent_session
from pith.extensions import (
    ExtensionAPI,
    ExtensionContext,
    ExtensionRunner,
    ExtensionSpec,
    load_extensions,
)
from pith.session import SessionStore
from pith.testing import FakeServer, configure_agent_dir


def test_the_key_from_the_command_line_reaches_extensions(tmp_path: Path) -> None:
    seen: list[str | None] = []

    def register(api: ExtensionAPI) -> None:
        async def show(args: str, ctx: ExtensionContext) -> None:
            assert ctx.model is not None
            seen.append(ctx.get_api_key(ctx.model))

        api.register_command("key", show)

    with FakeServer({"turns": []}) as server:
        agent = configure_agent_dir(tmp_path / "agent", server)
        work = tmp_path / "work"
        work.mkdir()
        runner = ExtensionRunner(str(work))
        spec = ExtensionSpec("probe", "cli", "<probe>", lambda: register)
        asyncio.run(load_extensions(runner, [spec]))
        registry = ModelRegistry.load(agent)
        model = registry.find("fake/m").model
        for key, expected in ((None, registry.api_key(model)), ("sk-from-cli", "sk-from-cli")):
            session = build_agent_session(
                cwd=str(work),
                store=SessionStore.create(str(work), tmp_path / "sessions"),
                registry=registry,
                model=model,
                thinking="off",
                options=SessionOptions(api_key=key),
                extensions=runner,
            )
            asyncio.run(session.prompt("/key"))
            session.close()
            assert seen[-1] == expected
