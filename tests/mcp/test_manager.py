"""The connection manager against real MCP servers started as child processes."""

from __future__ import annotations

from pathlib import Path

from pith.ai import ImageContent, TextContent
from pith.mcp._manager import McpManager
from tests.mcp.helpers import toolbox, with_manager


def test_connects_lists_tools_and_calls_one(tmp_path: Path) -> None:
    async def body(manager: McpManager) -> None:
        [state] = manager.states()
        assert state.status == "connected", state
        assert state.instructions == "Test tools for pith.\nSecond line."
        tools = {tool.full_name: tool for tool in manager.tools()}
        assert "mcp__box__echo" in tools
        assert tools["mcp__box__echo"].description == "Echo the text back."
        assert tools["mcp__box__echo"].exposure == "deferred"
        assert state.tool_count == len(tools)
        result = await manager.call_tool("mcp__box__echo", {"text": "hi"})
        assert not result.is_error
        assert result.content == [TextContent(text="hi")]
        assert result.details["server"] == "box"
        assert result.details["tool"] == "echo"

    with_manager([toolbox()], tmp_path, body)


def test_images_structured_and_errors(tmp_path: Path) -> None:
    async def body(manager: McpManager) -> None:
        picture = await manager.call_tool("mcp__box__picture", {})
        assert picture.content[0] == TextContent(text="a pixel")
        assert isinstance(picture.content[1], ImageContent)
        assert picture.content[1].mime_type == "image/png"

        weather = await manager.call_tool("mcp__box__weather", {"city": "Oslo"})
        assert weather.structured == {"city": "Oslo", "celsius": 21.5}
        assert "Oslo" in weather.text()

        bare = await manager.call_tool("mcp__box__bare_structured", {})
        assert bare.structured == {"answer": 42}
        assert bare.text() == '{\n  "answer": 42\n}'

        failed = await manager.call_tool("mcp__box__fail", {"reason": "no"})
        assert failed.is_error
        assert failed.text() == "failed: no"

        raised = await manager.call_tool("mcp__box__explode", {})
        assert raised.is_error
        assert "explode" in raised.text()

        unknown = await manager.call_tool("mcp__box__nope", {})
        assert unknown.is_error
        assert "mcp__box__nope" in unknown.text()

    with_manager([toolbox()], tmp_path, body)


def test_other_block_kinds_become_text(tmp_path: Path) -> None:
    async def body(manager: McpManager) -> None:
        result = await manager.call_tool("mcp__box__blocks", {})
        audio, link, inline, blob = (
            block.text for block in result.content if isinstance(block, TextContent)
        )
        assert audio == "[audio (audio/wav, 4 bytes) not shown]"
        assert "memo://notes" in link
        assert "mcp_resources" in link
        assert "'box'" in link
        assert inline == "[resource memo://inline]\ninline text"
        [saved] = result.details["savedFiles"]
        assert Path(saved).read_bytes() == b"\x00\x01\x02"
        assert saved in blob

    with_manager([toolbox()], tmp_path, body)


def test_long_text_is_cut_in_the_middle_and_saved(tmp_path: Path) -> None:
    async def body(manager: McpManager) -> None:
        result = await manager.call_tool("mcp__box__big", {"size": 100_000})
        [block] = result.content
        assert isinstance(block, TextContent)
        assert len(block.text.encode()) < 21 * 1024
        full = result.details["fullOutputPath"]
        expected = "".join(chr(ord("a") + i % 26) for i in range(100_000))
        assert Path(full).read_text() == expected
        assert block.text.startswith(expected[:10_000])
        assert f"{100_000 - 20 * 1024} characters cut" in block.text
        assert full in block.text
        assert "offset" in block.text
        assert "limit" in block.text
        assert result.details["truncated"]["cutChars"] == 100_000 - 20 * 1024

    with_manager([toolbox()], tmp_path, body)


def test_progress_is_reported_and_restarts_the_timeout(tmp_path: Path) -> None:
    # 8 steps 0.5 s apart take 4 s or more, longer than the 2 s timeout: only the progress
    # notifications keep the call alive. The timeout is four gaps long, so a busy machine
    # stretching one gap does not fail the test.
    seen: list[tuple[float, float | None, str | None]] = []

    async def body(manager: McpManager) -> None:
        result = await manager.call_tool(
            "mcp__box__progress", {"steps": 8, "pause": 0.5}, on_progress=lambda *p: seen.append(p)
        )
        assert not result.is_error, result
        assert result.text() == "done"
        assert seen[0] == (1.0, 8.0, "step 1")
        assert seen[-1] == (8.0, 8.0, "step 8")

    with_manager([toolbox(timeout=2.0)], tmp_path, body)


def test_server_logs_go_to_mcp_log(tmp_path: Path) -> None:
    async def body(manager: McpManager) -> None:
        await manager.call_tool("mcp__box__chatty", {})

    with_manager([toolbox()], tmp_path, body)
    log = (tmp_path / "agent" / "mcp.log").read_text()
    assert "[box] info toolbox: hello from the server" in log


def test_resources_and_prompts(tmp_path: Path) -> None:
    async def body(manager: McpManager) -> None:
        page = await manager.list_resources("box")
        uris = {resource.uri for resource in page.resources}
        assert "memo://notes" in uris
        assert "memo://page/29" in uris
        assert [t.uri_template for t in page.templates] == ["memo://items/{item}"]
        everything = await manager.list_resources(None)
        assert {r.uri for r in everything.resources} == uris

        notes = await manager.read_resource("box", "memo://notes")
        assert notes.text() == "[resource memo://notes]\nthe notes"
        item = await manager.read_resource("box", "memo://items/7")
        assert item.text().endswith("item 7")
        pixel = await manager.read_resource("box", "memo://pixel")
        assert isinstance(pixel.content[0], ImageContent)
        missing = await manager.read_resource("box", "memo://missing")
        assert missing.is_error

        [prompt] = await manager.list_prompts()
        assert prompt.name == "review"
        assert [(a.name, a.required) for a in prompt.arguments] == [
            ("path", True),
            ("focus", False),
        ]
        got = await manager.get_prompt("box", "review", {"path": "a.py"})
        [message] = got.messages
        assert message.role == "user"
        assert message.content == [TextContent(text="Review a.py for bugs.")]

    with_manager([toolbox()], tmp_path, body)


def test_tool_exposure_follows_the_configuration(tmp_path: Path) -> None:
    server = toolbox(
        exposure="direct", tool_exposure=(("echo", "hidden"), ("b*", "deferred"), ("*", "direct"))
    )

    async def body(manager: McpManager) -> None:
        exposure = {tool.name: tool.exposure for tool in manager.tools()}
        assert exposure["echo"] == "hidden"
        assert exposure["big"] == "deferred"
        assert exposure["blocks"] == "deferred"
        assert exposure["picture"] == "direct"

    with_manager([server], tmp_path, body)
