"""Helpers for the jam tests: pitches of a pattern, a recording emitter."""

from __future__ import annotations

from typing import Any

from bandstand.patterns import evaluate
from bandstand.patterns.to_score import value_pitch
from bandstand.protocol import Emitter


def pitch_classes(code: str, cycles: int = 8) -> set[int]:
    """Every pitched note's pitch class in the first `cycles` cycles of `code`."""
    if code.strip() == "silence":
        return set()
    out = set()
    for hap in evaluate(code).query_arc(0, cycles):
        pitch = value_pitch(hap.value)
        if pitch is not None:
            out.add(round(pitch) % 12)
    return out


class Recorder:
    """An emitter whose messages are kept in order."""

    def __init__(self) -> None:
        self.emitter = Emitter()
        self.messages: list[dict[str, Any]] = []
        self.emitter.subscribe(self.messages.append)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == kind]

    def clear(self) -> None:
        self.messages.clear()
