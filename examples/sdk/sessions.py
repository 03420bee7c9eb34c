"""A session's life from Python: start one, resume it by id, look at the next request the way
`pith context` shows it, fork it from an earlier message, and export it as a web page.
`python sessions.py`."""

import asyncio

import pith


async def main() -> None:
    async with await pith.create_session() as session:
        await session.prompt("Name three uses of a hash map.")
        await session.prompt("Which is the most common?")
        session_id = session.id

    # Later, maybe in another process: resume it by id (or by its file).
    async with await pith.open_session(session_id) as session:
        report = await session.context()
        window = report.model.context_window if report.model else 0
        used = report.system_tokens + sum(report.tool_tokens.values())
        used += sum(line.tokens for line in report.messages)
        print(f"next request: {len(report.messages)} messages, ~{used} of {window} tokens")

        # Ask the second question differently, in a new session that shares the first answer.
        entry_id, _ = session.fork_points()[-1]
        outcome = await session.fork(entry_id)
        print(f"forked before {outcome.selected_text!r}")
        await session.prompt("Which one is the least known?")
        print(session.last_text)

        page = session.export_html()
        print(f"exported to {page.name}")


if __name__ == "__main__":
    asyncio.run(main())
