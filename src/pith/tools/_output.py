"""Streaming command output with bounded memory (see docs/tools.md, bash).

`OutputAccumulator` takes raw bytes as a command produces them. It keeps a decoded rolling tail
(about 100 KB) for display, counts every line and byte, and once the output passes the caps it
opens a full-output file (`output_files`) holding every raw byte, earlier ones included, up to its
size limit. Memory stays the same whether the command prints 1 MB or 100 GB.
"""

from __future__ import annotations

import codecs
import os
import queue
import threading
from dataclasses import dataclass
from typing import BinaryIO

from pith.tools._output_files import DEFAULT_FULL_OUTPUT_MAX_BYTES, create_output_file
from pith.tools._truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    truncate_tail,
)

__all__ = ["OutputAccumulator", "OutputSnapshot", "create_output_file"]


class _BackgroundWriter:
    """Writes chunks to a file on a worker thread, so reading and writing overlap.

    At most `_DEPTH` chunks wait in the queue: a slow disk slows the reader down instead of
    growing memory.
    """

    _DEPTH = 8

    def __init__(self, handle: BinaryIO) -> None:
        self._handle = handle
        self._queue: queue.Queue[bytes | None] = queue.Queue(self._DEPTH)
        self._error: OSError | None = None
        self._thread = threading.Thread(target=self._run, name="pith-output-writer", daemon=True)
        self._thread.start()

    def write(self, data: bytes) -> None:
        self._queue.put(data)

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join()
        self._handle.close()
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        while (chunk := self._queue.get()) is not None:
            if self._error is None:
                try:
                    self._handle.write(chunk)
                except OSError as error:  # a full disk: keep draining, report on close
                    self._error = error


@dataclass
class OutputSnapshot:
    content: str
    truncation: TruncationResult
    full_output_path: str | None
    full_output_cut_at: int | None = None
    """The full-output file's size limit, when the output passed it (the file holds the start)."""


