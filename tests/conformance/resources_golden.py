"""Reading tests/conformance/resources/golden.json (Pi 1.6's resource loading, recorded by
record_resources.py) and rebuilding its fixture trees for pith.

pith keeps project resources in `.pith/` where Pi uses `.pi/`: fixtures are built with every
`.pi` path segment renamed, and expected paths are mapped the same way (`/.pi/` and a trailing
`/.pi` only). Everything else is byte for byte as recorded.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

GOLDEN_PATH = Path(__file__).parent / "resources" / "golden.json"
GOLDEN: dict[str, Any] = json.loads(GOLDEN_PATH.read_text(encoding="utf-8"))
ROOT = "<ROOT>"
CONTEXT_NAMES = ("AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")


def cases(group: str | None = None, fn: str | None = None) -> list[dict[str, Any]]:
    """The recorded cases of `group` (all when None) calling `fn` (any when None)."""
    return [
        case
        for case in GOLDEN["cases"]
        if (group is None or case["group"] == group) and (fn is None or case["fn"] == fn)
    ]


def case_ids(selected: list[dict[str, Any]]) -> list[str]:
    return [case["id"] for case in selected]


def rename_segments(relative: str) -> str:
    """A fixture path with each `.pi` segment renamed to `.pith`."""
    return "/".join(".pith" if part == ".pi" else part for part in relative.split("/"))


def pith_path(value: str, root: Path) -> str:
    """A recorded path as pith spells it: `<ROOT>` filled in, `.pi` segments renamed."""
    text = value.replace(ROOT, str(root)).replace("/.pi/", "/.pith/")
    return text[: -len("/.pi")] + "/.pith" if text.endswith("/.pi") else text


def unroot(value: str, root: Path) -> str:
    """pith's output with the real root replaced by `<ROOT>`."""
    return value.replace(str(root), ROOT)


def check_ancestors(root: Path) -> None:
    """Pi walks up to `/`: anything above the fixture that the loaders look at would change
    the results, so refuse to run rather than report a false difference."""
    for directory in root.parents:
        for name in (*CONTEXT_NAMES, ".git", ".agents/skills"):
            found = directory / name
            if found.exists():
                raise AssertionError(
                    f"{found} exists above the fixture root {root}; the resource conformance "
                    "tests need a temporary directory with no context file, .git or "
                    ".agents/skills above it (set TMPDIR or --basetemp elsewhere)"
                )


def build_fixture(name: str, base: Path) -> Path:
    """Build fixture `name` at `<realpath of base>/root` and return that root."""
    root = Path(os.path.realpath(base)) / "root"
    root.mkdir()
    check_ancestors(root)
    files: dict[str, Any] = GOLDEN["fixtures"][name]["files"]
    for relative, spec in sorted(files.items()):
        path = root / rename_segments(relative)
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(spec, str):
            path.write_bytes(spec.replace(ROOT, str(root)).encode("utf-8"))
        elif "dir" in spec:
            path.mkdir(exist_ok=True)
        else:
            os.symlink(rename_segments(spec["symlink"].replace(ROOT, str(root))), path)
    return root
