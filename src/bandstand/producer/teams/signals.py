"""Section signals: how the drums of a section tell the bass of that section what
they played.

A signal is keyed by the section's index and the song contract's fingerprint
(`SignalKey`), so a bass working under another contract never hears these
drums. The first write wins: a second publish for the same key is refused
(returns False) and the first payload stays. A waiter gets the payload, or
None when the timeout passes first — the caller then says so in a status and
plays without it.

The payload (`DrumSignal`) is the drums' section telemetry (groove vector,
kick fingerprint, density, energy, velocity statistics — `score.telemetry`)
and the kicks of every bar (sixteenth step, velocity), which is what a bass
locks to. `LocalSignals` carries them between the agents of one process; a
section written on another machine gets its drums' signal inside its job
(`teams.remote.SectionRequest`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from bandstand.score import Note
from bandstand.score.telemetry import KICK_PITCHES, Telemetry, measure

__all__ = ["DrumSignal", "LocalSignals", "SignalKey", "Signals", "drum_signal"]

Kicks = tuple[tuple[int, int], ...]  # (sixteenth step in the bar, velocity)


@dataclass(frozen=True, slots=True)
class SignalKey:
    section: int
    fingerprint: str  # the song contract's

    def text(self) -> str:
        return f"{self.section}:{self.fingerprint}"


@dataclass(frozen=True, slots=True)
class DrumSignal:
    """What the drums of one section played: telemetry and the kicks of every bar (bar 0 is the
    section's first)."""

    telemetry: Telemetry
    kicks: tuple[Kicks, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"telemetry": self.telemetry.to_dict(), "kicks": [[list(k) for k in bar] for bar in self.kicks]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DrumSignal:
        t = dict(data["telemetry"])
        t["groove"] = tuple(t["groove"])
        kicks = tuple(tuple((int(s), int(v)) for s, v in bar) for bar in data["kicks"])
        return cls(Telemetry(**t), kicks)

    def bar_kicks(self, bar: int) -> Kicks:
        """The kicks of the section's `bar` (0-based); the kick fingerprint's steps (at the mean
        velocity) when the drums played no kick there."""
        if 0 <= bar < len(self.kicks) and self.kicks[bar]:
            return self.kicks[bar]
        pattern = self.telemetry.kick or ""
        velocity = max(1, min(127, round(self.telemetry.velocity_mean or 100)))
        return tuple((step, velocity) for step, ch in enumerate(pattern) if ch == "x")


def drum_signal(name: str, notes: Sequence[Note], bars: int, beats_per_bar: float, steps: int) -> DrumSignal:
    """The signal of a drum section from its notes (start relative to the section's start)."""
    telemetry = measure(name, notes, notes, bars * beats_per_bar, beats_per_bar)
    per_bar: list[dict[int, int]] = [{} for _ in range(bars)]
    step_beats = beats_per_bar / steps
    for n in notes:
        if n.pitch not in KICK_PITCHES:
            continue
        bar, step = divmod(round(n.start / step_beats + 1e-9), steps)
        if 0 <= bar < bars:
            per_bar[bar][step] = max(per_bar[bar].get(step, 0), n.velocity)
    return DrumSignal(telemetry, tuple(tuple(sorted(b.items())) for b in per_bar))


class Signals(Protocol):
    """Where section signals meet: first write wins, waiters time out."""

    async def publish(self, key: SignalKey, signal: DrumSignal) -> bool: ...
    async def wait(self, key: SignalKey, timeout: float) -> DrumSignal | None: ...


@dataclass(slots=True)
class LocalSignals:
    """Signals between the agents of one process (one event loop)."""

    _slots: dict[SignalKey, asyncio.Future[DrumSignal]] = field(default_factory=dict)
    published: list[SignalKey] = field(default_factory=list)

    def _slot(self, key: SignalKey) -> asyncio.Future[DrumSignal]:
        if key not in self._slots:
            self._slots[key] = asyncio.get_running_loop().create_future()
        return self._slots[key]

    async def publish(self, key: SignalKey, signal: DrumSignal) -> bool:
        slot = self._slot(key)
        if slot.done():
            return False
        slot.set_result(signal)
        self.published.append(key)
        return True

    async def wait(self, key: SignalKey, timeout: float) -> DrumSignal | None:
        slot = self._slot(key)
        try:
            return await asyncio.wait_for(asyncio.shield(slot), max(0.0, timeout))
        except TimeoutError:
            return None
