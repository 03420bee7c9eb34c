"""How one tool of a server reaches the model: its `toolExposure` entry, else the server's.

`toolExposure` keys are exact tool names or patterns in which `*` matches any run of
characters (every other character stands for itself). An exact name wins over every pattern;
among patterns the first match in the file's order wins.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pith.mcp._types import Exposure, ServerConfig

__all__ = ["tool_exposure"]


def tool_exposure(server: ServerConfig, tool: str) -> Exposure:
    for key, exposure in server.tool_exposure:
        if key == tool:
            return exposure
    for key, exposure in server.tool_exposure:
        if "*" in key and _pattern(key).fullmatch(tool):
            return exposure
    return server.exposure


@lru_cache(maxsize=256)
def _pattern(key: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in key.split("*")), re.DOTALL)
