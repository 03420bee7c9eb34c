"""Ask pith one question and print the answer: `python ask.py "what does main.py do?"`.

The session works in the current directory with the model of your settings (or the first one
with credentials) and is saved like a `pith -p` run, so `pith -r` can resume it.
"""

import asyncio
import sys

import pith


async def main(question: str) -> int:
    async with await pith.create_session() as session:
        reply = await session.prompt(question)
        if reply is None:  # a /command took the text
            return 0
        if reply.stop_reason == "error":
            print(f"the model failed: {reply.error_message}", file=sys.stderr)
            return 1
        print(session.last_text)
        print(f"(session {session.id}, saved in {session.path})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(" ".join(sys.argv[1:]) or "What is in this directory?")))
