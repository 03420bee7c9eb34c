"""Keeps the code `dataclasses` compiles at run time from one pith process to the next.

Making a dataclass compiles generated source text for its `__init__`, `__repr__`, `__eq__`
and the rest (`exec` of a string). pith's start-up path makes some 250 dataclasses, and that
compiling was about a third of the instructions of a whole `pith -p` run. The text depends
only on each class's fields, so the code it compiles to can be kept: `install(folder)` makes
`dataclasses` look every text up in one file under `folder` and compile only texts it has not
seen; what was new is written back when the process exits.

Behaviour is unchanged. The key is the whole text, the code is what `compile` makes of it with
the flags `dataclasses` itself compiles with (none inherited), and `exec` runs it with the same
globals and locals. The file is tied to the exact interpreter build and optimisation level; a
file that is missing, unreadable, truncated, of another interpreter or of the wrong shape is
ignored and replaced. It holds code pith runs, so it belongs in the agent dir, which the
permission system guards like pith's other control files. `PITH_NO_COMPILE_CACHE=1` turns it
off.
"""

from __future__ import annotations  # compile() below inherits none of it: dont_inherit

import builtins
import contextlib
import marshal
import os
import sys
from types import CodeType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = ["FILE_NAME", "CompileCache", "install"]

FILE_NAME = f"dataclass-code.{sys.implementation.cache_tag or 'python'}.marshal"
"""One file per Python version (`dataclass-code.cpython-311.marshal`), so two interpreters
sharing an agent dir do not replace each other's file on every run."""
DISABLE_ENV = "PITH_NO_COMPILE_CACHE"
MAX_ENTRIES = 20_000
"""Past this many texts the file keeps only those one process used (old versions' classes)."""

_FORMAT = b"pith compile cache 1\n"


def _stamp() -> bytes:
    """What the kept code is valid for: this interpreter's exact build and `-O` level."""
    return f"{sys.version}\n{sys.flags.optimize}\n".encode()


class CompileCache:
    """Compiled code by source text, read from and written back to one file."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.hits = 0
        self.compiled = 0
        self._codes: dict[str, CodeType] = _read(path)
        self._used: set[str] = set()

    def exec(
        self,
        source: object,
        namespace: dict[str, Any] | None = None,
        local_names: Mapping[str, object] | None = None,
        /,
    ) -> None:
        """`exec` as `dataclasses` calls it, a text's compiled code coming from the cache."""
        if type(source) is str:
            code = self._codes.get(source)
            if code is None:
                code = compile(source, "<string>", "exec", dont_inherit=True)
                self._codes[source] = code
                self.compiled += 1
            else:
                self.hits += 1
            self._used.add(source)
            source = code
        builtins.exec(source, namespace, local_names)  # type: ignore[arg-type]

    def save(self) -> None:
        """Write the file again when this process compiled something new; never raises."""
        if not self.compiled:
            return
        codes = self._codes
        if len(codes) > MAX_ENTRIES:
            codes = {text: codes[text] for text in self._used}
        temporary = f"{self.path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
            with open(temporary, "wb") as handle:
                handle.write(_FORMAT + _stamp() + marshal.dumps(codes))
            os.replace(temporary, self.path)
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def _read(path: str) -> dict[str, CodeType]:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return {}
    head = _FORMAT + _stamp()
    if not data.startswith(head):
        return {}
    try:
        codes = marshal.loads(data[len(head) :])
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(codes, dict):
        return {}
    if not all(type(k) is str and type(v) is CodeType for k, v in codes.items()):
        return {}
    return codes


def install(folder: str) -> CompileCache | None:
    """Route `dataclasses`' compiling through the cache file in `folder`, saved at exit.

    Returns the cache, or None when `PITH_NO_COMPILE_CACHE` is set or one is installed already.
    """
    if os.environ.get(DISABLE_ENV):
        return None
    import atexit
    import dataclasses

    current = getattr(dataclasses, "exec", None)
    if isinstance(getattr(current, "__self__", None), CompileCache):
        return None
    cache = CompileCache(os.path.join(folder, FILE_NAME))
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]
    atexit.register(cache.save)
    return cache
