"""Server-issued ids. Everything a project holds (tracks, regions, notes, buses,
variations, phrases) gets its id from an `IdIssuer`; ids a client sends on a
creating call are ignored. Production issues random uuid4s; tests and
reproducible runs pass a seed and get the same version-4 uuids every time."""

from __future__ import annotations

import random
import uuid
from typing import Protocol

__all__ = ["IdIssuer", "RandomIds", "SeededIds"]


class IdIssuer(Protocol):
    """Hands out fresh ids."""

    def new(self) -> str:
        """A new id, never handed out before by this issuer."""
        ...


class RandomIds:
    """uuid4 from the operating system's randomness (the default)."""

    __slots__ = ()

    def new(self) -> str:
        return str(uuid.uuid4())


class SeededIds:
    """Version-4 uuids from a seeded generator: the same seed gives the same ids in order."""

    __slots__ = ("_rng",)

    def __init__(self, seed: int | str) -> None:
        self._rng = random.Random(seed)

    def new(self) -> str:
        return str(uuid.UUID(int=self._rng.getrandbits(128), version=4))
