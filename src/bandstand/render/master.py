"""Mastering: the summed mix brought to a loudness target under a true-peak
ceiling, and the trailing silence trimmed to a short tail.

Loudness is ITU-R BS.1770 integrated loudness as pyloudnorm measures it:
the mix is K-weighted once with pyloudnorm's filter (the same RBJ high shelf
and high-pass, computed here so pyloudnorm and scipy.signal need not be
imported; a test pins the coefficients to pyloudnorm's), a chunk at a time,
reduced to its mean power per 10 ms, and pyloudnorm's gating is applied to
that envelope on whole arrays (a test pins it to pyloudnorm's own meter). Because the limiter's gain moves slowly next to the
K filter, the loudness of the limited master is the envelope times the gain
curve: the gain and the limiter are settled in a few cheap rounds on block
values, and the audio is touched once at the end.

The limiter looks ahead and holds every block under the ceiling; a block's
level is its true peak estimated as in BS.1770 (the signal half-way between
every two samples, and at the quarters around the loudest sample of every 32),
and the ceiling
sits `MARGIN_DB` under the target so the estimate's error stays inside it. Where the render's
compiled kernels run (`bandstand.render.iir.jit`), the estimate is one call a chunk
(`bandstand.render.jit.true_peaks`): the same figures within float32 rounding.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from bandstand.render.cancel import Check, never
from bandstand.render.dsp import (
    BLOCK,
    Audio,
    Floats,
    apply_gain,
    biquad,
    block_ramp,
    guard_row,
    limiter_gain,
)
from bandstand.render.iir import CHUNK, Cascade, jit

__all__ = ["MARGIN_DB", "Master", "MasterPlan", "Mastered", "chunk_power", "chunk_powers", "integrated_loudness", "k_weighting",
           "master", "plan_master", "power_steps", "true_peak_blocks"]

MARGIN_DB = 0.5
MAX_GAIN_DB = 30.0
SILENCE_DB = -60.0


@dataclass(frozen=True, slots=True)
class Master:
    """What the master aims at: integrated loudness (LUFS), true-peak ceiling (dBTP), the limiter's
    release and the tail kept after the last sound above −60 dBFS."""

    target_lufs: float = -14.0
    ceiling_dbtp: float = -1.0
    release_ms: float = 80.0
    tail_seconds: float = 0.4


@dataclass(frozen=True, slots=True)
class Mastered:
    """The mastered audio and what was done: the static gain (dB), the loudness before and after
    (LUFS, estimated as above), the deepest limiter reduction (dB), frames kept."""

    audio: Audio
    gain: float  # linear static gain
    loudness_in: float
    loudness_out: float
    limiter_max_db: float
    frames: int


def k_weighting(sample_rate: int) -> list[list[float]]:
    """BS.1770's K-weighting as pyloudnorm designs it: a +4 dB high shelf at 1.5 kHz (Q 1/√2) and a
    high-pass at 38 Hz (Q 0.5), RBJ biquads."""
    return [biquad("highshelf", 1500.0, sample_rate, 1 / math.sqrt(2), 4.0), biquad("highpass", 38.0, sample_rate, 0.5)]


def power_steps(sample_rate: int) -> tuple[int, int]:
    """The loudness measure's hop (10 ms, in frames) and the frames it filters at a time (whole
    hops, about `CHUNK`): a measure fed in other pieces must cut them here to give the same bits."""
    hop = max(1, round(sample_rate / 100))
    return hop, hop * max(1, CHUNK // hop)


def chunk_power(cascade: Cascade, chunk: Audio, hop: int) -> Floats:
    """The mean power per hop of one channel's next chunk (whole hops), K-weighted by `cascade`
    (`k_weighting`, one channel), which keeps its state for the chunk after."""
    return chunk_powers(cascade, np.array(chunk[None, :], dtype=np.float32), hop)[:, 0]


def chunk_powers(cascade: Cascade, rows: Audio, hop: int) -> Floats:
    """`chunk_power` of every channel of the next chunk, given channel-major (channels × frames,
    whole hops, each row contiguous: its own buffer, which this overwrites), by a cascade of as
    many channels: hops × channels. The channels are filtered together (the same bits as one at
    a time, in less time), each one's power summed as `chunk_power` sums it."""
    rows += guard_row(rows.shape[1])[None, :]
    weighted = cascade(rows)
    power = np.empty((rows.shape[1] // hop, len(weighted)))
    for c, row in enumerate(weighted):
        hops = row.reshape(-1, hop)
        power[:, c] = np.einsum("hk,hk->h", hops, hops) / hop
    return power


def _powers(audio: Audio, sample_rate: int, check: Check = never) -> Floats:
    """The mean power of the K-weighted signal per hop of 10 ms, per channel (hops × channels): the
    channels filtered together, a chunk at a time (each channel's own figures, to the bit)."""
    hop, step = power_steps(sample_rate)
    hops, channels = len(audio) // hop, audio.shape[1]
    power = np.zeros((hops, channels))
    cascade = Cascade(k_weighting(sample_rate), channels)
    for first in range(0, hops * hop, step):
        check()
        rows = np.array(audio[first : min(first + step, hops * hop)].T, dtype=np.float32, order="C")
        power[first // hop : first // hop + step // hop] = chunk_powers(cascade, rows, hop)
    return power


def power_envelope(audio: Audio, sample_rate: int) -> tuple[Floats, int]:
    """RMS of the K-weighted signal per hop of 10 ms, per channel (hops × channels), and the hop in
    frames. (A signal at −300 dB is added before the filter, so its state never turns denormal.)"""
    env: Floats = np.sqrt(_powers(audio, sample_rate))
    return env, power_steps(sample_rate)[0]


def integrated_loudness(envelope: Floats, hop_rate: float = 100.0) -> float:
    """The gated integrated loudness (BS.1770) of a K-weighted RMS envelope (hops × channels) sampled
    at `hop_rate`: pyloudnorm's gating, block for block (400 ms blocks every 100 ms, −70 LUFS absolute
    and −10 LU relative gates), done on whole arrays. −inf for silence or less than one block."""
    rate = hop_rate
    block, step = 0.4, 0.1
    count = len(envelope)
    blocks = round((count / rate - block) / step) + 1
    if count < block * rate or blocks < 1:
        return -math.inf
    j = np.arange(blocks)
    lower = (block * (j * 0.25) * rate).astype(np.int64)  # the same float steps as pyloudnorm
    upper = (block * (j * 0.25 + 1) * rate).astype(np.int64)
    sums = np.concatenate([np.zeros((1, envelope.shape[1])), np.cumsum(envelope.astype(np.float64) ** 2, axis=0)])
    z = (sums[np.minimum(upper, count)] - sums[lower]) / (block * rate)  # mean square per block and channel
    with np.errstate(divide="ignore"):
        level = -0.691 + 10 * np.log10(z.sum(axis=1))
        gated = z[level >= -70.0]
        if len(gated) == 0:
            return -math.inf
        relative = -0.691 + 10 * np.log10(gated.mean(axis=0).sum()) - 10.0
        kept = z[(level > relative) & (level > -70.0)]
        if len(kept) == 0:
            return -math.inf
        return float(-0.691 + 10 * np.log10(kept.mean(axis=0).sum()))


def _segment(x: Audio, lo: int, hi: int) -> Audio:
    """x[lo:hi] of one channel, zeros outside the signal."""
    out = np.zeros(hi - lo, dtype=np.float32)
    a, b = max(lo, 0), min(hi, len(x))
    if a < b:
        out[a - lo : b - lo] = x[a:b]
    return out


def _peak_taps(taps: int) -> tuple[Audio, Audio]:
    """The true-peak estimate's taps: the half-way point's (one per symmetric pair, `taps` of them)
    and the quarter points' (4 × 2·`taps` + 1)."""
    pair = (np.sinc(0.5 + np.arange(taps)) * np.kaiser(2 * taps + 2, 6.0)[taps + 1 : 2 * taps + 1]).astype(np.float32)
    k = np.arange(-taps, taps + 1)
    offsets = np.array([-0.75, -0.25, 0.25, 0.75])
    quarter = (np.sinc(offsets[:, None] - k[None, :]) * np.kaiser(2 * taps + 3, 6.0)[1:-1][None, :]).astype(np.float32)
    return pair, quarter


def _row_true_peaks(row: Audio, taps: int = 6, scan: int = 32, check: Check = never, *,
                    compiled: bool = True) -> Floats:
    """One channel's true peak per stretch of `scan` frames (see `true_peak_blocks`); by the
    compiled kernel where it runs (unless not `compiled`: the numpy path)."""
    total = -(-len(row) // BLOCK) * BLOCK
    pair, quarter = _peak_taps(taps)
    peaks = np.zeros(total // scan)
    kernels = jit() if compiled and row.dtype == np.float32 and row.flags.writeable else None
    if kernels is not None:
        seg, half = np.empty(CHUNK + 2 * taps + 1, dtype=np.float32), np.empty(CHUNK, dtype=np.float32)
        for first in range(0, total, CHUNK):
            check()
            n = min(CHUNK, total - first)
            kernels.true_peaks(row, first, pair, quarter, scan, seg, half, peaks[first // scan : (first + n) // scan])
        return peaks
    k = np.arange(-taps, taps + 1)
    for first in range(0, total, CHUNK):
        check()
        n = min(CHUNK, total - first)
        seg = _segment(row, first - taps, first + n + taps + 1)
        core = seg[taps : taps + n]
        stretch = np.abs(core).reshape(n // scan, scan)
        loud = stretch.max(axis=1)
        acc = (core + seg[taps + 1 : taps + 1 + n]) * pair[0]
        for j in range(1, taps):
            acc += (seg[taps - j : taps - j + n] + seg[taps + 1 + j : taps + 1 + j + n]) * pair[j]
        np.abs(acc, out=acc)
        np.maximum(loud, acc.reshape(n // scan, scan).max(axis=1), out=loud)
        centres = stretch.argmax(axis=1) + np.arange(n // scan) * scan + taps
        np.maximum(loud, np.abs(seg[centres[:, None] + k[None, :]] @ quarter.T).max(axis=1), out=loud)
        peaks[first // scan : (first + n) // scan] = loud
    return peaks


def true_peak_blocks(audio: Audio, taps: int = 6, scan: int = 32) -> Floats:
    """Each control block's true peak (frames × channels audio), estimated as the four-times
    oversampling of BS.1770 would see it: the signal half-way between every two samples (a
    Kaiser-windowed sinc over ±`taps` samples, its symmetry used: one multiply per pair), and at ¼
    and ¾ of the way to each neighbour of the loudest sample of every stretch of `scan` frames; the
    block's value is the largest of these and its samples. One pass per channel, a chunk at a time."""
    return _blocks_of(np.max([_row_true_peaks(row, taps, scan) for row in audio.T], axis=0), scan)


def _blocks_of(stretch_peaks: Floats, scan: int = 32) -> Floats:
    out: Floats = stretch_peaks.reshape(-1, BLOCK // scan).max(axis=1)
    return out


def _hop_gain(block_gain: Floats, hops: int, hop: int) -> Floats:
    centres = (np.arange(hops) + 0.5) * hop / BLOCK
    out: Floats = np.interp(centres, np.arange(len(block_gain)), block_gain)
    return out


@dataclass(frozen=True, slots=True)
class MasterPlan:
    """What the master will do to a measured mix, before any of it is done: the static gain, the
    gain per control block (the limiter's included), the frames kept and the fade at their end,
    and the figures `Mastered` reports. `apply` masters any stretch of the mix on its own, with
    the arithmetic of the whole (the gain ramps and the fade depend only on a frame's place in the
    song), so a caller can master the mix a block at a time as it writes it."""

    gain: float
    curve: Floats
    frames: int
    fade: int
    loudness_in: float
    loudness_out: float
    limiter_max_db: float

    def apply(self, audio: Audio, first: int, out: Audio) -> Audio:
        """The mastered frames [first, first + len(out)) of the unmastered mix `audio` (frames ×
        channels) into `out`; `first` is a multiple of `BLOCK` and the stretch ends by `frames`."""
        n = len(out)
        g = block_ramp(self.curve, first, n)
        for src, dst in zip(audio[first : first + n].T, out.T, strict=True):
            np.multiply(src, g, out=dst)
        fade_from = self.frames - self.fade
        if self.fade and first + n > fade_from:
            ramp = np.linspace(1.0, 0.0, self.fade, dtype=np.float32)
            lo = max(first, fade_from)
            out[lo - first :] *= ramp[lo - fade_from : first + n - fade_from][:, None]
        return out

    def mastered(self, audio: Audio, *, in_place: bool = False, check: Check = never) -> Mastered:
        """The whole mix (frames × channels) mastered: in `audio`'s own memory with `in_place`;
        `check` is asked a chunk at a time."""
        out = apply_gain(audio, self.curve, out=audio if in_place else np.empty_like(audio), check=check)
        out = out[: self.frames]
        if self.fade:
            out[self.frames - self.fade :] *= np.linspace(1.0, 0.0, self.fade, dtype=np.float32)[:, None]
        return Mastered(out, self.gain, self.loudness_in, self.loudness_out, self.limiter_max_db, self.frames)


def plan_master(audio: Audio, sample_rate: int, settings: Master = Master(), *, check: Check = never) -> MasterPlan:
    """Measure the mix (frames × channels) and settle the master: gain to `target_lufs`, the
    limiter under `ceiling_dbtp`, the trimmed length. Nothing is changed in `audio`. `check` is
    asked a chunk at a time while the mix is measured (it raises to cancel)."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="bandstand-master") as pool:
        # the channels' peaks on the other thread while this one filters them for loudness; a
        # channel it has not started by then is measured here
        tasks = [pool.submit(_row_true_peaks, row, check=check) for row in audio.T]
        power = _powers(audio, sample_rate, check)
        here = {c: _row_true_peaks(audio[:, c], check=check) for c in reversed(range(len(tasks))) if tasks[c].cancel()}
        row_peaks = [here[c] if c in here else task.result() for c, task in enumerate(tasks)]
    check()
    peaks = _blocks_of(np.max(row_peaks, axis=0))
    hop = max(1, round(sample_rate / 100))
    env: Floats = np.sqrt(power)
    loudness_in = integrated_loudness(env, sample_rate / hop)
    ceiling = 10 ** ((settings.ceiling_dbtp - MARGIN_DB) / 20)
    release = 20.0 * (1000 * BLOCK / sample_rate) / settings.release_ms
    gain_db = 0.0 if not math.isfinite(loudness_in) else min(MAX_GAIN_DB, settings.target_lufs - loudness_in)
    limit = np.ones(len(peaks))
    loudness_out = loudness_in
    for _ in range(12):  # the limiter eats some of each raise: a few rounds settle it
        gain = 10 ** (gain_db / 20)
        limit = limiter_gain(peaks * gain, ceiling, release)
        loudness_out = integrated_loudness(env * (gain * _hop_gain(limit, len(env), hop))[:, None], sample_rate / hop)
        if not math.isfinite(loudness_out) or abs(settings.target_lufs - loudness_out) < 0.05:
            break
        gain_db = min(MAX_GAIN_DB, gain_db + settings.target_lufs - loudness_out)
    else:  # out of rounds: the last raise still needs its limiter
        gain = 10 ** (gain_db / 20)
        limit = limiter_gain(peaks * gain, ceiling, release)
    curve = limit * gain
    frames = _trimmed_length(peaks * curve, len(audio), sample_rate, settings.tail_seconds)
    deepest = float(-20 * np.log10(limit.min())) if len(limit) else 0.0
    return MasterPlan(gain, curve, frames, min(frames, int(0.05 * sample_rate)), loudness_in, loudness_out, deepest)


def master(audio: Audio, sample_rate: int, settings: Master = Master(), *, in_place: bool = False,
           check: Check = never) -> Mastered:
    """Master the mix: gain to `target_lufs`, limit true peaks under `ceiling_dbtp`, trim the tail
    (`plan_master`, then the plan applied to the whole mix). With `in_place`, the master is made
    in `audio`'s own memory. `check` is asked a chunk at a time while the mix is measured and
    mastered (it raises to cancel)."""
    return plan_master(audio, sample_rate, settings, check=check).mastered(audio, in_place=in_place, check=check)


def _trimmed_length(levels: Floats, frames: int, sample_rate: int, tail: float) -> int:
    loud = np.nonzero(levels > 10 ** (SILENCE_DB / 20))[0]
    if len(loud) == 0:
        return min(frames, int(tail * sample_rate))
    return min(frames, (int(loud[-1]) + 1) * BLOCK + int(tail * sample_rate))
