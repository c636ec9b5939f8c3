"""DSP building blocks the effects, the mixer and the master share: biquad designs
(`bandstand.render.iir` runs them), parameter curves over time, gain curves from
block levels, fractional delay reads and the feedback comb.

Audio is float32, frames × 2. Time-varying things (automation, compressor and
limiter gain) are computed once per block of `BLOCK` frames of the song and
interpolated linearly in between (`block_ramp` gives any stretch of frames its
values), so a chain can run a chunk at a time and a whole song costs a few
passes that stay in cache.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from bandstand.score import AutomationLane, Song

if TYPE_CHECKING:
    from bandstand.render.scratch import Scratch

Audio = npt.NDArray[np.float32]
Floats = npt.NDArray[np.float64]

BLOCK = 256  # frames per control block (5.8 ms at 44.1 kHz)
_GAIN_CHUNK = 1 << 15  # frames per step of a pass over the song (a multiple of BLOCK; stays in cache)


@dataclass(frozen=True, slots=True)
class Context:
    """What an effect needs besides its audio: the rate, the tempo for synced times, the automation
    of its own parameters as per-block curves of the song (parameter → values, one per block from
    the song's first frame), and `start`, the song frame of the audio's first frame (a multiple of
    `BLOCK`: a chain may run over a stretch of the song only)."""

    sample_rate: int
    tempo: float
    curves: dict[str, Floats] = field(default_factory=dict)
    on_bus: bool = False  # a bus returns only the wet signal of its time effects
    start: int = 0
    scratch: Scratch | None = None  # where an effect that works on the whole signal keeps its buffers

    def blocks(self, frames: int) -> int:
        return -(-frames // BLOCK)


# ----------------------------------------------------------------------------- biquads (RBJ cookbook)

def _norm(b: Sequence[float], a: Sequence[float]) -> list[float]:
    return [b[0] / a[0], b[1] / a[0], b[2] / a[0], 1.0, a[1] / a[0], a[2] / a[0]]


def biquad(kind: str, freq: float, sample_rate: int, q: float = 0.7071, gain_db: float = 0.0) -> list[float]:
    """One second-order section [b0, b1, b2, 1, a1, a2]: lowpass, highpass, bandpass, peak,
    lowshelf or highshelf (Robert Bristow-Johnson's cookbook)."""
    freq = min(max(freq, 10.0), 0.49 * sample_rate)
    w = 2 * math.pi * freq / sample_rate
    cw, sw = math.cos(w), math.sin(w)
    alpha = sw / (2 * q)
    amp = 10 ** (gain_db / 40)
    if kind == "lowpass":
        return _norm(((1 - cw) / 2, 1 - cw, (1 - cw) / 2), (1 + alpha, -2 * cw, 1 - alpha))
    if kind == "highpass":
        return _norm(((1 + cw) / 2, -(1 + cw), (1 + cw) / 2), (1 + alpha, -2 * cw, 1 - alpha))
    if kind == "bandpass":
        return _norm((alpha, 0.0, -alpha), (1 + alpha, -2 * cw, 1 - alpha))
    if kind == "peak":
        return _norm((1 + alpha * amp, -2 * cw, 1 - alpha * amp), (1 + alpha / amp, -2 * cw, 1 - alpha / amp))
    shelf = 2 * math.sqrt(amp) * alpha
    if kind == "lowshelf":
        return _norm((amp * ((amp + 1) - (amp - 1) * cw + shelf), 2 * amp * ((amp - 1) - (amp + 1) * cw),
                      amp * ((amp + 1) - (amp - 1) * cw - shelf)),
                     ((amp + 1) + (amp - 1) * cw + shelf, -2 * ((amp - 1) + (amp + 1) * cw),
                      (amp + 1) + (amp - 1) * cw - shelf))
    if kind == "highshelf":
        return _norm((amp * ((amp + 1) + (amp - 1) * cw + shelf), -2 * amp * ((amp - 1) + (amp + 1) * cw),
                      amp * ((amp + 1) + (amp - 1) * cw - shelf)),
                     ((amp + 1) - (amp - 1) * cw + shelf, 2 * ((amp - 1) - (amp + 1) * cw),
                      (amp + 1) - (amp - 1) * cw - shelf))
    raise ValueError(f"unknown biquad kind {kind!r}")


GUARD_PATTERN = np.array([1.0, 0.5, -0.25, 0.0], dtype=np.float32) * np.float32(1e-15)
_GUARD_ROW = np.tile(GUARD_PATTERN, 1 << 13)  # 32,768 frames of it


def guard_row(frames: int) -> Audio:
    """`frames` frames of the guard signal (see `guard`), one channel."""
    row = _GUARD_ROW if frames <= len(_GUARD_ROW) else np.tile(GUARD_PATTERN, -(-frames // 4))
    return row[:frames]


def guard(audio: Audio) -> Audio:
    """Add, in place, a signal at −300 dB (a constant, a quarter-rate and a half-rate part, so no
    filter removes all of it): a recursive filter's state then never decays into denormal
    numbers, which float arithmetic handles many times slower (measured: 1.2 s instead of 0.24 s
    for one biquad over a song that ends in silence). Nothing audible changes. Returns `audio`."""
    audio += guard_row(len(audio))[:, None]
    return audio


# ----------------------------------------------------------------------------- curves over time

def block_beats(song: Song, blocks: int, sample_rate: int) -> Floats:
    """The beat at the start of each control block, following the tempo map."""
    seconds = np.arange(blocks, dtype=np.float64) * (BLOCK / sample_rate)
    knots_b = [c.beat for c in song.tempo_map()]
    knots_s = [song.beats_to_seconds(b) for b in knots_b]
    last_bpm = song.tempo_map()[-1].bpm
    beats = np.interp(seconds, knots_s, knots_b)
    past = seconds > knots_s[-1]
    beats[past] = knots_b[-1] + (seconds[past] - knots_s[-1]) * last_bpm / 60.0
    return beats


def lane_curve(lane: AutomationLane, beats: Floats, default: float) -> Floats:
    """The lane's value at each beat (`default` before its first point), with its curve shapes."""
    pts = lane.points
    if not pts:
        return np.full(len(beats), default)
    at = np.array([p.beat for p in pts])
    val = np.array([p.value for p in pts])
    i = np.clip(np.searchsorted(at, beats, side="right") - 1, 0, len(pts) - 1)
    j = np.minimum(i + 1, len(pts) - 1)
    span = at[j] - at[i]
    t = np.where(span > 0, (beats - at[i]) / np.where(span > 0, span, 1.0), 0.0).clip(0.0, 1.0)
    shapes = np.array([p.curve for p in pts])[i]
    t = np.select([shapes == "step", shapes == "smooth", shapes == "exp", shapes == "log"],
                  [np.zeros_like(t), t * t * (3 - 2 * t), t * t, np.sqrt(t)], t)
    out = val[i] + (val[j] - val[i]) * t
    return np.where(beats < at[0], default, out)


def block_ramp(curve: Floats, first: int, frames: int) -> Audio:
    """The values of a per-block curve of the song (linear between block starts, the last value
    held) at the `frames` frames from song frame `first` (a multiple of `BLOCK`), as float32."""
    if len(curve) == 0:
        return np.zeros(frames, dtype=np.float32)
    at = np.minimum(np.arange(first // BLOCK, first // BLOCK + -(-frames // BLOCK) + 1), len(curve) - 1)
    values = curve[at].astype(np.float32)
    g0 = values[:-1]
    ramp = np.arange(BLOCK, dtype=np.float32) / np.float32(BLOCK)
    out: Audio = (g0[:, None] + (values[1:] - g0)[:, None] * ramp[None, :]).ravel()[:frames]
    return out


def db(values: Floats) -> Floats:
    """Levels (linear) in dB, silence at −180."""
    out: Floats = 20 * np.log10(np.maximum(values, 1e-9))
    return out


def gain_reduction(peaks_db: Floats, threshold_db: float | Floats, ratio: float, knee_db: float = 6.0) -> Floats:
    """The static curve of a compressor: dB of gain (≤ 0) for each level, with a soft knee."""
    over = peaks_db - threshold_db
    slope = 1.0 / ratio - 1.0
    soft = slope * (over + knee_db / 2) ** 2 / (2 * knee_db)
    out: Floats = np.where(over <= -knee_db / 2, 0.0, np.where(over >= knee_db / 2, slope * over, soft))
    return out


def limiter_gain(peaks: Floats, ceiling: float | Floats, release_db_per_block: float, lookahead: int = 2) -> Floats:
    """The gain (linear, per block) that keeps every block at or under `ceiling`: the block's need,
    the minimum over the block before and `lookahead` blocks ahead (so interpolating between two
    block gains never overshoots), released no faster than the given rate."""
    need = db(np.minimum(1.0, ceiling / np.maximum(peaks, 1e-9)))
    held = release(moving_min(need, 1, lookahead), release_db_per_block)
    out: Floats = 10 ** (held / 20)
    return out


def release(gain_db: Floats, db_per_block: float) -> Floats:
    """Let a gain curve (dB, ≤ 0) rise no faster than `db_per_block`, falling at once: the
    recurrence s[b] = min(g[b], s[b-1] + c) solved as a running minimum."""
    k = np.arange(len(gain_db), dtype=np.float64)
    out: Floats = np.minimum.accumulate(gain_db - db_per_block * k) + db_per_block * k
    return np.minimum(out, gain_db)


def moving_min(values: Floats, before: int, after: int) -> Floats:
    """The minimum of each value's window [i - before, i + after]."""
    out = values.copy()
    for shift in range(1, after + 1):
        out[:-shift] = np.minimum(out[:-shift], values[shift:])
    for shift in range(1, before + 1):
        out[shift:] = np.minimum(out[shift:], values[:-shift])
    return out


def smooth(values: Floats, width: int) -> Floats:
    """A centred moving average over `width` values (edges repeat)."""
    if width <= 1:
        return values
    padded = np.concatenate([np.full(width // 2, values[0]), values, np.full(width - 1 - width // 2, values[-1])])
    sums = np.cumsum(np.concatenate([[0.0], padded]))
    out: Floats = (sums[width:] - sums[:-width]) / width
    return out


def apply_gain(audio: Audio, gain_per_block: Floats, out: Audio | None = None,
               check: Callable[[], None] | None = None) -> Audio:
    """Multiply audio (frames × channels) by a per-block gain curve, interpolated per frame, a chunk
    at a time, channel by channel (into `out`, which may be `audio`); `check` is called every chunk."""
    target = out if out is not None else audio
    frames = len(audio)
    for first in range(0, frames, _GAIN_CHUNK):
        if check is not None:
            check()
        n = min(_GAIN_CHUNK, frames - first)
        g = block_ramp(gain_per_block, first, n)
        for src, dst in zip(audio[first : first + n].T, target[first : first + n].T, strict=True):
            np.multiply(src, g, out=dst)
    return target


# ----------------------------------------------------------------------------- delays

def _recur(padded: npt.NDArray[np.float32], delay: int, gain: float) -> None:
    """In place on `padded` (a whole number of rows one delay long): y[n] = x[n] + gain·y[n-delay].

    Vectorized: a group of rows is solved at once with a scaled cumulative sum (row k of a group:
    y_k = g^k · (g·carry + Σ_{j≤k} x_j · g^-j)); groups hold about 32k samples and few enough rows
    that g^-rows stays far inside float32."""
    rows = len(padded) // delay
    group = max(1, min(32768 // delay, int(24 / math.log10(1 / gain)))) if 0 < gain < 1 else 1
    grid = padded.reshape(rows, delay, *padded.shape[1:])
    powers = (gain ** np.arange(group, dtype=np.float64)).astype(np.float32)
    powers = powers.reshape(group, *([1] * (grid.ndim - 1)))
    inverse = (1.0 / powers).astype(np.float32)
    work = np.empty((group, *grid.shape[1:]), dtype=np.float32)
    carry = np.zeros(grid.shape[1:], dtype=np.float32)
    for first in range(0, rows, group):
        block = grid[first : first + group]
        m = len(block)
        w = work[:m]
        np.multiply(block, inverse[:m], out=w)
        w[0] += gain * carry
        np.cumsum(w, axis=0, out=w)
        np.multiply(w, powers[:m], out=block)
        carry = block[-1]


def feedback_echo(audio: Audio, delay: int, feedback: float) -> Audio:
    """The echoes of a feedback delay: w[n] = x[n − d] + feedback · w[n − d]."""
    n = len(audio)
    delay = max(1, delay)
    rows = -(-(n + delay) // delay)
    padded = np.zeros((rows * delay, audio.shape[1]), dtype=np.float32)
    padded[delay : delay + n] = audio
    if feedback > 0:
        _recur(padded, delay, feedback)
    return padded[:n]
