"""The transport clock: cycle by cycle, swap in the band's newest composition at
the boundary, query it, send the cycle's timed sound events ahead of time, and
remember what was played (for MIDI, WAV and the transcript).

`advance()` does one cycle and needs no clock (headless recording uses it
directly); `run()` paces it in real time, `lookahead` seconds before each
cycle begins, and stamps each cycle's events with the wall-clock time it
begins (`Events.at`), so every client hears a cycle at the same moment and a
client that joins late starts at the current position: `recent` keeps the
events of the cycle playing now and the one sent ahead. In real time the
patterns are queried in a worker thread (`query_cycle`), never on the event
loop: the server keeps answering whatever a member's pattern costs.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass

from bandstand.jam.band import Composition
from bandstand.jam.engine import JamEngine
from bandstand.jam.sound import SILENCE, PatternBook, cycle_events
from bandstand.protocol import Events, Execute, SoundEvent


@dataclass(frozen=True, slots=True)
class PlayedCycle:
    """One cycle as it was played."""

    cycle: int
    round: int
    layers: tuple[tuple[str, str], ...]
    bpm: float
    seconds: float
    time_signature: str = "4/4"
    key: str = "C minor"


def query_cycle(composition: Composition, cycle: int, book: PatternBook | None = None) -> list[SoundEvent]:
    """The sound events of `composition`'s layers in `cycle`, in time order (pure: safe in a
    thread), from `book`'s patterns (the engine's own)."""
    events: list[SoundEvent] = []
    for member, code in composition.layers:
        try:
            events.extend(cycle_events(member, code, cycle, book))
        except Exception:  # a pattern that validated but fails to query is skipped, not fatal
            continue
    events.sort(key=lambda e: e.begin)
    return events


class Transport:
    """Plays the engine's composition cycle by cycle. See the module docstring."""

    def __init__(self, engine: JamEngine, *, lookahead: float = 0.3) -> None:
        self.engine = engine
        self.lookahead = lookahead
        self.cycle = 0
        self.playing = Composition(SILENCE, ())
        self.played: list[PlayedCycle] = []
        self.scheduled = 0
        self.recent: deque[Events] = deque(maxlen=2)

    def advance(self, at: float | None = None, queried: tuple[Composition, list[SoundEvent]] | None = None) -> list[SoundEvent]:
        """Play one cycle (beginning at wall-clock time `at`, when played in real time):
        swap at the boundary, query (unless `queried` brings the composition and its events
        for this cycle), record, send."""
        engine = self.engine
        composition, events = queried or (engine.composition, None)
        if composition != self.playing:
            self.playing = composition
            engine.emitter.emit(
                Execute(code=self.playing.code, layers=self.playing.layer_views(), from_cycle=self.cycle, round=engine.round)
            )
        if events is None:
            events = query_cycle(self.playing, self.cycle, engine.patterns)
        context = engine.context
        seconds = context.cycle_seconds
        self.played.append(PlayedCycle(self.cycle, engine.round, self.playing.layers, context.bpm, seconds,
                                       context.time_signature, context.key))
        message = Events(cycle=self.cycle, cycle_seconds=seconds, events=events, at=at)
        self.recent.append(message)
        engine.emitter.emit(message)
        self.scheduled += len(events)
        self.cycle += 1
        return events

    async def run(self) -> None:
        """Advance in real time until the engine stops (or the task is cancelled)."""
        loop = asyncio.get_running_loop()
        wall = time.time() - loop.time()  # loop time → Unix time
        next_start = loop.time() + self.lookahead
        while self.engine.running:
            seconds = self.engine.context.cycle_seconds
            composition = self.engine.composition
            events = await asyncio.to_thread(query_cycle, composition, self.cycle, self.engine.patterns)
            if not self.engine.running:
                break
            self.advance(round(next_start + wall, 6), (composition, events))
            next_start += seconds
            await asyncio.sleep(max(0.0, next_start - loop.time() - self.lookahead))