class OutputAccumulator:
    """Collects a command's output; see the module docstring."""

    def __init__(
        self,
        *,
        max_lines: int = DEFAULT_MAX_LINES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        file_prefix: str = "pith-output",
        file_max_bytes: int = DEFAULT_FULL_OUTPUT_MAX_BYTES,
        cut_later: bool = False,
    ) -> None:
        """`file_max_bytes` limits the full-output file; with `cut_later` the file keeps every
        byte until `cut_file()` (for a caller that reads all of it first)."""
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self._rolling_bytes = max(max_bytes * 2, 1)
        self._file_prefix = file_prefix
        self.file_max_bytes = file_max_bytes
        self._cut_later = cut_later
        self._file_bytes = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._raw_chunks: list[bytes] = []
        self._tail = bytearray()
        """The end of the output as UTF-8 of the decoded text: invalid bytes already replaced."""
        self._tail_starts_line = True
        self._raw_bytes = 0
        self._decoded_bytes = 0
        self._completed_lines = 0
        self._open_line = False
        self._open_line_bytes = 0
        self._completed_line_bytes = 0
        self._finished = False
        self.full_output_path: str | None = None
        self._file: _BackgroundWriter | None = None

    @property
    def total_lines(self) -> int:
        return self._completed_lines + (1 if self._open_line else 0)

    @property
    def total_bytes(self) -> int:
        """Bytes of decoded output (invalid bytes count as the 3-byte replacement)."""
        return self._decoded_bytes

    @property
    def last_line_bytes(self) -> int:
        """Size of the output's last line (the one before a final newline, if any)."""
        return self._open_line_bytes if self._open_line else self._completed_line_bytes

    def append(self, data: bytes) -> None:
        if self._finished:
            raise RuntimeError("output accumulator already finished")
        self._raw_bytes += len(data)
        if data.isascii() and not self._decoder.getstate()[0]:
            self._add_valid(data)  # the common case: no decoding needed at all
        else:
            self._add_valid(self._decoder.decode(data).encode("utf-8", "surrogatepass"))
        if self._file is not None or self._over_caps():
            self._ensure_file()
            self._write_file(data)
        elif data:
            self._raw_chunks.append(data)

    def finish(self) -> None:
        if self._finished:
            return
        self._finished = True
        self._add_valid(self._decoder.decode(b"", final=True).encode("utf-8", "surrogatepass"))
        if self._over_caps():
            self._ensure_file()

    def snapshot(self, *, persist_if_truncated: bool = False) -> OutputSnapshot:
        """The tail as the model sees it, with totals over the whole output."""
        text = self._snapshot_text() or self._tail.decode("utf-8")
        tail = truncate_tail(text, max_lines=self.max_lines, max_bytes=self.max_bytes)
        truncated = self.total_lines > self.max_lines or self._decoded_bytes > self.max_bytes
        truncated_by = None
        if truncated:
            truncated_by = tail.truncated_by or (
                "bytes" if self._decoded_bytes > self.max_bytes else "lines"
            )
        tail.truncated = truncated
        tail.truncated_by = truncated_by
        tail.total_lines = self.total_lines
        tail.total_bytes = self._decoded_bytes
        if persist_if_truncated and truncated:
            self._ensure_file()
        cut_at = self.file_max_bytes if self.file_cut else None
        return OutputSnapshot(tail.content, tail, self.full_output_path, cut_at)

    @property
    def file_cut(self) -> bool:
        """True when the output is larger than the full-output file may be."""
        return self.full_output_path is not None and self._raw_bytes > self.file_max_bytes

    def close_file(self) -> None:
        """Flush and close the full-output file; raises if writing it failed."""
        if self._file is not None:
            writer, self._file = self._file, None
            writer.close()

    def cut_file(self) -> bool:
        """With `cut_later`: cut the (closed) full-output file at its size limit now. True when
        it was cut."""
        if not self.file_cut or self.full_output_path is None:
            return False
        if self._cut_later:
            try:
                os.truncate(self.full_output_path, self.file_max_bytes)
            except OSError:
                return False
        return True

    def raw_output(self) -> bytes | None:
        """Everything printed, byte for byte, when it was small enough to keep in memory; None
        when it went to the full-output file (read that instead)."""
        if self.full_output_path is not None:
            return None
        return b"".join(self._raw_chunks)

    def full_text(self) -> str:
        """Everything printed, when it was small enough to keep in memory (no file)."""
        return b"".join(self._raw_chunks).decode("utf-8", "replace")

    def _over_caps(self) -> bool:
        return (
            self._raw_bytes > self.max_bytes
            or self._decoded_bytes > self.max_bytes
            or self.total_lines > self.max_lines
        )

    def _ensure_file(self) -> None:
        if self.full_output_path is not None:
            return
        self.full_output_path, handle = create_output_file(self._file_prefix, ".log")
        self._file = _BackgroundWriter(handle)
        for chunk in self._raw_chunks:
            self._write_file(chunk)
        self._raw_chunks = []

    def _write_file(self, data: bytes) -> None:
        assert self._file is not None
        if not self._cut_later:
            room = self.file_max_bytes - self._file_bytes
            if room <= 0:
                return
            if len(data) > room:
                data = data[:room]
        self._file_bytes += len(data)
        self._file.write(data)

    def _add_valid(self, data: bytes) -> None:
        """Count and keep `data`, which is valid UTF-8 (decoded output, re-encoded)."""
        if not data:
            return
        size = len(data)
        self._decoded_bytes += size
        self._tail += data
        if len(self._tail) > self._rolling_bytes * 2:
            self._trim_tail()
        newlines = data.count(b"\n")
        if newlines == 0:
            self._open_line_bytes += size
            self._open_line = True
            return
        self._completed_lines += newlines
        last = data.rfind(b"\n")
        if newlines == 1:
            self._completed_line_bytes = self._open_line_bytes + last
        else:
            self._completed_line_bytes = last - data.rfind(b"\n", 0, last) - 1
        self._open_line_bytes = size - last - 1
        self._open_line = self._open_line_bytes > 0

    def _trim_tail(self) -> None:
        start = len(self._tail) - self._rolling_bytes
        while start < len(self._tail) and (self._tail[start] & 0xC0) == 0x80:
            start += 1
        if start > 0:
            self._tail_starts_line = self._tail[start - 1] == 0x0A
        del self._tail[:start]

    def _snapshot_text(self) -> str:
        start = 0
        if not self._tail_starts_line:
            newline = self._tail.find(b"\n")
            start = 0 if newline == -1 else newline + 1
        return self._tail[start:].decode("utf-8")
