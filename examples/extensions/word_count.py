r"""word_count: a tool that counts the lines, words and bytes of a file, like `wc`.

Try it without a model:

    printf 'to be\nor not to be\n' > hamlet.txt
    pith tool word_count '{"path": "hamlet.txt"}' -e examples/extensions/word_count.py
    # -> 2 lines, 6 words, 19 bytes in hamlet.txt

With a model, the tool is active by default, and the system prompt lists it:

    pith -p "how long is README.md?" -e examples/extensions/word_count.py

Words are runs of characters between ASCII whitespace, as `wc -w` counts them in the C locale;
lines are newline characters, as `wc -l` counts them.
"""

from __future__ import annotations

import asyncio
import os

from pith.agent import AbortSignal, ToolError, ToolResult, UpdateCallback, text_result
from pith.extensions import ExtensionAPI, ExtensionContext, ToolDefinition

CHUNK_BYTES = 1 << 20


def register(api: ExtensionAPI) -> None:
    api.register_tool(
        ToolDefinition(
            name="word_count",
            label="Word count",
            description=(
                "Count the lines, words and bytes of a file, like `wc`. Cheaper than reading a "
                "large file just to know its size."
            ),
            # The arguments are checked against this schema before execute() runs: a call
            # without `path` never reaches it, and the model is told which field is missing.
            parameters={
                "type": "object",
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "the file, relative to the working directory",
                    }
                },
                "required": ["path"],
                "additionalProperties": False,
            },
            execute=count_words,
            # One line for the system prompt's list of tools.
            prompt_snippet="Count lines, words and bytes of a file",
        )
    )


async def count_words(
    call_id: str,
    args: dict[str, object],
    signal: AbortSignal,
    on_update: UpdateCallback | None,
    ctx: ExtensionContext,
) -> ToolResult:
    shown = str(args["path"])
    path = os.path.join(ctx.cwd, os.path.expanduser(shown))
    # A ToolError fails the call; its message is what the model reads, so it names the path it
    # looked at and what to try next.
    if not os.path.exists(path):
        raise ToolError(
            f"word_count: {shown} does not exist (looked for {path}). "
            "Check the name with ls or find, then call word_count again."
        )
    if os.path.isdir(path):
        raise ToolError(f"word_count: {shown} is a directory; give the path of a file inside it.")
    # Reading is blocking I/O: do it in a thread so the agent loop stays responsive.
    try:
        lines, words, size = await asyncio.to_thread(_count, path)
    except OSError as error:
        raise ToolError(f"word_count: cannot read {shown}: {error.strerror or error}") from None
    return text_result(
        f"{lines} lines, {words} words, {size} bytes in {shown}",
        details={"lines": lines, "words": words, "bytes": size},
    )


def _count(path: str) -> tuple[int, int, int]:
    """Lines, words and bytes of `path`, read in chunks so any size fits in memory."""
    lines = words = size = 0
    in_word = False
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK_BYTES):
            size += len(chunk)
            lines += chunk.count(b"\n")
            words += len(chunk.split())
            if in_word and not chunk[:1].isspace():
                words -= 1  # a word cut by the chunk boundary was counted twice
            in_word = not chunk[-1:].isspace()
    return lines, words, size
