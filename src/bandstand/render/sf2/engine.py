"""The compiled SoundFont engine: one track's events played through TinySoundFont's algorithm,
all of it in numba — events, voices, envelopes, LFOs, the lowpass and the samples.

`step` plays a track's events (`layout.E_*` rows, sorted, in frames) into its stereo row
(2 × frames, channel-major) from where the last call stopped, until a slice of
`SLICE` frames is finished (then returns 0, so the caller can look for a cancel) or the track
is done (1: every event applied and a whole slice after the last one was silence, or the row
is full). It renders exactly the requests the per-event loop of `bandstand.render.synth` asks
a `tinysoundfont.Synth` for — up to each event, and at every slice boundary — cut into blocks
of 64 frames from each request's start, the voices in slot order, so the sound is
TinySoundFont's within float rounding, the same as `voice.py`'s: the control values change
once per block and step in float32 as TinySoundFont's do. Every value lives in the arrays of
`layout.py`, so a call holds no Python objects and runs without the interpreter lock (two
tracks play on two threads at once).

One addition to TinySoundFont (`G_PEDAL`): the sustain pedal (CC64 ≥ 64) holds the voices
whose keys are let go until it comes up; a key struck again meanwhile first releases its held
voice. With the pedal not honoured the sound is TinySoundFont's.

Compiled on first use and kept in numba's cache (`load`)."""

from __future__ import annotations

import contextlib
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from bandstand.render.sf2 import layout as L
from bandstand.render.sf2 import voices as V

__all__ = ["CHANNELS", "MAX_VOICES", "SLICE", "available", "load", "step", "without_blas"]

SLICE = 1 << 14
MAX_VOICES = 256
CHANNELS = 16
DRUM_CHANNEL = 9
PROGRAM, CONTROL, BEND, OFF, ON = range(5)  # event kinds (bandstand.render.synth)
RELEASE = V.RELEASE

_SIGNATURE = ("int64(int64[:, ::1], float32[:, ::1], int64, float64[:, ::1], int64[::1], int64[::1], int64[::1], "
              "float32[::1], float64[:, ::1], int64[:, ::1], float64[:, ::1], int64[:, ::1], int64[::1], float64)")


# -- channels and events -----------------------------------------------------------------------

def _shift(cf: Any, ci: Any, ch: int) -> float:
    """The channel's pitch shift in semitones (bend and tuning)."""
    if ci[ch, L.C_WHEEL] == 8192:
        return float(cf[ch, L.C_TUNING])
    bend = np.float32(cf[ch, L.C_BEND_RANGE])
    w = np.float32(ci[ch, L.C_WHEEL]) / np.float32(16383.0) * bend * np.float32(2.0)
    return np.float64(w - bend + np.float32(cf[ch, L.C_TUNING]))


def _apply_pitch(vf: Any, vi: Any, rf: Any, cf: Any, ci: Any, ch: int, rate: float) -> None:
    shift = _shift(cf, ci, ch)
    for v in range(vi.shape[0]):
        if vi[v, L.I_ACTIVE] and vi[v, L.I_CHANNEL] == ch:
            V.set_pitch(vf, vi, rf, v, shift, rate)


def _set_volume(vf: Any, vi: Any, cf: Any, ch: int, volume: float) -> None:
    db = V.gain_to_db(volume)
    if db == cf[ch, L.C_GAIN_DB]:
        return
    change = np.float32(db) - np.float32(cf[ch, L.C_GAIN_DB])
    for v in range(vi.shape[0]):
        if vi[v, L.I_ACTIVE] and vi[v, L.I_CHANNEL] == ch:
            vf[v, L.V_GAIN_DB] = np.float32(vf[v, L.V_GAIN_DB]) + change
    cf[ch, L.C_GAIN_DB] = db


def _set_channel_pan(vf: Any, vi: Any, rf: Any, cf: Any, ch: int, pan: float) -> None:
    offset = np.float64(np.float32(pan) - np.float32(0.5))
    for v in range(vi.shape[0]):
        if vi[v, L.I_ACTIVE] and vi[v, L.I_CHANNEL] == ch:
            V.set_pan(vf, rf, v, vi[v, L.I_REGION], offset)
    cf[ch, L.C_PAN_OFFSET] = offset


def _set_bend_range(vf: Any, vi: Any, rf: Any, cf: Any, ci: Any, ch: int, semitones: float, rate: float) -> None:
    if cf[ch, L.C_BEND_RANGE] != semitones:
        cf[ch, L.C_BEND_RANGE] = semitones
        if ci[ch, L.C_WHEEL] != 8192:
            _apply_pitch(vf, vi, rf, cf, ci, ch, rate)


