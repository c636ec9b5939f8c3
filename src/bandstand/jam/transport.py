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
loop: the server keeps answering whatever a member's pattern costs. Each
layer's cycle is computed within its budget and capped at 64 events
(`bandstand.patterns.cycle_cap`): a layer over the cap is thinned, one past
its budget rests for that cycle, the member says so once per pattern, and
the played record remembers which layers rested, so the recording is what
was heard.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass

from bandstand.jam.band import Composition
from bandstand.jam.engine import JamEngine
from bandstand.jam.sound import SILENCE, PatternBook, sound_events
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
    muted: tuple[str, ...] = ()  # members whose layer ran past its budget in this cycle: it did not sound


@dataclass(frozen=True, slots=True)
class Capped:
    """A layer that did not sound as written in one cycle: `found` onsets thinned to the per-layer
    cap, or muted (`muted` says why: its query ran past the cycle's budget)."""

    member: str
    code: str
    cycle: int
    found: int
    kept: int
    muted: str = ""


def query_cycle(
    composition: Composition, cycle: int, book: PatternBook | None = None
) -> tuple[list[SoundEvent], list[Capped]]:
    """The sound events of `composition`'s layers in `cycle`, in time order, and the layers the
    per-layer cap thinned or muted (pure: safe in a thread), from `book`'s patterns (the engine's
    own). All the layers of a cycle share one time budget (`CYCLE_BUDGET`'s seconds), so a cycle
    is computed within the transport's look-ahead whatever its patterns: never played late."""
    from bandstand.patterns.budget import QueryBudget, metered
    from bandstand.patterns.cycle_cap import CYCLE_BUDGET

    book = book or PatternBook()
    events: list[SoundEvent] = []
    capped: list[Capped] = []
    layers = composition.layers
    shared = QueryBudget(max_work=CYCLE_BUDGET.max_work * max(1, len(layers)), max_seconds=CYCLE_BUDGET.max_seconds)
    with metered(shared):
        for member, code in layers:
            try:
                played = book.cycle(code, cycle)
            except Exception:  # a pattern that validated but fails to query is skipped, not fatal
                continue
            if played.muted or played.thinned:
                capped.append(Capped(member, code, cycle, played.found, len(played.haps), played.muted))
            events.extend(sound_events(member, list(played.haps), cycle))
    events.sort(key=lambda e: e.begin)
    return events, capped


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
        self.told: set[tuple[str, str]] = set()  # (member, code) the band was told the cap thinned or muted

    def advance(
        self, at: float | None = None, queried: tuple[Composition, tuple[list[SoundEvent], list[Capped]]] | None = None
    ) -> list[SoundEvent]:
        """Play one cycle (beginning at wall-clock time `at`, when played in real time):
        swap at the boundary, query (unless `queried` brings the composition and what
        `query_cycle` found for this cycle), record, send; a layer the per-layer cap thinned or
        muted is named in the chat once per layer and pattern."""
        engine = self.engine
        composition, found = queried or (engine.composition, None)
        if composition != self.playing:
            self.playing = composition
            engine.emitter.emit(
                Execute(code=self.playing.code, layers=self.playing.layer_views(), from_cycle=self.cycle, round=engine.round)
            )
        events, capped = found if found is not None else query_cycle(self.playing, self.cycle, engine.patterns)
        for layer in capped:
            if (layer.member, layer.code) not in self.told:
                self.told.add((layer.member, layer.code))
                engine.tell_capped(layer.member, layer.cycle, layer.found, layer.kept, layer.muted)
        context = engine.context
        seconds = context.cycle_seconds
        muted = tuple(layer.member for layer in capped if layer.muted)
        self.played.append(PlayedCycle(self.cycle, engine.round, self.playing.layers, context.bpm, seconds,
                                       context.time_signature, context.key, muted))
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
            found = await asyncio.to_thread(query_cycle, composition, self.cycle, self.engine.patterns)
            if not self.engine.running:
                break
            self.advance(round(next_start + wall, 6), (composition, found))
            next_start += seconds
            await asyncio.sleep(max(0.0, next_start - loop.time() - self.lookahead))
