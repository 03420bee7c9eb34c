"""A package's public names imported from their own modules on first use (module `__getattr__`,
PEP 562), so importing the package costs only what a run touches.

Imports nothing at import time: `pith --version` goes through `pith/__init__.py`, which uses it.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

__all__ = ["lazy_names"]


def lazy_names(
    package: str,
    namespace: "dict[str, object]",
    homes: "Mapping[str, str]",
    public: "Sequence[str]",
) -> "tuple[Callable[[str], object], Callable[[], list[str]]]":
    """`__getattr__` and `__dir__` for `package`: a name of `homes` is imported from the module
    it names the first time it is asked for, then kept in `namespace` (the package's globals),
    so later lookups never come here again."""

    def __getattr__(name: str) -> object:
        module = homes.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *public})

    return __getattr__, __dir__
