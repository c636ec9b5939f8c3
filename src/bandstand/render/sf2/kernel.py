"""The per-sample loop of one voice for one request, compiled by numba: TinySoundFont's
inner loop (positions advanced in double, loop folding, the sample's end, linear
interpolation in float32, the resonant lowpass, gain × pan, added into the output).

The control-rate work (envelopes, LFOs, pitch ratio, filter coefficients and gains per
64-frame block) stays in numpy (`voice.py`); `play` runs the samples. It is compiled for
one signature on first use (`load`) and kept in numba's cache (beside this file, or in
the user's cache directory when the install is read-only; without either it is compiled
in memory each process). Without numba `load` raises ImportError and voices use their
numpy path, which computes the same sound within float rounding."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["available", "load", "play"]

_SIGNATURE = ("Tuple((float64, int64, int64, boolean))("
              "float32[:, ::1], float32[::1], float64, float64[::1], int64[::1], int64, int64, int64, int64, "
              "float32[::1], float64, float32, float64[::1], float32[::1], float32[::1], float32, float32)")


def play(out: Any, samples: Any, position: float, ratios: Any, sizes: Any, blocks: int, loop_start: int,
         loop_end: int, end: int, cutoffs: Any, q_inv: float, rate: float, z: Any, levels: Any, gains: Any,
         pan_left: float, pan_right: float) -> tuple[float, int, int, bool]:
    """Add up to `blocks` blocks (`sizes` frames each) of a voice into `out` (frames × 2) from
    `samples` starting at `position`, stepping by `ratios[b]` in block b. A loop (when
    `loop_start < loop_end`) folds positions past `loop_end`; a position at or past `end` ends
    the voice: nothing more plays, and that block is the last. Block b goes through
    TinySoundFont's resonant lowpass at the cutoff `cutoffs[b]` (cents; off at or above
    Nyquist; the coefficients computed as TinySoundFont does, again only when the cutoff
    changes) from the state `z` (z1, z2, updated in place), then is scaled by the note's gain
    `gains[b]` × the envelope's `levels[b]` (float32) × `pan_left` / `pan_right`. `ratios`,
    `cutoffs` and `gains` hold one value per block, or one for all (a voice whose pitch,
    filter or gain does not move). Returns the position after the last frame played, the
    frames and blocks played, and whether the sample ended."""
    looping = loop_start < loop_end
    top = loop_end + 1.0
    span = loop_end - loop_start + 1.0
    one = np.float32(1.0)
    nyquist = np.float32(0.499)
    cutoff = np.float32(np.nan)
    active = False
    a0 = a1 = b1 = b2 = 0.0
    z1 = z[0]
    z2 = z[1]
    frame = 0
    block = 0
    ended = False
    while block < blocks and not ended:
        ratio = ratios[block if ratios.shape[0] > 1 else 0]
        fres = cutoffs[block if cutoffs.shape[0] > 1 else 0]
        if fres != cutoff:
            cutoff = fres
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
        mono = gains[block if gains.shape[0] > 1 else 0] * levels[block]
        left = mono * pan_left
        right = mono * pan_right
        for _ in range(sizes[block]):
            if not position < end:  # (a NaN position ends the voice too: never an index from it)
                ended = True
                break
            index = int(position)
            alpha = np.float32(position - index)
            following = loop_start if looping and index >= loop_end else index + 1
            value = samples[index] * (one - alpha) + samples[following] * alpha
            if active:
                x = np.float64(value)
                y = x * a0 + z1
                z1 = x * a1 + z2 - b1 * y
                z2 = x * a0 - b2 * y
                value = np.float32(y)
            out[frame, 0] += value * left
            out[frame, 1] += value * right
            frame += 1
            position += ratio
            if looping and position >= top:
                position -= span
        block += 1
    z[0] = z1
    z[1] = z2
    return position, frame, block, ended


_LOADED: list[Callable[..., tuple[float, int, int, bool]]] = []  # the compiled `play`, once loaded


def available() -> bool:
    """Whether numba can be imported (the compiled kernel can be had)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def load() -> Callable[..., tuple[float, int, int, bool]]:
    """`play` compiled: from numba's cache when it holds it, else compiled now (about a second)
    and cached where numba can write. Raises ImportError without numba."""
    if _LOADED:
        return _LOADED[0]
    import numba

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's notes about caching are not the caller's concern
        try:  # cached in the in-tree __pycache__, else in numba's user-wide cache directory
            compiled = numba.njit(_SIGNATURE, cache=True, nogil=True)(play)
        except (RuntimeError, OSError):  # nowhere to cache (a read-only install, no home): in memory
            compiled = numba.njit(_SIGNATURE, cache=False, nogil=True)(play)
    _LOADED.append(compiled)
    return compiled