def _set_tuning(vf: Any, vi: Any, rf: Any, cf: Any, ci: Any, ch: int, tuning: float, rate: float) -> None:
    if cf[ch, L.C_TUNING] != tuning:
        cf[ch, L.C_TUNING] = tuning
        _apply_pitch(vf, vi, rf, cf, ci, ch, rate)


def _pedal_up(vf: Any, vi: Any, rf: Any, ch: int, rate: float) -> None:
    for v in range(vi.shape[0]):
        if vi[v, L.I_ACTIVE] and vi[v, L.I_CHANNEL] == ch and vi[v, L.I_SUSTAINED]:
            if vi[v, L.I_AMPENV + L.ENV_SEGMENT] < RELEASE:
                V.release(vf, vi, rf, v, rate)
            vi[v, L.I_SUSTAINED] = 0


def _control(vf: Any, vi: Any, rf: Any, cf: Any, ci: Any, g: Any, ch: int, controller: int, value: int,
             rate: float) -> None:
    field = -1
    if controller == 7 or controller == 39:
        field = L.C_MIDI_VOLUME
    elif controller == 11 or controller == 43:
        field = L.C_MIDI_EXPRESSION
    elif controller == 10 or controller == 42:
        field = L.C_MIDI_PAN
    elif controller == 6 or controller == 38:
        field = L.C_DATA
    if field >= 0:
        old = ci[ch, field]
        ci[ch, field] = ((old & 0x7F) | (value << 7)) if controller < 32 else ((old & 0x3F80) | value)
        if field in (L.C_MIDI_VOLUME, L.C_MIDI_EXPRESSION):
            level = (np.float32(ci[ch, L.C_MIDI_VOLUME]) / np.float32(16383.0)) \
                * (np.float32(ci[ch, L.C_MIDI_EXPRESSION]) / np.float32(16383.0))
            _set_volume(vf, vi, cf, ch, np.float64(level ** np.float32(3.0)))
        elif field == L.C_MIDI_PAN:
            _set_channel_pan(vf, vi, rf, cf, ch, np.float64(np.float32(ci[ch, L.C_MIDI_PAN]) / np.float32(16383.0)))
        elif ci[ch, L.C_RPN] == 0:
            data = ci[ch, L.C_DATA]
            _set_bend_range(vf, vi, rf, cf, ci, ch, np.float64(np.float32((data >> 7) + 0.01 * (data & 0x7F))), rate)
        elif ci[ch, L.C_RPN] == 1:
            tuning = cf[ch, L.C_TUNING]
            _set_tuning(vf, vi, rf, cf, ci, ch,
                        np.float64(np.float32(int(tuning) + (np.float64(ci[ch, L.C_DATA]) - 8192.0) / 8192.0)), rate)
        elif ci[ch, L.C_RPN] == 2 and controller == 6:
            tuning = cf[ch, L.C_TUNING]
            _set_tuning(vf, vi, rf, cf, ci, ch, np.float64(np.float32((value - 64.0) + (tuning - int(tuning)))),
                        rate)
    elif controller == 0:
        ci[ch, L.C_BANK] = 0x8000 | value
    elif controller == 32:
        bank = ci[ch, L.C_BANK]
        ci[ch, L.C_BANK] = (((bank & 0x7F) << 7) if bank & 0x8000 else 0) | value
    elif controller == 101 or controller == 100:
        base = 0 if ci[ch, L.C_RPN] == 0xFFFF else ci[ch, L.C_RPN]
        ci[ch, L.C_RPN] = ((base & 0x7F) | (value << 7)) if controller == 101 else ((base & 0x3F80) | value)
    elif controller == 98 or controller == 99:
        ci[ch, L.C_RPN] = 0xFFFF
    elif controller == 64:
        if g[L.G_PEDAL]:
            down = 1 if value >= 64 else 0
            if not down and ci[ch, L.C_PEDAL]:
                _pedal_up(vf, vi, rf, ch, rate)
            ci[ch, L.C_PEDAL] = down
    elif controller == 120:
        for v in range(vi.shape[0]):
            if vi[v, L.I_ACTIVE] and vi[v, L.I_CHANNEL] == ch and (
                    vi[v, L.I_AMPENV + L.ENV_SEGMENT] < RELEASE or vf[v, L.V_AMPENV + L.ENV_STAGES + 5] != 0.0):
                V.stop_quickly(vf, vi, v, rate)
    elif controller == 123:
        for v in range(vi.shape[0]):
            if vi[v, L.I_ACTIVE] and vi[v, L.I_CHANNEL] == ch and vi[v, L.I_AMPENV + L.ENV_SEGMENT] < RELEASE:
                V.release(vf, vi, rf, v, rate)
    elif controller == 121:
        ci[ch, L.C_MIDI_VOLUME] = 16383
        ci[ch, L.C_MIDI_EXPRESSION] = 16383
        ci[ch, L.C_MIDI_PAN] = 8192
        ci[ch, L.C_BANK] = 0
        ci[ch, L.C_RPN] = 0xFFFF
        ci[ch, L.C_DATA] = 0
        _set_volume(vf, vi, cf, ch, 1.0)
        _set_channel_pan(vf, vi, rf, cf, ch, 0.5)
        _set_bend_range(vf, vi, rf, cf, ci, ch, 2.0, rate)
        _set_tuning(vf, vi, rf, cf, ci, ch, 0.0, rate)
        if ci[ch, L.C_PEDAL]:
            _pedal_up(vf, vi, rf, ch, rate)
            ci[ch, L.C_PEDAL] = 0


