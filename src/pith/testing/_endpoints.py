"""What both ways of running the fake server offer a test: its URLs and its state checks."""

from __future__ import annotations

import abc
from types import TracebackType
from typing import Self

from pith.testing._http import HOST

__all__ = ["Endpoints", "JsonObject"]

JsonObject = dict[str, object]


class Endpoints(abc.ABC):
    """What both ways of running the server offer a test: URLs and the state checks."""

    @property
    @abc.abstractmethod
    def port(self) -> int:
        """The TCP port on 127.0.0.1."""

    @property
    @abc.abstractmethod
    def requests(self) -> list[JsonObject]:
        """Every logged request so far (as in the `--log` file), oldest first."""

    @property
    def url(self) -> str:
        """`http://127.0.0.1:PORT`."""
        return f"http://{HOST}:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI SDK's `base_url`: `http://127.0.0.1:PORT/v1`."""
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """The Anthropic SDK's `base_url` (it appends `/v1/messages` itself)."""
        return self.url

    @property
    def gemini_base_url(self) -> str:
        """The Gemini API's base URL on this server: `http://127.0.0.1:PORT/v1beta`."""
        return f"{self.url}/v1beta"

    @abc.abstractmethod
    def state(self) -> JsonObject:
        """`{"requests": n, "unused_turns": [...], "problems": [...]}`."""

    def unused_turns(self) -> list[int]:
        """Indices of the script turns no request has used yet."""
        turns = self.state()["unused_turns"]
        assert isinstance(turns, list)
        return [int(t) for t in turns]

    def problems(self) -> list[str]:
        """Expectation misses, exhausted-script requests and unknown routes, in order."""
        problems = self.state()["problems"]
        assert isinstance(problems, list)
        return [str(p) for p in problems]

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    @abc.abstractmethod
    def start(self) -> Self:
        """Start serving; returns self."""

    @abc.abstractmethod
    def stop(self) -> None:
        """Stop serving and close open connections."""
