"""The render's kernels compiled by numba (besides the synthesizer's, `bandstand.render.sf2.engine`):
the biquad cascade, the reverb's change of rate and the conversion of float audio to 16-bit PCM.

`sosfilt32` is the biquad cascade kernel: the same arithmetic as scipy's `_sosfilt`
(transposed direct form II, the same operations in the same order, so the same bits — a test
pins it), in a third to a half of its time.

scipy's kernel runs one signal at a time, a sample at a time through every section, its state
in memory: each sample waits for the one before (a chain of five dependent float operations).
Here the state lives in registers and up to four chains run side by side, which the CPU overlaps: the
two channels of a track together, their sections in pairs, the second one sample behind the
first (a lone signal — one channel of a loudness meter — its sections in pairs alone). Each sample of each section still sees exactly the inputs and state it would in scipy's
order, so nothing but the time changes.

`downmix` and `upsample` are the reverb's way to its quarter rate and back
(`bandstand.render.reverb`), each one pass instead of numpy's several, the same sums in the same
order (`bandstand.render.reverb.downmix`, the numpy path: each channel's run of samples from its
first, then the channels in turn).

`true_peaks` is the master's true-peak estimate (`bandstand.render.master.true_peak_blocks`) over a
chunk in one call instead of numpy's dozen passes and temporaries: the same float32 operations in
the same order, but for the quarter points' dot products (13 taps summed in order, where numpy's
matrix product sums as its BLAS does), so the same figures within float32 rounding (a test pins
it).

`to_pcm16` is what the WAV writer did in four passes over each block (scale, clip, round half
to even, store as 16-bit), in one: the same operations on the same float32 values.

Importing this module imports numba and compiles (or loads from numba's cache) the kernels:
`bandstand.render.iir.jit` does it once, where numba can run.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

__all__ = ["SIGNATURES", "downmix", "sosfilt32", "to_pcm16", "true_peaks", "upsample"]

_OPTIONS: dict[str, Any] = {"nogil": True, "cache": True}
_SECTION = "void(float32[:, ::1], float32[:, :], int64, int64, float32[:, :, ::1])"
SIGNATURES = {  # each kernel's one signature (also what `bandstand.render.native` keeps them as)
    "sosfilt32": "void(float32[:, ::1], float32[:, :], float32[:, :, ::1])",
    "to_pcm16": "void(float32[:, :], float32, float32[:, ::1], int16[:, ::1])",
    "downmix": "void(float32[:, :], int64, float32[::1])",
    "upsample": "void(float32[:, :], float32[::1], float32[::1], float32[:, :], boolean)",
    "true_peaks": "void(float32[:], int64, float32[::1], float32[:, ::1], int64, float32[::1], float32[::1], "
                  "float64[::1])",
}


@numba.njit([_SECTION], **_OPTIONS)
def _one(sos: Any, x: Any, i: int, s: int, zi: Any) -> None:  # pragma: no cover - compiled
    """Signal `i` through section `s` alone."""
    b0, b1, b2, a1, a2 = sos[s, 0], sos[s, 1], sos[s, 2], sos[s, 4], sos[s, 5]
    z0, z1 = zi[i, s, 0], zi[i, s, 1]
    for n in range(x.shape[1]):
        xc = x[i, n]
        xn = b0 * xc + z0
        z0 = b1 * xc - a1 * xn + z1
        z1 = b2 * xc - a2 * xn
        x[i, n] = xn
    zi[i, s, 0], zi[i, s, 1] = z0, z1


@numba.njit([_SECTION], **_OPTIONS)
def _pair_of_signals(sos: Any, x: Any, i: int, s: int, zi: Any) -> None:  # pragma: no cover - compiled
    """Signals `i` and `i + 1` through section `s`, side by side."""
    b0, b1, b2, a1, a2 = sos[s, 0], sos[s, 1], sos[s, 2], sos[s, 4], sos[s, 5]
    p0, p1, q0, q1 = zi[i, s, 0], zi[i, s, 1], zi[i + 1, s, 0], zi[i + 1, s, 1]
    for n in range(x.shape[1]):
        xc, yc = x[i, n], x[i + 1, n]
        xn = b0 * xc + p0
        yn = b0 * yc + q0
        p0 = b1 * xc - a1 * xn + p1
        q0 = b1 * yc - a1 * yn + q1
        p1 = b2 * xc - a2 * xn
        q1 = b2 * yc - a2 * yn
        x[i, n], x[i + 1, n] = xn, yn
    zi[i, s, 0], zi[i, s, 1], zi[i + 1, s, 0], zi[i + 1, s, 1] = p0, p1, q0, q1


@numba.njit([_SECTION], **_OPTIONS)
def _pair_of_sections(sos: Any, x: Any, i: int, s: int, zi: Any) -> None:  # pragma: no cover - compiled
    """Signal `i` through sections `s` and `s + 1`, the second one sample behind the first."""
    frames = x.shape[1]
    if frames == 0:
        return
    b0, b1, b2, a1, a2 = sos[s, 0], sos[s, 1], sos[s, 2], sos[s, 4], sos[s, 5]
    c0, c1, c2, d1, d2 = sos[s + 1, 0], sos[s + 1, 1], sos[s + 1, 2], sos[s + 1, 4], sos[s + 1, 5]
    p0, p1, q0, q1 = zi[i, s, 0], zi[i, s, 1], zi[i, s + 1, 0], zi[i, s + 1, 1]
    xc = x[i, 0]
    prev = b0 * xc + p0  # section s's output at sample 0
    p0 = b1 * xc - a1 * prev + p1
    p1 = b2 * xc - a2 * prev
    for n in range(1, frames):
        xc = x[i, n]
        xn = b0 * xc + p0
        p0 = b1 * xc - a1 * xn + p1
        p1 = b2 * xc - a2 * xn
        yn = c0 * prev + q0  # section s + 1 at sample n - 1
        q0 = c1 * prev - d1 * yn + q1
        q1 = c2 * prev - d2 * yn
        x[i, n - 1] = yn
        prev = xn
    yn = c0 * prev + q0
    q0 = c1 * prev - d1 * yn + q1
    q1 = c2 * prev - d2 * yn
    x[i, frames - 1] = yn
    zi[i, s, 0], zi[i, s, 1], zi[i, s + 1, 0], zi[i, s + 1, 1] = p0, p1, q0, q1


@numba.njit([_SECTION], **_OPTIONS)
def _pairs(sos: Any, x: Any, i: int, s: int, zi: Any) -> None:  # pragma: no cover - compiled
    """Signals `i` and `i + 1` through sections `s` and `s + 1`: four chains side by side, each
    second section one sample behind its first."""
    frames = x.shape[1]
    if frames == 0:
        return
    b0, b1, b2, a1, a2 = sos[s, 0], sos[s, 1], sos[s, 2], sos[s, 4], sos[s, 5]
    c0, c1, c2, d1, d2 = sos[s + 1, 0], sos[s + 1, 1], sos[s + 1, 2], sos[s + 1, 4], sos[s + 1, 5]
    p0, p1, q0, q1 = zi[i, s, 0], zi[i, s, 1], zi[i, s + 1, 0], zi[i, s + 1, 1]
    r0, r1, t0, t1 = zi[i + 1, s, 0], zi[i + 1, s, 1], zi[i + 1, s + 1, 0], zi[i + 1, s + 1, 1]
    xc, uc = x[i, 0], x[i + 1, 0]
    prev = b0 * xc + p0  # section s's outputs at sample 0
    p0 = b1 * xc - a1 * prev + p1
    p1 = b2 * xc - a2 * prev
    uprev = b0 * uc + r0
    r0 = b1 * uc - a1 * uprev + r1
    r1 = b2 * uc - a2 * uprev
    for n in range(1, frames):
        xc, uc = x[i, n], x[i + 1, n]
        xn = b0 * xc + p0
        un = b0 * uc + r0
        p0 = b1 * xc - a1 * xn + p1
        r0 = b1 * uc - a1 * un + r1
        p1 = b2 * xc - a2 * xn
        r1 = b2 * uc - a2 * un
        yn = c0 * prev + q0  # section s + 1 at sample n - 1
        vn = c0 * uprev + t0
        q0 = c1 * prev - d1 * yn + q1
        t0 = c1 * uprev - d1 * vn + t1
        q1 = c2 * prev - d2 * yn
        t1 = c2 * uprev - d2 * vn
        x[i, n - 1], x[i + 1, n - 1] = yn, vn
        prev, uprev = xn, un
    yn = c0 * prev + q0
    q0 = c1 * prev - d1 * yn + q1
    q1 = c2 * prev - d2 * yn
    vn = c0 * uprev + t0
    t0 = c1 * uprev - d1 * vn + t1
    t1 = c2 * uprev - d2 * vn
    x[i, frames - 1], x[i + 1, frames - 1] = yn, vn
    zi[i, s, 0], zi[i, s, 1], zi[i, s + 1, 0], zi[i, s + 1, 1] = p0, p1, q0, q1
    zi[i + 1, s, 0], zi[i + 1, s, 1], zi[i + 1, s + 1, 0], zi[i + 1, s + 1, 1] = r0, r1, t0, t1


@numba.njit([SIGNATURES["sosfilt32"]], **_OPTIONS)
def sosfilt32(sos: Any, x: Any, zi: Any) -> None:  # pragma: no cover - compiled
    """scipy's `_sosfilt(sos, x, zi)` for float32: `x` (signals × samples; each signal's samples
    contiguous, the signals anywhere) filtered in place from state `zi` (signals × sections × 2),
    which is left as the final state."""
    signals, sections = x.shape[0], sos.shape[0]
    i = 0
    while i + 1 < signals:
        s = 0
        while s + 1 < sections:
            _pairs(sos, x, i, s, zi)
            s += 2
        if s < sections:
            _pair_of_signals(sos, x, i, s, zi)
        i += 2
    if i < signals:
        s = 0
        while s + 1 < sections:
            _pair_of_sections(sos, x, i, s, zi)
            s += 2
        if s < sections:
            _one(sos, x, i, s, zi)


@numba.njit([SIGNATURES["to_pcm16"]], **_OPTIONS)
def to_pcm16(audio: Any, scale: Any, values: Any, pcm: Any) -> None:  # pragma: no cover - compiled
    """`audio` (frames × channels, any strides) times `scale`, clipped to ±32767 and rounded half
    to even, into `values` (as floats) and `pcm` (as 16-bit integers), both as long as `audio`."""
    top = np.float32(32767.0)
    for n in range(audio.shape[0]):
        for c in range(audio.shape[1]):
            v = audio[n, c] * scale
            v = min(max(v, -top), top)
            v = np.rint(v)
            values[n, c] = v
            pcm[n, c] = np.int16(v)


@numba.njit([SIGNATURES["downmix"]], **_OPTIONS)
def downmix(audio: Any, k: int, out: Any) -> None:  # pragma: no cover - compiled
    """Each run of `k` frames of `audio` (channels × frames, each row contiguous) averaged over its
    samples and channels into `out` (one value a run, as many runs as `out` holds): the sums of
    `bandstand.render.reverb.downmix`, in its order."""
    size = np.float32(audio.shape[0] * k)
    for r in range(out.shape[0]):
        total = np.float32(0.0)
        for c in range(audio.shape[0]):
            part = np.float32(0.0)
            for j in range(k):
                part += audio[c, r * k + j]
            total += part
        out[r] = total / size


@numba.njit([SIGNATURES["upsample"]], **_OPTIONS)
def upsample(low: Any, ramp: Any, gain: Any, target: Any, add: bool) -> None:  # pragma: no cover - compiled
    """`low` (channels × runs + 1) back to the full rate by linear interpolation — run r's frame j
    is low[r] + (low[r + 1] − low[r]) · ramp[j] — times `gain` (one value a frame, or one value),
    written into `target` (channels × runs · len(ramp)) or, with `add`, added to it."""
    k = ramp.shape[0]
    one = gain.shape[0] == 1
    for c in range(low.shape[0]):
        for r in range(low.shape[1] - 1):
            a = low[c, r]
            d = low[c, r + 1] - a
            for j in range(k):
                n = r * k + j
                v = (a + d * ramp[j]) * (gain[0] if one else gain[n])
                if add:
                    target[c, n] += v
                else:
                    target[c, n] = v


@numba.njit([SIGNATURES["true_peaks"]], **_OPTIONS)
def true_peaks(row: Any, first: int, pair: Any, quarter: Any, scan: int, seg: Any, half: Any,
               out: Any) -> None:  # pragma: no cover - compiled
    """The true peak of each stretch of `scan` frames of `row` (one channel, any stride) from frame
    `first`, into `out` (one a stretch; the row is zeros past its ends): the estimate of
    `bandstand.render.master.true_peak_blocks` with its half-way taps `pair` and quarter-point taps
    `quarter` (4 × 2·len(pair) + 1), in the numpy path's order. `seg` (the stretches' frames and
    len(pair) more each side, and one) and `half` (their frames) are room to work in."""
    taps = pair.shape[0]
    size = row.shape[0]
    n = out.shape[0] * scan
    width = n + 2 * taps + 1
    lo = first - taps  # seg[i] is row[lo + i]
    a, b = min(max(0, -lo), width), max(0, min(width, size - lo))
    for i in range(a):
        seg[i] = np.float32(0.0)
    for i in range(a, b):
        seg[i] = row[lo + i]
    for i in range(max(a, b), width):
        seg[i] = np.float32(0.0)
    # views, so every index below is a loop counter (never negative: no wraparound test per access)
    core, after = seg[taps:], seg[taps + 1 :]
    p0 = pair[0]
    for i in range(n):  # numpy's order: the first pair, then each next one added
        half[i] = (core[i] + after[i]) * p0
    for j in range(1, taps):
        pj = pair[j]
        left, right = seg[taps - j :], seg[taps + 1 + j :]
        for i in range(n):
            half[i] += (left[i] + right[i]) * pj
    for s in range(out.shape[0]):
        top = np.float32(-1.0)
        best = 0
        loud = np.float32(0.0)
        here, halves = core[s * scan : s * scan + scan], half[s * scan : s * scan + scan]
        for i in range(scan):
            v = abs(here[i])
            if v > top:  # the first of the loudest, as argmax finds it
                top, best = v, i
            loud = max(loud, abs(halves[i]))
        loud = max(loud, top)
        around = seg[s * scan + best :]
        for o in range(quarter.shape[0]):
            q = np.float32(0.0)
            for k in range(quarter.shape[1]):
                q += around[k] * quarter[o, k]
            loud = max(loud, abs(q))
        out[s] = loud


def _warm() -> None:
    """Run them once on a few samples, so their first real calls do not stop to finish loading."""
    probe = np.zeros((1, 4), dtype=np.float32)
    sosfilt32(np.array([[1.0, 0.0, 0.0, 1.0, 0.0, 0.0]] * 2, dtype=np.float32), probe,
              np.zeros((1, 2, 2), dtype=np.float32))
    downmix(np.zeros((2, 8), dtype=np.float32), 4, np.zeros(2, dtype=np.float32))
    upsample(np.zeros((2, 3), dtype=np.float32), np.zeros(4, dtype=np.float32), np.ones(1, dtype=np.float32),
             np.zeros((2, 8), dtype=np.float32), True)
    to_pcm16(np.zeros((4, 2), dtype=np.float32), np.float32(1.0), np.zeros((4, 2), dtype=np.float32),
             np.zeros((4, 2), dtype=np.int16))
    true_peaks(np.zeros(8, dtype=np.float32), 0, np.ones(1, dtype=np.float32), np.ones((1, 3), dtype=np.float32), 4,
               np.zeros(11, dtype=np.float32), np.zeros(8, dtype=np.float32), np.zeros(2))


_warm()
