"""A compile cache: a small least-recently-used map from code text to what the
engine made of it (an evaluated pattern, a validation), owned by one engine.

Patterns are values, so sharing one between the callers of one engine is safe;
but each jam engine owns its own cache (passed in, never a module global), so
sessions never hand each other objects and one session's code cannot fill
another's cache. Module-level helpers fall back to a private default instance.
Safe across threads: validation runs off the event loop.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["CompileCache"]


class CompileCache:
    """At most `size` entries; the least recently used goes first."""

    def __init__(self, size: int = 256) -> None:
        if size < 1:
            raise ValueError(f"a compile cache holds at least one entry, got {size}")
        self.size = size
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, default: Any = None) -> Any:
        """The entry for `key` (now the most recently used), or `default`."""
        with self._lock:
            if key not in self._items:
                return default
            self._items.move_to_end(key)
            return self._items[key]

    def put(self, key: Hashable, value: Any) -> Any:
        """Store `value` under `key` and return it."""
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def get_or_make(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """The entry for `key`, made by `make()` (outside the lock) when missing."""
        missing = object()
        found = self.get(key, missing)
        return self.put(key, make()) if found is missing else found

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items