def _preset_index(banks: Any, numbers: Any, bank: int, number: int) -> int:
    for i in range(banks.shape[0]):
        if numbers[i] == number and banks[i] == bank:
            return i
    return -1


def _program(ci: Any, banks: Any, numbers: Any, g: Any, ch: int, program: int) -> None:
    bank = ci[ch, L.C_BANK] & 0x7FFF
    found = -1
    if ch == DRUM_CHANNEL:
        found = _preset_index(banks, numbers, 128 | bank, program)
        if found < 0:
            found = _preset_index(banks, numbers, 128, program)
        if found < 0:
            found = _preset_index(banks, numbers, 128, 0)
    if found < 0:
        found = _preset_index(banks, numbers, bank, program)
    if found < 0:
        found = _preset_index(banks, numbers, 0, program)
    if found < 0:
        g[L.G_ERROR] = program + 1
        return
    ci[ch, L.C_PRESET] = found


def _free_slot(vf: Any, vi: Any, rf: Any, preset: int, group: float, rate: float) -> int:
    slot = -1
    voices = vi.shape[0]
    if group != 0.0:
        for i in range(voices):
            if not vi[i, L.I_ACTIVE]:
                if slot < 0:
                    slot = i
            elif vi[i, L.I_PRESET] == preset and rf[vi[i, L.I_REGION], L.R_GROUP] == group:
                V.stop_quickly(vf, vi, i, rate)
    else:
        for i in range(voices):
            if not vi[i, L.I_ACTIVE]:
                slot = i
                break
    if slot >= 0:
        return slot
    best = -1
    furthest = -999999999
    for i in range(voices):  # take the voice furthest into its release
        if vi[i, L.I_ACTIVE] and vi[i, L.I_AMPENV + L.ENV_SEGMENT] == RELEASE:
            done = V.release_samples(vf, i, L.V_AMPENV, rate) - vi[i, L.I_AMPENV + L.ENV_UNTIL]
            if done > furthest:
                best = i
                furthest = done
    return best


def _note_off(vf: Any, vi: Any, rf: Any, ci: Any, ch: int, key: int, rate: float) -> None:
    if key < 0 or key > 127:
        return
    first = -1
    for v in range(vi.shape[0]):
        if (vi[v, L.I_ACTIVE] and vi[v, L.I_CHANNEL] == ch and vi[v, L.I_KEY] == key and not vi[v, L.I_SUSTAINED]
                and vi[v, L.I_AMPENV + L.ENV_SEGMENT] < RELEASE and (first < 0 or vi[v, L.I_PLAY_INDEX] < first)):
            first = vi[v, L.I_PLAY_INDEX]
    if first < 0:
        return
    for v in range(vi.shape[0]):
        if (vi[v, L.I_ACTIVE] and vi[v, L.I_CHANNEL] == ch and vi[v, L.I_KEY] == key and not vi[v, L.I_SUSTAINED]
                and vi[v, L.I_AMPENV + L.ENV_SEGMENT] < RELEASE and vi[v, L.I_PLAY_INDEX] == first):
            if ci[ch, L.C_PEDAL]:
                vi[v, L.I_SUSTAINED] = 1
            else:
                V.release(vf, vi, rf, v, rate)


