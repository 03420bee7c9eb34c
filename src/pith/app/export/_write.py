"""Session export: a self-contained HTML page of a session tree (`pith export`, `/export`, RPC).

The reading and writing happen here; the page itself is a pure function of the session
(`_export_page`). A file is read without taking its lock and never changed, so a session that
is open in another pith can be exported while it runs; malformed lines are skipped and listed
in the page and in `ExportResult.warnings`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from pith.app.export._page import render_page
from pith.errors import PithError
from pith.session import SessionStore, load_session

__all__ = ["ExportError", "ExportResult", "default_export_path", "export_html", "export_store"]

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")


class ExportError(PithError):
    """The page could not be written."""


@dataclass
class ExportResult:
    path: Path
    warnings: list[str] = field(default_factory=list)


def default_export_path(session_id: str, directory: str | os.PathLike[str]) -> Path:
    """`<directory>/pith-session-<id>.html` (characters unsafe in a file name become `_`)."""
    return Path(directory) / f"pith-session-{_UNSAFE_NAME.sub('_', session_id)}.html"


def export_html(
    session_path: str | os.PathLike[str],
    out_path: str | os.PathLike[str] | None = None,
    *,
    cwd: str | os.PathLike[str] | None = None,
) -> Path:
    """Write the HTML page of the session file at `session_path` and return where it went.

    `out_path` may be a file or an existing directory; by default the page is
    `pith-session-<id>.html` in `cwd` (default: the current directory). The current leaf is the
    file's last entry, as when the session is opened. Raises `SessionFileError` for a missing
    or non-session file and `ExportError` when the page cannot be written (both `PithError`s,
    whose message names the file); malformed lines are skipped (see `export_session_file`).
    """
    return export_session_file(session_path, out_path, cwd=cwd).path


def export_session_file(
    session_path: str | os.PathLike[str],
    out_path: str | os.PathLike[str] | None = None,
    *,
    cwd: str | os.PathLike[str] | None = None,
) -> ExportResult:
    """`export_html`, also returning the warnings (skipped lines) met while reading."""
    path = Path(session_path)
    loaded = load_session(path)
    store = SessionStore(loaded.header, loaded.entries, None, persisted=True)
    written = export_store(store, out_path, cwd=cwd, source=str(path), warnings=loaded.warnings)
    return ExportResult(written, list(loaded.warnings))


def export_store(
    store: SessionStore,
    out_path: str | os.PathLike[str] | None = None,
    *,
    cwd: str | os.PathLike[str] | None = None,
    source: str | None = None,
    warnings: list[str] | None = None,
) -> Path:
    """Write the page of a session held in memory (its entries and its leaf as they are now,
    written to disk or not); relative `out_path`s are taken from `cwd`."""
    base = Path(cwd) if cwd is not None else Path.cwd()
    if out_path is None:
        target = default_export_path(store.id, base)
    else:
        target = base / Path(out_path).expanduser()
        if os.fspath(out_path).endswith(("/", os.sep)):
            # `-o exports/` names a folder, even one that does not exist yet (Path drops the
            # slash, which would write a file called `exports`).
            try:
                target.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise ExportError(
                    f"cannot make the folder {target}: {error.strerror or error}; "
                    "give another output folder"
                ) from None
        if target.is_dir():
            target = default_export_path(store.id, target)
    if source is None:
        source = str(store.path) if store.path is not None else "(not saved to a file)"
    page = render_page(store, source=source, warnings=list(warnings or store.warnings))
    try:
        target.write_text(page, encoding="utf-8", errors="replace")
    except OSError as error:
        raise ExportError(
            f"cannot write the export to {target}: {error.strerror or error}; "
            "give another output file"
        ) from None
    return target.resolve()
