"""The jam to live out: an emitter subscriber that turns each cycle the transport sends
(`events`, stamped with when it begins) into cues for the scheduler — the notes, the cycle's
MIDI clock at the jam's tempo, a start before the first cycle and a stop when the jam stops.

It is called on the jam's event loop, so it only converts and queues; the scheduler's thread
sends. The cycle's clock ticks are spread evenly over it, so the clock stays in phase with
the bars when the tempo or the metre changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

from bandstand.jam.liveout.cues import Channels, Cue, clock_cues, events_cues
from bandstand.jam.liveout.scheduler import Output, Scheduler
from bandstand.protocol import Emitter

__all__ = ["LiveFeed", "feeding"]


class LiveFeed:
    """Feeds a jam's emitter messages to `scheduler` (subscribe `feed` to the emitter)."""

    def __init__(self, scheduler: Scheduler, *, clock: Callable[[], float] = time.time) -> None:
        self.scheduler = scheduler
        self.clock = clock
        self.channels = Channels()
        self.bpm = 120.0
        self.playing = False
        self.cycles = 0

    def feed(self, message: Mapping[str, Any]) -> None:
        kind = message.get("type")
        context = message.get("context")
        if isinstance(context, Mapping) and "bpm" in context:
            self.bpm = float(context["bpm"])
        if kind == "events" and message.get("at") is not None:
            self._cycle(message)
        elif kind == "jam_state_update" and not message.get("running") and self.playing:
            self.stop()

    def _cycle(self, message: Mapping[str, Any]) -> None:
        at, seconds = float(message["at"]), float(message["cycle_seconds"])
        cues: list[Cue] = []
        if not self.playing:
            self.playing = True
            cues.append(Cue(at=at, kind="start"))
        cues += clock_cues(at, seconds, seconds * self.bpm / 60.0)
        cues += events_cues(message, self.channels)
        self.cycles += 1
        self.scheduler.push(cues)

    def stop(self) -> None:
        """Nothing more sounds: what is queued is dropped and a stop goes out now."""
        self.playing = False
        self.scheduler.clear()
        self.scheduler.push([Cue(at=self.clock(), kind="stop")])


@contextlib.asynccontextmanager
async def feeding(emitter: Emitter, outputs: Sequence[Output]) -> AsyncIterator[LiveFeed]:
    """While inside: every jam on `emitter` plays into `outputs` (closed on the way out, after a
    stop has gone to them)."""
    scheduler = Scheduler(outputs)
    feed = LiveFeed(scheduler)
    unsubscribe = emitter.subscribe(feed.feed)
    try:
        yield feed
    finally:
        unsubscribe()
        if feed.playing:
            feed.stop()
        await asyncio.to_thread(scheduler.drain, 1.0)
        scheduler.close()