def _note_on(vf: Any, vi: Any, rf: Any, first: Any, cf: Any, ci: Any, g: Any, ch: int, key: int, velocity: int,
             rate: float) -> None:
    if key < 0 or key > 127 or velocity < 0 or velocity > 127:
        return
    vel = np.float64(np.float32(velocity / 127.0))
    if vel <= 0.0:
        _note_off(vf, vi, rf, ci, ch, key, rate)
        return
    preset = ci[ch, L.C_PRESET]
    if preset < 0 or preset >= first.shape[0] - 1:
        return
    if ci[ch, L.C_PEDAL]:  # a key struck again under the pedal: its held voice lets go first
        for v in range(vi.shape[0]):
            if vi[v, L.I_ACTIVE] and vi[v, L.I_CHANNEL] == ch and vi[v, L.I_KEY] == key and vi[v, L.I_SUSTAINED]:
                if vi[v, L.I_AMPENV + L.ENV_SEGMENT] < RELEASE:
                    V.release(vf, vi, rf, v, rate)
                vi[v, L.I_SUSTAINED] = 0
    midi_velocity = int(np.float32(vel) * np.float32(127))
    index = g[L.G_PLAY_INDEX]
    g[L.G_PLAY_INDEX] = index + 1
    shift = _shift(cf, ci, ch)
    for region in range(first[preset], first[preset + 1]):
        if (key < rf[region, L.R_LOKEY] or key > rf[region, L.R_HIKEY]
                or midi_velocity < rf[region, L.R_LOVEL] or midi_velocity > rf[region, L.R_HIVEL]):
            continue
        slot = _free_slot(vf, vi, rf, preset, rf[region, L.R_GROUP], rate)
        if slot < 0:
            continue
        V.voice_start(vf, vi, rf, slot, region, preset, key, vel, ch, index, 0.0 + cf[ch, L.C_GAIN_DB], rate, shift,
                     cf[ch, L.C_PAN_OFFSET])


def _apply(ev: Any, e: int, vf: Any, vi: Any, rf: Any, first: Any, banks: Any, numbers: Any, cf: Any, ci: Any,
           g: Any, rate: float) -> None:
    kind = ev[e, L.E_KIND]
    ch = ev[e, L.E_CHANNEL]
    a = ev[e, L.E_A]
    b = ev[e, L.E_B]
    if ch < 0 or ch >= CHANNELS:
        return
    if kind == PROGRAM:
        _program(ci, banks, numbers, g, ch, a)
    elif kind == CONTROL:
        _control(vf, vi, rf, cf, ci, g, ch, a, b, rate)
    elif kind == BEND:
        if ci[ch, L.C_WHEEL] != a:
            ci[ch, L.C_WHEEL] = a
            _apply_pitch(vf, vi, rf, cf, ci, ch, rate)
    elif kind == OFF:
        _note_off(vf, vi, rf, ci, ch, a, rate)
    elif kind == ON:
        _note_on(vf, vi, rf, first, cf, ci, g, ch, a, b, rate)


def _finish_slice(out: Any, g: Any) -> None:
    start = g[L.G_SLICE]
    pos = g[L.G_POSITION]
    silent = True
    for c in range(2):
        row = out[c]
        for i in range(start, pos):
            if row[i] != 0.0:
                silent = False
                break
        if not silent:
            break
    g[L.G_SILENT] = 1 if silent else 0
    if not silent:
        if start < g[L.G_FIRST]:
            g[L.G_FIRST] = start
        g[L.G_END] = pos
    g[L.G_SLICE] = pos


def step(ev: Any, out: Any, frames: int, rf: Any, first: Any, banks: Any, numbers: Any, samples: Any, vf: Any,
         vi: Any, cf: Any, ci: Any, g: Any, rate: float) -> int:
    """Play on until a slice is finished (0), the track is done (1), or a program change found
    no preset (-1: `G_ERROR` holds the program + 1)."""
    events = ev.shape[0]
    while True:
        pos = g[L.G_POSITION]
        slice_end = g[L.G_SLICE] + SLICE
        if g[L.G_PHASE] == 0:
            e = g[L.G_EVENT]
            if e >= events:
                g[L.G_PHASE] = 1
                continue
            at = ev[e, L.E_FRAME]
            if at > pos:
                upto = min(at, slice_end)
                g[L.G_VOICE_FRAMES] += V.render(vf, vi, rf, samples, out, pos, upto - pos, rate)
                g[L.G_POSITION] = upto
                if upto in (slice_end, frames):
                    _finish_slice(out, g)
                    return 0
                continue
            _apply(ev, e, vf, vi, rf, first, banks, numbers, cf, ci, g, rate)
            g[L.G_EVENT] = e + 1
            if g[L.G_ERROR]:
                return -1
        else:
            if pos >= frames:
                return 1
            upto = min(frames, slice_end)
            g[L.G_VOICE_FRAMES] += V.render(vf, vi, rf, samples, out, pos, upto - pos, rate)
            g[L.G_POSITION] = upto
            _finish_slice(out, g)
            return 1 if g[L.G_SILENT] else 0


