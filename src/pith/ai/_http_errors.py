"""The words for a failed model request, the same for every provider (pure functions).

A server's error status becomes `<status> <message>`; a broken connection says which way it
broke and which endpoint to check; a `Retry-After` header becomes the wait it asks for.
"""

from __future__ import annotations

from collections.abc import Mapping

from pith.ai._http_stream import transport_kind

__all__ = [
    "BROKEN_STREAM",
    "broken_stream",
    "described",
    "retry_after_seconds",
    "status_message",
    "timed_out",
    "transport_message",
    "unreachable",
]

BROKEN_STREAM = "Stream ended unexpectedly"


def status_message(status: int, body: object, *, typed: bool = False) -> str:
    """`<status> <message>` from an error body (`{"error": {"message": ...}}` or a string).

    An error inside a started stream (a 2xx `status`) is its message alone, prefixed with the
    error's `type` when `typed` (the HTTP status says nothing there, the type does)."""
    kind = detail = ""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            detail = str(inner["message"]) if isinstance(inner.get("message"), str) else ""
            kind = str(inner["type"]) if isinstance(inner.get("type"), str) else ""
        elif isinstance(inner, str):
            detail = inner
    if not detail:
        detail = body.strip()[:500] if isinstance(body, str) and body.strip() else "no details"
    if 200 <= status < 300:
        return f"{kind}: {detail}" if typed and kind else detail
    return f"{status} {detail}"


def _text(error: BaseException) -> str:
    return str(error) or type(error).__name__


def timed_out(where: str) -> str:
    return f"Request timed out ({where})"


def unreachable(where: str, error: BaseException) -> str:
    return f"Connection error: could not reach {where} ({_text(error)})"


def broken_stream(words: str, error: BaseException) -> str:
    """`words`, then which error broke the stream."""
    return f"{words} ({type(error).__name__}: {_text(error)})"


def described(error: BaseException) -> str:
    """An error that is not the connection's: its class and text."""
    return f"{type(error).__name__}: {_text(error)}"


def transport_message(error: Exception, where: str) -> str:
    """A failure of the connection itself, in words that say which, and where to (`where`,
    from `endpoint_description`)."""
    kind = transport_kind(error)
    if kind == "timeout":
        return timed_out(where)
    if kind == "stream":
        return broken_stream(BROKEN_STREAM, error)
    if kind == "connection":
        return unreachable(where, error)
    return described(error)


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """The wait a server asked for, from `retry-after-ms` or `retry-after` (seconds or a date)."""
    lowered = {key.lower(): value for key, value in headers.items()}
    if "retry-after-ms" in lowered:
        try:
            return float(lowered["retry-after-ms"]) / 1000
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    import time

    return max(0.0, when.timestamp() - time.time())
