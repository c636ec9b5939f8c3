"""The protocol registry: the one table of stream kinds and the events each
carries, built explicitly (`protocol_registry()`), never as an import-time
global. Emitters take their stream kind from it; introspection documents it.
"""

from __future__ import annotations

from collections.abc import Iterable

from bandstand.protocol.streams import STREAM_KINDS, StreamKind


class Registry:
    """Stream kinds by name."""

    def __init__(self, kinds: Iterable[StreamKind]) -> None:
        self.kinds: dict[str, StreamKind] = {}
        for kind in kinds:
            if kind.name in self.kinds:
                raise ValueError(f"stream kind {kind.name!r} registered twice")
            self.kinds[kind.name] = kind

    def kind(self, name: str) -> StreamKind:
        found = self.kinds.get(name)
        if found is None:
            raise KeyError(f"no stream kind {name!r}; one of {', '.join(self.kinds)}")
        return found


def protocol_registry() -> Registry:
    """Every stream bandstand speaks: jam, compose, studio, variation."""
    return Registry(STREAM_KINDS)
