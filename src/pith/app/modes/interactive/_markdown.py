"""Markdown as the interactive mode shows it, on rich's renderer.

Kept apart from `_format` so that rich's Markdown (markdown-it, pygments, tables) loads with
the first reply or resumed message it renders, not before the editor is up.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Heading, Markdown, MarkdownElement

__all__ = ["markdown"]


class _LeftHeading(Heading):
    """Headings flush left, as a terminal reader expects (rich centres the first level)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = self.text.copy()
        text.justify = "left"
        yield text


class _Markdown(Markdown):
    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "heading_open": _LeftHeading,
    }


def markdown(text: str) -> Markdown:
    """`text` as a renderable: left headings, code in the terminal's own colours."""
    return _Markdown(text, code_theme="ansi_dark", hyperlinks=False)
