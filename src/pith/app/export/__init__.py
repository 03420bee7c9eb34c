"""A session as one self-contained HTML page (`pith --export`, `/export`); see docs/export.md."""

from pith.app.export._write import (
    ExportError,
    default_export_path,
    export_html,
    export_session_file,
    export_store,
)

__all__ = [
    "ExportError",
    "default_export_path",
    "export_html",
    "export_session_file",
    "export_store",
]
