"""A package's names loaded on first use (PEP 562), so importing the package costs only what is used:
`bandstand --help` and a compose do not pay for the LLM backends or the whole compose engine."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping


def lazy_getattr(module: str, table: Mapping[str, str], namespace: MutableMapping[str, object], *,
                 package: str | None = None) -> Callable[[str], object]:
    """The `__getattr__` of `module`: a name in `table` is imported from `<package>.<table[name]>` (`package`:
    the module itself, a package) on first use and kept in `namespace` (the module's globals), so it is looked
    up once; any other name is an AttributeError, as for a module without it."""
    package = package or module

    def __getattr__(name: str) -> object:
        where = table.get(name)
        if where is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{where}"), name)
        namespace[name] = value
        return value

    return __getattr__