_HELPERS = ("_shift", "_apply_pitch", "_set_volume", "_set_channel_pan", "_set_bend_range", "_set_tuning",
            "_pedal_up", "_control", "_preset_index", "_program", "_free_slot", "_note_off", "_note_on", "_apply",
            "_finish_slice")

_LOADED: list[Callable[..., int]] = []
NATIVE = "engine.step"  # the name `step` is kept under as machine code


def available() -> bool:
    """Whether the compiled engine can play here: kept as machine code by an earlier process
    (`bandstand.render.native`), or numba imports; and `NUMBA_DISABLE_JIT` is not set (which
    would leave it plain Python, far too slow to play a song)."""
    from bandstand.render import native

    if native.disabled():
        return False
    if native.kernel(NATIVE) is not None:
        return True
    try:
        import numba
    except ImportError:
        return False
    return not getattr(numba.config, "DISABLE_JIT", False)


def load() -> Callable[..., int]:
    """`step`, compiled: the machine code an earlier process kept (`bandstand.render.native`:
    no numba loaded), else numba's — from its cache when it holds it, else compiled now (a few
    seconds, once) and cached where numba can write (beside this file, or the user's cache
    folder), and then kept as machine code for the next process; without a place to cache,
    compiled in memory for this process. Raises ImportError without numba (and nothing kept)."""
    if _LOADED:
        return _LOADED[0]
    from bandstand.render import native

    kept = None if native.disabled() else native.kernel(NATIVE)
    if kept is not None:
        _LOADED.append(kept)
        return kept
    import numba

    if getattr(numba.config, "DISABLE_JIT", False):
        raise ImportError("numba does not compile here (NUMBA_DISABLE_JIT is set)")
    namespace = globals()
    with warnings.catch_warnings(), without_blas(numba):
        warnings.simplefilter("ignore")  # numba's notes about caching are not the caller's concern
        try:
            compiled = _compile(numba, namespace, cache=True)
        except (RuntimeError, OSError):  # nowhere to cache (a read-only install, no home): in memory
            compiled = _compile(numba, namespace, cache=False)
        native.build(NATIVE, compiled, _SIGNATURE)
    _LOADED.append(compiled)
    return compiled


@contextlib.contextmanager
def without_blas(numba: Any) -> Iterator[None]:
    """While numba sets up its CPU target for the first time, its check for a BLAS (for `np.dot`,
    which the engine does not use) answers "none" at once instead of importing scipy.linalg:
    about 0.3 s of a render's start. Only numba's own check sees this; it is put back after.
    Whoever loads numba code first does it under this (the engine here, the render's other
    kernels in `bandstand.render.iir.jit`), one thread at a time."""
    import numba.np.linalg as linalg

    with _SETUP:
        if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
            yield  # numba set up already, or scipy.linalg costs nothing more
            return
        real = linalg.ensure_blas

        def none() -> None:
            raise ImportError("no BLAS wanted by bandstand's engine")

        linalg.ensure_blas = none
        try:
            yield
        finally:
            linalg.ensure_blas = real


_SETUP = threading.Lock()  # numba's first setup, patched as above, by one thread at a time


def _compile(numba: Any, namespace: dict[str, Any], cache: bool) -> Callable[..., int]:
    """The helpers (here and in `voices`) become numba functions in their modules' namespaces,
    so `step` calls them compiled; then `step` is compiled for its one signature (and cached:
    a cached `step` holds them all, so a later process compiles nothing)."""
    for names, space in ((V.HELPERS, vars(V)), (_HELPERS, namespace)):
        for name in names:
            function = space[name]
            if not hasattr(function, "py_func"):
                space[name] = numba.njit(nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)(function)
    main = namespace["step"]
    main = getattr(main, "py_func", main)
    compiled: Callable[..., int] = numba.njit(_SIGNATURE, cache=cache, nogil=True)(main)
    return compiled
