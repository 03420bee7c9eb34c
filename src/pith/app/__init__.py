"""Wiring: sessions, tools, extensions and resources put together, and the run modes."""

from pith.app._tool_runner import ToolRunError, run_tool

__all__ = ["ToolRunError", "run_tool"]
