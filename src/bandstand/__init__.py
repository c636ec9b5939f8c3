"""bandstand — a band of AI musicians that you direct.

Heavy parts are imported lazily so that `import bandstand` and
`bandstand --help` stay fast.
"""

from __future__ import annotations

from typing import Any

from bandstand.version import __version__

__all__ = ["__version__", "compose"]


def __getattr__(name: str) -> Any:
    if name == "compose":
        from bandstand.compose import compose

        return compose
    raise AttributeError(f"module 'bandstand' has no attribute {name!r}")
