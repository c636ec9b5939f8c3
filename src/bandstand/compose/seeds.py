"""Stable seeds: a 32-bit seed from a few parts (a run's seed, a node, a part, a mood), the same on every
machine and Python (no `hash()` salt), so the same prompt and seed give the same files."""

from __future__ import annotations

import hashlib


def stable_seed(*parts: object) -> int:
    """The seed of `parts`, joined by "/" (`derive_seed`'s run/node/part/variant, `Intent.take`'s seed/moods)."""
    data = "/".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.blake2b(data, digest_size=4).digest(), "big")
