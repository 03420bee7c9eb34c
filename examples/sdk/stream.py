"""Show a run as it happens: the reply's text as it streams, and every tool call with the
first line of its result. `python stream.py "find the TODOs"`."""

import asyncio
import sys

import pith


async def main(request: str) -> None:
    async with await pith.create_session(tools=["read", "grep", "find", "ls"]) as session:
        async for event in session.stream(request):
            if isinstance(event, pith.MessageUpdate) and isinstance(event.event, pith.TextDelta):
                print(event.event.delta, end="", flush=True)
            elif isinstance(event, pith.ToolExecutionStart):
                print(f"\n[{event.tool_name} {event.args}]")
            elif isinstance(event, pith.ToolExecutionEnd):
                result = event.result.content
                first = result[0].text if result and isinstance(result[0], pith.TextContent) else ""
                print(f"[{event.tool_name}: {first.splitlines()[0] if first else '(no text)'}]")
        print()


if __name__ == "__main__":
    asyncio.run(main(" ".join(sys.argv[1:]) or "What files are here?"))
