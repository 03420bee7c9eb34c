"""Build hook: compile pith's optional C helper, src/pith/tools/_textscan_c.c, when it can.

The helper only makes truncation's totals faster; pith.tools._textscan has a pure-Python path
with the same results. So a missing compiler, Windows, or `PITH_NO_EXTENSION=1` gives a
pure-Python wheel and a warning, never a failed install.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # imported by the tests, outside a build
    BuildHookInterface = object  # type: ignore[assignment,misc]

ROOT = Path(__file__).resolve().parent
SOURCE = ROOT / "src" / "pith" / "tools" / "_textscan_c.c"


def extension_filename() -> str:
    """`_textscan_c.cpython-311-x86_64-linux-gnu.so`: the name this interpreter imports."""
    return "_textscan_c" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")


def compile_extension(source: Path, target: Path, compiler: str | None = None) -> str | None:
    """Compile `source` into the extension module `target`. None when it worked, else why not."""
    if os.name == "nt":
        return "the C helper is not built on Windows"
    if os.environ.get("PITH_NO_EXTENSION"):
        return "PITH_NO_EXTENSION is set"
    command = shlex.split(compiler or os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    flags = ["-O3", "-fPIC", "-shared", "-I", sysconfig.get_paths()["include"]]
    if sys.platform == "darwin":
        flags += ["-undefined", "dynamic_lookup"]
    try:
        subprocess.run(
            [*command, *flags, str(source), "-o", str(target)],
            capture_output=True,
            check=True,
            timeout=300,
        )
    except subprocess.CalledProcessError as error:
        target.unlink(missing_ok=True)
        detail = error.stderr.decode(errors="replace").strip().splitlines()
        return f"{command[0]} failed: {detail[-1] if detail else error.returncode}"
    except (OSError, subprocess.SubprocessError) as error:
        target.unlink(missing_ok=True)
        return f"cannot run {command[0]}: {error}"
    return None


class TextscanBuildHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    """Adds the compiled helper to a wheel (or next to the sources for an editable install)."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        if version == "editable":
            target = SOURCE.with_name(extension_filename())
        else:
            target = Path(tempfile.mkdtemp(prefix="pith-build-")) / extension_filename()
        problem = compile_extension(SOURCE, target)
        if problem is not None:
            self.app.display_warning(f"pith: no C helper ({problem}); using pure Python")
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version != "editable":
            build_data["force_include"][str(target)] = f"pith/tools/{target.name}"
