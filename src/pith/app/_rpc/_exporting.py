"""`export_html`: the session as an HTML page, through the exporter when pith has one."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

from pith.errors import InputError

if TYPE_CHECKING:
    from pith.app._session import AgentSession

__all__ = ["export_session_html"]

NOT_AVAILABLE = "export_html is not available yet"


async def export_session_html(session: AgentSession, output: str | None) -> Path:
    """Write the page; the path written. Raises `InputError` when there is no exporter."""
    try:
        importlib.import_module("pith.app._export")
    except ModuleNotFoundError:
        raise InputError(NOT_AVAILABLE) from None
    raise InputError(NOT_AVAILABLE)
