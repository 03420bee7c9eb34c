"""Finding and loading extensions.

Sources, in load order:

1. the `pith.extensions` entry-point group: pith's own built-ins first, then installed
   packages by entry-point name;
2. `<agent dir>/extensions/`: `name.py` files and `name/` package folders (with
   `__init__.py`), by name;
3. paths listed in the `extensions` setting;
4. `-e/--extension PATH` (a file, a package folder or an importable module), in order;
5. the project's `.pith/extensions/`, only when the project is trusted — trust is decided after
   the others load, since their `project_trust` handlers may take part in the decision.

`--no-extensions` skips 1 (except the built-ins), 2, 3 and 5; `-e` still loads. An entry
`"-name"` in the `extensions` setting disables the extension called `name`, built-ins included.
Every extension is a module with a `register(api)` function (async allowed); an entry point may
also name the function itself. Two extensions may not share a name: the first one found is
kept, except that `-e` replaces a discovered one. A broken extension is reported and skipped,
with whatever it had registered taken back; pith starts without it.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from pith.extensions._combine import describe_error
from pith.extensions._entry_points import CACHE_NAME, EntryPointRecord, installed_entry_points
from pith.extensions._registry import Extension
from pith.extensions._runner import HANDLER_ERRORS, ExtensionRunner

__all__ = [
    "BUILTIN_ORDER",
    "ENTRY_POINT_GROUP",
    "ExtensionSpec",
    "LoadOptions",
    "discover_extensions",
    "discover_project_extensions",
    "has_project_extensions",
    "load_extensions",
    "project_extensions_dir",
]

ENTRY_POINT_GROUP = "pith.extensions"
BUILTIN_DISTRIBUTION = "pith-agent"
BUILTIN_ORDER = ("guard", "permissions", "prune", "mcp")
"""Built-ins run in this order: the guard repairs a call before permissions judge it."""

Register = Callable[[object], object]


@dataclass
class ExtensionSpec:
    """An extension found but not loaded yet."""

    name: str
    source: str
    location: str
    load: Callable[[], Register]


@dataclass
class LoadOptions:
    cwd: str
    agent_dir: Path
    cli_paths: Sequence[str] = ()
    no_extensions: bool = False
    setting_entries: Sequence[str] = ()
    """The `extensions` setting: paths to load, `-name` / `!name` to disable."""
    invocation_dir: str | None = None
    """Where relative `-e` paths start (the shell's directory; default `cwd`)."""


def discover_extensions(options: LoadOptions) -> tuple[list[ExtensionSpec], list[str]]:
    """The extensions to load, in order, and the problems met finding them."""
    problems: list[str] = []
    disabled = {entry[1:].strip() for entry in options.setting_entries if entry[:1] in "-!"}
    found: list[ExtensionSpec] = []
    builtins, packages = _entry_points(options.agent_dir / "cache" / CACHE_NAME, problems)
    found.extend(builtins)
    if not options.no_extensions:
        found.extend(packages)
        found.extend(_folder(options.agent_dir / "extensions", "agent", problems))
        for entry in options.setting_entries:
            if entry and entry[:1] not in "-!+":
                spec = _path_spec(_expand(entry, options.agent_dir), "settings", problems)
                if spec is not None:
                    found.append(spec)
    for raw in options.cli_paths:
        base = Path(options.invocation_dir or options.cwd)
        spec = _path_spec(_expand(raw, base), "cli", problems, module_ok=raw)
        if spec is not None:
            found.append(spec)
    return _choose(found, disabled, {}, problems), problems


def discover_project_extensions(
    options: LoadOptions, loaded: Sequence[str]
) -> tuple[list[ExtensionSpec], list[str]]:
    """The project's `.pith/extensions/` (call only for a trusted project), after the others:
    `loaded` names the extensions already loaded, which keep their names."""
    problems: list[str] = []
    if options.no_extensions:
        return [], problems
    disabled = {entry[1:].strip() for entry in options.setting_entries if entry[:1] in "-!"}
    found = _folder(project_extensions_dir(options.cwd), "project", problems)
    taken = {
        name: ExtensionSpec(name, "loaded", "an extension already loaded", _none) for name in loaded
    }
    return _choose(found, disabled, taken, problems), problems


def project_extensions_dir(cwd: str) -> Path:
    return Path(cwd) / ".pith" / "extensions"


def has_project_extensions(cwd: str) -> bool:
    folder = project_extensions_dir(cwd)
    return folder.is_dir() and bool(_candidates(folder))


def _none() -> Register:
    raise RuntimeError("not loadable")


def _choose(
    found: list[ExtensionSpec],
    disabled: set[str],
    taken: dict[str, ExtensionSpec],
    problems: list[str],
) -> list[ExtensionSpec]:
    chosen: dict[str, ExtensionSpec] = dict(taken)
    for spec in found:
        if spec.name in disabled and spec.source != "cli":
            continue  # an explicit -e wins over a disabled name
        earlier = chosen.get(spec.name)
        if earlier is None or spec.source == "cli":
            if earlier is not None:
                del chosen[spec.name]  # -e replaces what discovery found, and loads last
            chosen[spec.name] = spec
        else:
            problems.append(
                f"extension {spec.name} at {spec.location} was not loaded: "
                f"{earlier.location} has the same name"
            )
    return [spec for name, spec in chosen.items() if name not in taken]


async def load_extensions(runner: ExtensionRunner, specs: Sequence[ExtensionSpec]) -> None:
    """Import each extension and call its `register(api)`; failures become diagnostics."""
    for spec in specs:
        extension = Extension(spec.name, spec.source, spec.location)
        api = runner.add(extension)
        try:
            register = spec.load()
            result = register(api)
            if inspect.isawaitable(result):
                await result
        except HANDLER_ERRORS as error:
            runner.discard(extension)
            runner.load_failed(extension, error)
            where = f"; details in {runner.log_path}" if runner.log_path is not None else ""
            runner.diagnostics.append(
                f"extension {spec.name} ({spec.location}) failed to load: "
                f"{describe_error(error)}{where}"
            )


# --- sources ----------------------------------------------------------------------------------


def _entry_points(
    cache_file: Path, problems: list[str]
) -> tuple[list[ExtensionSpec], list[ExtensionSpec]]:
    builtins: list[ExtensionSpec] = []
    packages: list[ExtensionSpec] = []
    try:
        points = installed_entry_points(ENTRY_POINT_GROUP, cache_file)
    except Exception as error:  # a broken distribution's metadata
        problems.append(f"cannot read installed extensions: {error}")
        return [], []
    for point in points:
        distribution = point.distribution
        is_builtin = distribution == BUILTIN_DISTRIBUTION
        spec = ExtensionSpec(
            point.name,
            "builtin" if is_builtin else "package",
            f"{point.value} ({distribution or 'unknown package'})",
            _entry_point_loader(point),
        )
        (builtins if is_builtin else packages).append(spec)
    rank = {name: index for index, name in enumerate(BUILTIN_ORDER)}
    builtins.sort(key=lambda spec: (rank.get(spec.name, len(rank)), spec.name))
    packages.sort(key=lambda spec: spec.name)
    return builtins, packages


def _entry_point_loader(point: EntryPointRecord) -> Callable[[], Register]:
    def load() -> Register:
        # `module:attribute.path [extras]`, imported as importlib.metadata would.
        module_name, _, attribute = point.value.partition("[")[0].partition(":")
        target: object = importlib.import_module(module_name.strip())
        for part in filter(None, attribute.strip().split(".")):
            target = getattr(target, part)
        return _register_of(target, point.value)

    return load


def _candidates(folder: Path) -> list[Path]:
    try:
        items = sorted(folder.iterdir())
    except OSError:
        return []
    return [
        item
        for item in items
        if not item.name.startswith((".", "_"))
        and (
            (item.is_file() and item.suffix == ".py")
            or (item.is_dir() and (item / "__init__.py").is_file())
        )
    ]


def _folder(folder: Path, source: str, problems: list[str]) -> list[ExtensionSpec]:
    specs = []
    for item in _candidates(folder):
        spec = _path_spec(item, source, problems)
        if spec is not None:
            specs.append(spec)
    return specs


def _expand(raw: str, base: Path) -> Path:
    path = Path(raw).expanduser()
    return path if path.is_absolute() else base / path


def _path_spec(
    path: Path, source: str, problems: list[str], *, module_ok: str | None = None
) -> ExtensionSpec | None:
    if path.is_file() and path.suffix == ".py":
        return ExtensionSpec(path.stem, source, str(path), lambda: _load_file(path.stem, path))
    if path.is_dir() and (path / "__init__.py").is_file():
        return ExtensionSpec(path.name, source, str(path), lambda: _load_file(path.name, path))
    looks_like_path = module_ok is not None and (
        module_ok.endswith(".py") or "/" in module_ok or module_ok.startswith(("~", "."))
    )
    if (
        module_ok
        and not looks_like_path
        and re.fullmatch(r"[A-Za-z_][\w.]*(:[A-Za-z_]\w*)?", module_ok)
    ):
        name = module_ok.split(":")[0].rsplit(".", 1)[-1]
        return ExtensionSpec(name, source, module_ok, lambda: _load_module(module_ok))
    if path.is_dir():
        problems.append(f"extension folder {path} has no __init__.py; skipped")
    elif path.exists():
        problems.append(f"extension {path} is not a .py file or a package folder; skipped")
    else:
        problems.append(f"extension {path} does not exist; skipped")
    return None


def _load_file(name: str, path: Path) -> Register:
    module_name = "pith_extension_" + re.sub(r"\W", "_", name)
    if path.is_dir():
        spec = importlib.util.spec_from_file_location(
            module_name, path / "__init__.py", submodule_search_locations=[str(path)]
        )
    else:
        spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # before running it: dataclasses and relative imports
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return _register_of(module, str(path))


def _load_module(target: str) -> Register:
    module_name, _, attribute = target.partition(":")
    module = importlib.import_module(module_name)
    return _register_of(getattr(module, attribute) if attribute else module, target)


def _register_of(target: object, where: str) -> Register:
    if isinstance(target, ModuleType):
        register = getattr(target, "register", None)
        if not callable(register):
            raise AttributeError(f"{where} has no register(api) function")
        return register  # type: ignore[no-any-return]
    if callable(target):
        return target
    raise TypeError(f"{where} is neither a module nor a register(api) function")
