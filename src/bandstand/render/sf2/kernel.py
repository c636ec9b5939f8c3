"""The per-sample loop of one voice for one request, compiled by numba: TinySoundFont's
inner loop (positions advanced in double, loop folding, the sample's end, linear
interpolation in float32, the resonant lowpass, gain × pan, added into the output).

`play` runs the samples; the control values per 64-frame block (pitch ratio, filter
cutoff's terms, gains) are computed by the voice in numpy, and the envelopes and LFOs step block by
block in `envelope_walk` and `lfo_walk` (TinySoundFont's per-block updates, in float32;
what a segment change does stays in Python, `envelope.py`). All three are compiled for one
signature each on first use (`load`) and kept in numba's cache (beside this file, or in
the user's cache directory when the install is read-only; without either they are compiled
in memory each process). Without numba `load` raises ImportError and voices use their
numpy path, which computes the same sound within float rounding."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

__all__ = ["Kernels", "available", "envelope_walk", "lfo_walk", "load", "play"]

_SIGNATURE = ("Tuple((float64, int64, int64, boolean))("
              "float32[:, ::1], float32[::1], float64, float64[::1], int64[::1], int64, int64, int64, int64, "
              "float32, float32[::1], float32, float32[::1], float32, float64, float32, float64[::1], float32[::1], "
              "float32[::1], float32, float32)")
_ENVELOPE_SIGNATURE = "Tuple((int64, float32, int64))(float32[::1], int64[::1], int64, float32, float64, boolean, int64)"
_LFO_SIGNATURE = "Tuple((float32, float32, int64))(float32[::1], int64[::1], float32, float32, int64)"


def play(out: Any, samples: Any, position: float, ratios: Any, sizes: Any, blocks: int, loop_start: int,
         loop_end: int, end: int, cutoff: Any, lfo: Any, lfo_depth: Any, env: Any, env_depth: Any, q_inv: float,
         rate: float, z: Any, levels: Any, gains: Any,
         pan_left: float, pan_right: float) -> tuple[float, int, int, bool]:
    """Add up to `blocks` blocks (`sizes` frames each) of a voice into `out` (frames × 2) from
    `samples` starting at `position`, stepping by `ratios[b]` in block b. A loop (when
    `loop_start < loop_end`) folds positions past `loop_end`; a position at or past `end` ends
    the voice: nothing more plays, and that block is the last. Block b goes through
    TinySoundFont's resonant lowpass at the cutoff `cutoff` + `lfo[b]` × `lfo_depth` +
    `env[b]` × `env_depth` (cents, float32: the modulation LFO's and envelope's levels; off at
    or above Nyquist; the coefficients computed as TinySoundFont does, again only when the
    cutoff changes) from the state `z` (z1, z2, updated in place), then is scaled by the note's gain
    `gains[b]` × the envelope's `levels[b]` (float32) × `pan_left` / `pan_right`. `ratios`,
    `lfo`, `env`, `gains` and `levels` hold one value per block, or one for all (a voice whose
    pitch, filter, gain or envelope does not move). Returns the position after the last frame played, the
    frames and blocks played, and whether the sample ended."""
    looping = loop_start < loop_end
    top = loop_end + 1.0
    span = loop_end - loop_start + 1.0
    one = np.float32(1.0)
    nyquist = np.float32(0.499)
    current = np.float32(np.nan)
    flat = out.reshape(-1)  # frames × 2 as one row: left, right, left, …
    active = False
    a0 = a1 = b1 = b2 = 0.0
    z1 = z[0]
    z2 = z[1]
    frame = 0
    block = 0
    ended = False
    while block < blocks and not ended:
        ratio = ratios[block if ratios.shape[0] > 1 else 0]
        fres = (cutoff + lfo[block if lfo.shape[0] > 1 else 0] * lfo_depth
                + env[block if env.shape[0] > 1 else 0] * env_depth)
        if fres != current:
            current = fres
            fc = np.float32(1.0)
            if fres <= 13500:
                hertz = np.float32(8.176) * np.float32(2.0 ** np.float64(fres / np.float32(1200.0)))
                fc = hertz / rate
            active = bool(fc < nyquist)
            if active:
                k = math.tan(math.pi * np.float64(fc))
                kk = k * k
                norm = 1.0 / (1.0 + k * q_inv + kk)
                a0 = kk * norm
                a1 = 2.0 * a0
                b1 = 2.0 * (kk - 1.0) * norm
                b2 = (1.0 - k * q_inv + kk) * norm
        mono = gains[block if gains.shape[0] > 1 else 0] * levels[block if levels.shape[0] > 1 else 0]
        left = mono * pan_left
        right = mono * pan_right
        for _ in range(sizes[block]):
            if not position < end:  # (a NaN position ends the voice too: never an index from it)
                ended = True
                break
            index = int(position)
            alpha = np.float32(position - index)
            following = loop_start if looping and index >= loop_end else index + 1
            # unsigned indices (never negative here): numba then checks for no negative index
            value = samples[np.uint64(index)] * (one - alpha) + samples[np.uint64(following)] * alpha
            if active:
                x = np.float64(value)
                y = x * a0 + z1
                z1 = x * a1 + z2 - b1 * y
                z2 = x * a0 - b2 * y
                value = np.float32(y)
            slot = np.uint64(2 * frame)
            flat[slot] += value * left
            flat[slot + np.uint64(1)] += value * right
            frame += 1
            position += ratio
            if looping and position >= top:
                position -= span
        block += 1
    z[0] = z1
    z[1] = z2
    return position, frame, block, ended


def envelope_walk(levels: Any, starts: Any, first: int, level: Any, slope: float, exponential: bool,
                  until: int) -> tuple[int, float, int]:
    """An envelope segment from block `first` (blocks start at `starts`, then the end): write
    its level at the start of each block into `levels`, stepping it after each block as
    TinySoundFont does (× powf(slope, size), or + slope × size, in float32), until `until`
    samples run out (after that block) or the blocks do. Returns the next block, the level
    and the samples left."""
    blocks = starts.shape[0] - 1
    block = first
    level = np.float32(level)
    linear = np.float32(slope)
    while block < blocks:
        levels[block] = level
        size = starts[block + 1] - starts[block]
        if slope != 0.0:
            if exponential:
                level = level * np.float32(slope ** np.float64(size))  # powf, correctly rounded
            else:
                level = level + linear * np.float32(size)
        until -= size
        block += 1
        if until <= 0:
            break
    return block, level, until


def lfo_walk(levels: Any, sizes: Any, level: Any, delta: Any, until: int) -> tuple[float, float, int]:
    """A triangle LFO through blocks of these `sizes`: its level at the start of each block
    into `levels`; a block waits while the delay left (`until`) is longer than it, else the
    level moves by delta × size and turns round past ±1, as TinySoundFont's does (float32).
    Returns the level, delta and delay left."""
    level = np.float32(level)
    delta = np.float32(delta)
    for block in range(sizes.shape[0]):
        levels[block] = level
        size = sizes[block]
        if until > size:
            until -= size
            continue
        level = level + delta * np.float32(size)
        if level > 1.0:
            delta = -delta
            level = np.float32(2.0) - level
        elif level < -1.0:
            delta = -delta
            level = np.float32(-2.0) - level
    return level, delta, until


class Kernels(NamedTuple):
    """The compiled functions: `play`, `envelope_walk`, `lfo_walk`."""

    play: Callable[..., tuple[float, int, int, bool]]
    envelope_walk: Callable[..., tuple[int, float, int]]
    lfo_walk: Callable[..., tuple[float, float, int]]


_LOADED: list[Kernels] = []  # the compiled functions, once loaded


def available() -> bool:
    """Whether the compiled kernel can be had: numba imports and compiles (not with
    `NUMBA_DISABLE_JIT` set, which would leave `play` as plain, very slow Python)."""
    try:
        import numba
    except ImportError:
        return False
    return not getattr(numba.config, "DISABLE_JIT", False)


def load() -> Kernels:
    """The functions compiled: from numba's cache when it holds them, else compiled now (about
    half a second) and cached where numba can write. Raises ImportError without numba (or
    when it would not compile)."""
    if _LOADED:
        return _LOADED[0]
    import numba

    if getattr(numba.config, "DISABLE_JIT", False):
        raise ImportError("numba does not compile here (NUMBA_DISABLE_JIT is set)")

    def compiled(signature: str, function: Callable[..., Any]) -> Any:
        try:  # cached in the in-tree __pycache__, else in numba's user-wide cache directory
            return numba.njit(signature, cache=True, nogil=True)(function)
        except (RuntimeError, OSError):  # nowhere to cache (a read-only install, no home): in memory
            return numba.njit(signature, cache=False, nogil=True)(function)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's notes about caching are not the caller's concern
        kernels = Kernels(compiled(_SIGNATURE, play), compiled(_ENVELOPE_SIGNATURE, envelope_walk),
                          compiled(_LFO_SIGNATURE, lfo_walk))
    _LOADED.append(kernels)
    return kernels
