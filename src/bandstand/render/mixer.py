"""The mixer: each track's dry audio through its insert chain, fader and pan (with
their automation), summed into the mix and sent to the buses, whose returns
join the mix. Mute and solo decide which tracks are heard (`score.audible`).

Order on a track: inserts → volume → pan → (stem) → sends; sends are
post-fader. Automation of `volume` and `pan` replaces the static value from
the lane's first point on; an automated `<effect>.<parameter>` drives the first
insert of that type. Pan on a stereo part is a balance: centre leaves both
sides as they are, turning right fades the left side out (cos law) and the
other way round. A send to a bus the song does not have goes to a plain bus
of that name; a missing "Reverb" bus is the default room.

A `MixPlan` is made from the song before any audio exists. Its `finish` turns
one track's dry audio into its post-fader audio in place, over the stretch
where the track sounds (plus its chain's tail) — the synthesizers call it on
each track as soon as they have played it, in whichever process played it.
Its `mix` then sums the tracks (in song order, a chunk at a time, each track
only where it sounds) and the sends, and runs the buses.

A bus whose chain is one reverb (the "Reverb" bus every compose sends to)
hears its senders at the room's own rate: the reverb mixes its input down to
one channel at a quarter of the rate before anything else, so `finish` taps
each sending track's post-fader audio into such a downmix as it passes through
the chain's last stage (a chunk at a time, while it is in cache, on the
synthesis thread), and the bus sums those small signals, times each send's
level, instead of adding the full-rate tracks into a full-rate input and
mixing that down. The room hears the same sum in another order of additions:
the bus return moves by float32 rounding (about 1e-7 of its level), nothing
audible, and no full-rate pass over the senders is left after synthesis.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from bandstand.render.cancel import Check, never
from bandstand.render.chain import CHUNK, chain_tail, guard_stage, run_chain, stream, stretch
from bandstand.render.dsp import (
    BLOCK,
    Audio,
    Context,
    Floats,
    block_beats,
    block_ramp,
    lane_curve,
)
from bandstand.render.effects import Stage
from bandstand.render.iir import jit, kernel
from bandstand.render.reverb import DECIMATION, downmix, room
from bandstand.render.scratch import Ready, Scratch
from bandstand.score import Bus, Effect, Song, Track, audible

__all__ = ["DEFAULT_REVERB", "Mix", "MixPlan", "mix_song", "pan_gains", "sounding"]

DEFAULT_REVERB = Bus("Reverb", (Effect("reverb", {"room_size": 0.45, "damping": 0.5, "wet": 1.0}),))
RING_MARGIN_SECONDS = 0.05  # added to every chain's tail


@dataclass(slots=True)
class Mix:
    """The summed mix and what it was made of: each heard track after its fader (by track index)
    and each bus's return (by name), frames × channels (views of the channel-major buffers the
    mixer works in); with peaks asked for, the largest sample of each."""

    audio: Audio
    tracks: dict[int, Audio] = field(default_factory=dict)
    buses: dict[str, Audio] = field(default_factory=dict)
    peaks: dict[str, float] = field(default_factory=dict)  # "track:<index>" or "bus:<name>"


def pan_gains(pan: Floats | float) -> tuple[Floats, Floats]:
    """Left and right gain of the balance control at `pan` (0 left, 0.5 centre, 1 right)."""
    p = np.asarray(pan, dtype=np.float64)
    left = np.cos(np.clip(p - 0.5, 0.0, 0.5) * math.pi)
    right = np.cos(np.clip(0.5 - p, 0.0, 0.5) * math.pi)
    return left, right


def _lanes(track: Track, beats: Floats) -> dict[str, Floats]:
    defaults = {"volume": track.mix.volume, "pan": track.mix.pan}
    curves: dict[str, Floats] = {}
    for lane in track.mix.automation:
        if lane.points:
            etype, _, name = lane.parameter.partition(".")
            default = defaults.get(lane.parameter)
            if default is None:
                first = next((fx for fx in track.mix.inserts if fx.type == etype), None)
                if first is None:
                    continue
                default = first.num(name)
            curves[lane.parameter] = lane_curve(lane, beats, default)
    return curves


class _Fader:
    """Volume and pan (static, or their automation per block) as the last stage of a chain."""

    def __init__(self, track: Track, curves: dict[str, Floats]) -> None:
        volume, pan = curves.get("volume"), curves.get("pan")
        self.curves: tuple[Floats, Floats] | None = None
        if volume is None and pan is None:
            left, right = pan_gains(track.mix.pan)
            self.gains = (np.array([float(left), float(right)], dtype=np.float32)
                          * np.float32(track.mix.volume))[:, None]
        else:
            vol = volume if volume is not None else np.full(len(pan), track.mix.volume)  # type: ignore[arg-type]
            left, right = pan_gains(pan if pan is not None else track.mix.pan)
            self.curves = (vol * left, vol * right)

    @property
    def unity(self) -> bool:
        """Whether this fader leaves every sample as it is (level 1, pan centre, no automation):
        x × 1.0 is x exactly, so the pass over the track can be skipped."""
        return self.curves is None and bool((self.gains == 1.0).all())

    def __call__(self, chunk: Audio, first: int) -> Audio:
        if self.curves is None:
            chunk *= self.gains
        else:
            chunk[0] *= block_ramp(self.curves[0], first, chunk.shape[1])
            chunk[1] *= block_ramp(self.curves[1], first, chunk.shape[1])
        return chunk


def sounding(audio: Audio) -> tuple[int, int]:
    """The frames [first, end) between the first and the last block of `audio` (channels × frames)
    that is not silence (exact zeros); (0, 0) when all of it is."""
    frames = audio.shape[1]
    whole = frames - frames % BLOCK
    loud = (np.flatnonzero(np.abs(audio[:, :whole]).reshape(len(audio), -1, BLOCK).max(axis=(0, 2))) if whole
            else np.zeros(0, dtype=np.int64))
    first = int(loud[0]) * BLOCK if len(loud) else None
    end = (int(loud[-1]) + 1) * BLOCK if len(loud) else 0
    if whole < frames and np.any(audio[:, whole:]):
        first = whole if first is None else first
        end = frames
    return (0, 0) if first is None else (first, end)


def _preload(song: Song) -> None:
    """Load what the chains will need now, before the synthesis threads start (each finishes its
    tracks' chains as it plays them, and neither should stop mid-render to import): the filter
    kernels (scipy's, and numba's where it runs: `bandstand.render.jit`), numpy.fft for a reverb, scipy.signal for a phaser."""
    kernel()
    jit()
    kinds = {fx.type for t in song.tracks for fx in t.mix.inserts} | {fx.type for b in song.buses for fx in b.inserts}
    if "reverb" in kinds or any(s.level > 0 for t in song.tracks for s in t.mix.sends):
        import numpy.fft  # noqa: F401
    if "phaser" in kinds:
        import scipy.signal  # noqa: F401


class MixPlan:
    """The song's mix, ready to apply: per track its automation curves and how long its chain
    rings. `finish` runs a track's chain and fader over its dry audio in place; `mix` sums them."""

    def __init__(self, song: Song, sample_rate: int, frames: int, check: Check = never,
                 scratch: Scratch | None = None) -> None:
        _preload(song)
        self.song, self.sample_rate, self.frames, self.scratch = song, sample_rate, frames, scratch
        self.check, self.checked = check, _checked(check)
        self.heard = audible([t.mix for t in song.tracks])
        beats = (block_beats(song, -(-frames // BLOCK), sample_rate) if any(t.mix.automation for t in song.tracks)
                 else np.zeros(0))
        self.curves = [_lanes(t, beats) if t.mix.automation else {} for t in song.tracks]
        ctx = Context(sample_rate, song.tempo)
        self.tails = [round(sample_rate * (chain_tail(t.mix.inserts, ctx, c) + RING_MARGIN_SECONDS))
                      for t, c in zip(song.tracks, self.curves, strict=True)]
        # each heard track that sends to a one-reverb bus: its downmix at the room's rate, filled by `finish`
        self.lows: dict[int, npt.NDArray[np.float32]] = {
            i: self._low_zeros(frames // DECIMATION) for i, t in enumerate(song.tracks)
            if self.heard[i] and any(send.level > 0 and _one_reverb(self.bus(send.bus)) for send in t.mix.sends)}
        self.tapped: set[int] = set()  # the tracks whose downmix `finish` took
        self._ready = scratch.ready if scratch is not None else None

    def bus(self, name: str) -> Bus:
        """The bus a send to `name` reaches: the song's, else the default room for "Reverb", else a
        plain bus."""
        known = next((b for b in self.song.buses if b.name == name), None)
        return known or (DEFAULT_REVERB if name == DEFAULT_REVERB.name else Bus(name))

    def _low_zeros(self, runs: int) -> npt.NDArray[np.float32]:
        return self.scratch.zeros((runs,)) if self.scratch is not None else np.zeros(runs, dtype=np.float32)

    def _tap(self, index: int) -> Stage:
        """The stage that mixes track `index`'s chunks down into its room-rate signal (one of
        `lows`)."""
        low = self.lows[index]
        kernels = jit()
        k = DECIMATION

        def tap(chunk: Audio, first: int) -> Audio:
            r0, runs = first // k, chunk.shape[1] // k
            into = low[r0 : r0 + runs]
            if kernels is not None and chunk.strides[-1] == chunk.itemsize:
                kernels.downmix(chunk, k, into)
            else:
                downmix(chunk[:, : runs * k], k, into)
            return chunk

        self.tapped.add(index)
        return tap

    def finish(self, index: int, row: Audio, first: int, end: int) -> tuple[int, int]:
        """Track `index`'s dry audio (`row`, channels × frames, sounding in frames [first, end))
        through its inserts, fader and pan, in place; returns the frames [start, stop) it may now
        fill (silence elsewhere)."""
        if not self.heard[index]:
            row[...] = 0.0
            return 0, 0
        start, stop = stretch(first, end, self.tails[index], row.shape[1])
        if start == stop:
            return 0, 0
        track = self.song.tracks[index]
        span, fader = row[:, start:stop], _Fader(track, self.curves[index])
        taps = [self._tap(index)] if index in self.lows else []
        if any(not fx.bypass for fx in track.mix.inserts):
            ctx = Context(self.sample_rate, self.song.tempo, {}, False, start, self.scratch)
            run_chain(span, track.mix.inserts, ctx, self.curves[index], before=[guard_stage, self.checked],
                      final=[self.checked, fader, *taps])
        elif not fader.unity or taps:  # a MIDI file's tracks, and any at unity and centre, need no pass
            stream(span, [self.checked, *([] if fader.unity else [fader]), *taps], start)
        return start, stop

    def mix(self, tracks: Audio, spans: list[tuple[int, int]], *, peaks: bool = False) -> Mix:
        """Sum the finished tracks (tracks × channels × frames, post-fader, each silent outside its
        span) and their sends, and run the buses: the buses on a second thread while this one sums
        the tracks (each writes only its own buffers; the bus returns join the mix in order
        afterwards). With `peaks`, measure each track's and bus's largest sample."""
        song, frames = self.song, tracks.shape[2] if tracks.ndim == 3 else 0
        mixed = self._zeros(frames)
        result = Mix(mixed.T)
        sends: dict[str, list[tuple[int, np.float32]]] = {}
        plays: list[int] = []
        for index, track in enumerate(song.tracks):
            if not self.heard[index]:
                continue
            result.tracks[index] = tracks[index].T
            if spans[index][0] < spans[index][1]:
                plays.append(index)
                for send in track.mix.sends:
                    if send.level > 0:
                        sends.setdefault(send.bus, []).append((index, np.float32(send.level)))
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="bandstand-buses") as pool:
            buses = pool.submit(self._buses, tracks, spans, sends, frames, peaks)
            loudest = _add(mixed, [(tracks[i], *spans[i], np.float32(1.0)) for i in plays], peaks, self.check,
                           self._ready)
            returns = buses.result()
        result.peaks = {f"track:{i}": loudest[n] for n, i in enumerate(plays)} if peaks else {}
        for name, (bus_in, start, stop, peak) in returns.items():
            for c0 in range(start, stop, CHUNK):  # a chunk at a time: the scratch lets go as it goes
                self.check()
                mixed[:, c0 : min(stop, c0 + CHUNK)] += bus_in[:, c0 : min(stop, c0 + CHUNK)]
            result.buses[name] = bus_in.T
            if peaks:
                result.peaks[f"bus:{name}"] = peak
        return result

    def _peak(self, audio: Audio) -> float:
        """The largest sample of `audio` (channels × frames), a chunk at a time."""
        loudest = 0.0
        for c0 in range(0, audio.shape[1], CHUNK):
            self.check()
            part = audio[:, c0 : c0 + CHUNK]
            loudest = max(loudest, float(part.max()), -float(part.min()))
        return loudest

    def _zeros(self, frames: int) -> Audio:
        """A full-length stereo buffer, in the scratch (anonymous memory or its file) when there is one."""
        if self.scratch is not None:
            return self.scratch.zeros((2, frames))
        return np.zeros((2, frames), dtype=np.float32)

    def _buses(self, tracks: Audio, spans: list[tuple[int, int]], sends: dict[str, list[tuple[int, np.float32]]],
               frames: int, peaks: bool) -> dict[str, tuple[Audio, int, int, float]]:
        """Each bus's return: what the tracks send it, through its inserts and volume, over the
        stretch its senders sound in plus its chain's tail."""
        out: dict[str, tuple[Audio, int, int, float]] = {}
        for name, senders in sends.items():
            bus = self.bus(name)
            bus_in = self._zeros(frames)
            ctx = Context(self.sample_rate, self.song.tempo, {}, True)
            tail = round(self.sample_rate * (chain_tail(bus.inserts, ctx) + RING_MARGIN_SECONDS))
            start, stop = stretch(min(spans[i][0] for i, _ in senders), max(spans[i][1] for i, _ in senders),
                                  tail, frames)
            span = bus_in[:, start:stop]
            fx = _one_reverb(bus)
            if fx is not None and all(i in self.lows for i, _ in senders):
                self._room(fx, bus, span, start, [(i, tracks[i], spans[i], level) for i, level in senders])
            else:
                _add(bus_in, [(tracks[i], *spans[i], level) for i, level in senders], False, self.check, self._ready)
                run_chain(span, bus.inserts, Context(self.sample_rate, self.song.tempo, {}, True, start, self.scratch),
                          before=[guard_stage, self.checked], final=[self.checked, _scale(np.float32(bus.volume))])
            out[name] = (bus_in, start, stop, self._peak(span) if peaks else 0.0)
        return out

    def _room(self, fx: Effect, bus: Bus, span: Audio, start: int,
              senders: list[tuple[int, Audio, tuple[int, int], np.float32]]) -> None:
        """A one-reverb bus's return over `span` (from song frame `start`, a multiple of
        `DECIMATION`): the senders' room-rate downmixes (tapped by `finish`; taken here from a track
        it did not finish, one a cache gave) times their levels, summed in song order, through the
        room, times the bus's volume."""
        k = DECIMATION
        for index, row, (first, end), _ in senders:
            if index not in self.tapped and first < end:  # not finished here: its downmix taken now
                stream(row[:, first:end], [self.checked, self._tap(index)], first)
        r0, runs = start // k, span.shape[1] // k
        mono = self._low_zeros(runs)
        for c0 in range(0, runs, CHUNK):
            self.check()
            c1 = min(runs, c0 + CHUNK)
            part = mono[c0:c1]
            for n, (index, _, _, level) in enumerate(senders):
                low = self.lows[index][r0 + c0 : r0 + c1]
                if n == 0:
                    np.multiply(low, level, out=part)
                else:
                    part += low * level
        volume = np.float32(bus.volume)
        room(mono, self.sample_rate, fx.num("room_size"), fx.num("damping"), fx.num("pre_delay_ms"), span,
             level=fx.num("wet"), scratch=self.scratch)
        if volume != 1.0:
            stream(span, [self.checked, _scale(volume)], start)


def _one_reverb(bus: Bus) -> Effect | None:
    """The bus's reverb when its chain is that reverb alone (and nothing of it automated: a bus has
    no automation), else None."""
    live = [fx for fx in bus.inserts if not fx.bypass]
    return live[0] if len(live) == 1 and live[0].type == "reverb" else None


def _add(into: Audio, parts: list[tuple[Audio, int, int, np.float32]], peaks: bool, check: Check = never,
         ready: Ready | None = None) -> list[float]:
    """Add each part (channels × frames, sounding in [start, stop), times its level) into `into`, in
    the order given, a chunk at a time (asking `check` before each, and handing `ready` the chunk of
    `into` it is about to write); with `peaks`, each part's largest sample."""
    loudest = [0.0] * len(parts)
    for c0 in range(0, into.shape[1], CHUNK):
        check()
        c1 = min(into.shape[1], c0 + CHUNK)
        if ready is not None and any(start < c1 and c0 < stop for _, start, stop, _ in parts):
            ready(into[:, c0:c1])
        for n, (audio, start, stop, level) in enumerate(parts):
            lo, hi = max(start, c0), min(stop, c1)
            if lo < hi:
                part = audio[:, lo:hi]
                if level == 1.0:
                    into[:, lo:hi] += part
                else:
                    into[:, lo:hi] += part * level
                if peaks:
                    loudest[n] = max(loudest[n], float(part.max()), -float(part.min()))
    return loudest


def _checked(check: Check) -> Stage:
    """A stage that changes nothing and asks `check` (which raises to cancel the render)."""
    def run(chunk: Audio, first: int) -> Audio:
        check()
        return chunk

    return run


def _scale(gain: np.float32) -> Stage:
    def run(chunk: Audio, first: int) -> Audio:
        chunk *= gain
        return chunk

    return run


def mix_song(song: Song, tracks: Audio, sample_rate: int = 44100) -> Mix:
    """Mix the dry per-track audio (tracks × frames × 2, in song track order, e.g. from
    `synthesize_tracks`) as the song's mix says. Their buffers are used up: each becomes its
    track's post-fader audio."""
    frames = tracks.shape[1] if tracks.ndim == 3 else 0
    rows = tracks.transpose(0, 2, 1)  # channel-major: no copy when `tracks` is a view of such rows
    if not (rows.ndim == 3 and rows.strides[2] == rows.itemsize):
        rows = np.ascontiguousarray(rows)
    plan = MixPlan(song, sample_rate, frames)
    spans = [plan.finish(i, rows[i], *sounding(rows[i])) for i in range(len(song.tracks))]
    return plan.mix(rows, spans)
