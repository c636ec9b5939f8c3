"""One track played by the compiled engine (`engine.py`): its events in, its stereo row out.

A `TrackPlayer` owns the engine's state arrays (256 voices, 16 channels) and the font's
table; `play` starts from the power-on state (as a synthesizer reset before each part is),
feeds the events, and calls the engine a slice at a time, asking `check` before each (a
cancel raises there). The engine holds no interpreter lock while it plays, so two players on
two threads play two tracks at once."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from bandstand.errors import RenderError
from bandstand.render.cancel import Check, never
from bandstand.render.scratch import Ready
from bandstand.render.sf2 import engine
from bandstand.render.sf2 import layout as L
from bandstand.render.sf2.table import FontTable

__all__ = ["TrackPlayer"]

Event = tuple[float, int, int, int, int]  # seconds, kind, channel, a, b (bandstand.render.synth)
_AHEAD = 4 * engine.SLICE  # frames of a row handed to `ready` at once


class TrackPlayer:
    """Plays tracks' events into rows through the compiled engine (`engine.load()` first)."""

    def __init__(self, table: FontTable, sample_rate: int = 44100, *, pedal: bool = True) -> None:
        """`pedal`: honour the sustain pedal (CC64); without it the sound is TinySoundFont's."""
        self.table = table
        self.sample_rate = sample_rate
        self.rate = float(np.float32(sample_rate if sample_rate >= 1 else 44100))
        self.pedal = pedal
        self.step = engine.load()
        self.vf = np.zeros((engine.MAX_VOICES, L.VOICE_FLOATS), dtype=np.float64)
        self.vi = np.zeros((engine.MAX_VOICES, L.VOICE_INTS), dtype=np.int64)
        self.cf = np.zeros((engine.CHANNELS, L.CHANNEL_FLOATS), dtype=np.float64)
        self.ci = np.zeros((engine.CHANNELS, L.CHANNEL_INTS), dtype=np.int64)
        self.g = np.zeros(L.RUN_INTS, dtype=np.int64)

    def _reset(self, frames: int) -> None:
        """Every voice off, every channel at its power-on state (reset-all-controllers)."""
        self.vi[:] = 0
        self.vf[:] = 0.0
        self.cf[:] = 0.0
        self.cf[:, L.C_BEND_RANGE] = 2.0
        self.ci[:] = 0
        self.ci[:, L.C_WHEEL] = 8192
        self.ci[:, L.C_MIDI_PAN] = 8192
        self.ci[:, L.C_MIDI_VOLUME] = 16383
        self.ci[:, L.C_MIDI_EXPRESSION] = 16383
        self.ci[:, L.C_RPN] = 0xFFFF
        self.g[:] = 0
        self.g[L.G_FIRST] = frames
        self.g[L.G_PEDAL] = 1 if self.pedal else 0

    def events(self, events: Sequence[Event], frames: int) -> npt.NDArray[np.int64]:
        """The engine's event rows: each event's frame (its time × the rate, truncated, at most
        `frames`), kind, channel and values."""
        rows = np.zeros((len(events), L.EVENT_INTS), dtype=np.int64)
        if events:
            times = np.fromiter((e[0] for e in events), dtype=np.float64, count=len(events))
            rows[:, L.E_FRAME] = np.minimum((times * self.sample_rate).astype(np.int64), frames)
            rows[:, 1:] = np.array([e[1:] for e in events], dtype=np.int64)
        return rows

    def play(self, events: Sequence[Event], out: npt.NDArray[np.float32], check: Check = never,
             ready: Ready | None = None) -> tuple[int, int]:
        """Play `events` (sorted) into `out` (2 × frames, zeros, C-contiguous); return the frames
        [first, end) of the slices that are not silence ((0, 0) when all are). `ready`, when given,
        is handed each stretch of `out` a little before the engine writes it (a scratch file's
        pages mapped in at once: `bandstand.render.scratch.Scratch.ready`)."""
        return self.play_rows(self.events(events, out.shape[1]), out, check, ready)

    def play_rows(self, rows: npt.NDArray[np.int64], out: npt.NDArray[np.float32],
                  check: Check = never, ready: Ready | None = None) -> tuple[int, int]:
        """`play` with the events already as the engine's rows (frames, kind, channel, a, b)."""
        frames = out.shape[1]
        self._reset(frames)
        t = self.table
        args = (rows, out, frames, t.regions, t.first, t.banks, t.numbers, t.samples, self.vf, self.vi, self.cf,
                self.ci, self.g, self.rate)
        bind = getattr(self.step, "bind", None)  # kept machine code: the arrays taken apart once
        step = bind(*args) if bind is not None else functools.partial(self.step, *args)
        readied = 0
        while True:
            check()
            if ready is not None and self.g[L.G_POSITION] >= readied < frames:
                readied = int(self.g[L.G_POSITION]) + _AHEAD
                ready(out[:, readied - _AHEAD : readied])
            state = step()
            if state == 1:
                break
            if state < 0:
                raise RenderError(f"the SoundFont has no preset for program {int(self.g[L.G_ERROR]) - 1} "
                                  f"(nor a bank 0 fallback)")
        first, end = int(self.g[L.G_FIRST]), int(self.g[L.G_END])
        return (first, end) if first < end else (0, 0)
