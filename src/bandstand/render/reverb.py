"""The reverb: a seeded, generated impulse response (exponentially decaying noise,
its highs dying sooner with more damping), convolved with the signal by FFT
(overlap-add: the input's blocks transformed once, multiplied by each channel's
response).

The room runs on a mono mix at a quarter of the sample rate (a tail has little
above 5 kHz, and a quarter of the samples is a sixteenth of the work), with a
different noise for the left and the right so the tail is wide; the result is
brought back to the full rate by linear interpolation, a stretch at a time
(both changes of rate compiled where numba runs: `bandstand.render.jit`, the same numbers).
The noise comes from a fixed seed, so a song always renders to the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from bandstand.render.dsp import Audio, biquad
from bandstand.render.iir import filter_sos, jit

if TYPE_CHECKING:
    from bandstand.render.scratch import Scratch

DECIMATION = 4
SEED = 1770


def decay_seconds(room_size: float) -> float:
    """RT60 of the room: 0.4 s for a small room (0) to 4 s for a hall (1)."""
    return 0.4 + 3.6 * room_size**2


@lru_cache(maxsize=8)
def impulse_response(sample_rate: int, room_size: float, damping: float) -> npt.NDArray[np.float32]:
    """Two channels (length × 2) of decaying noise at `sample_rate`, unit energy per channel.
    Below 1.5 kHz the tail takes `decay_seconds(room_size)` to fall 60 dB; above, less the more
    `damping`. A short fade-in stands for the early reflections building up."""
    rt_low = decay_seconds(room_size)
    rt_high = rt_low * (1.0 - 0.75 * damping)
    length = int(rt_low * sample_rate)
    rng = np.random.default_rng(SEED)
    noise = rng.standard_normal((length, 2))
    low = filter_sos(noise, [biquad("lowpass", 1500.0, sample_rate)])
    high = noise - low
    t = np.arange(length) / sample_rate
    # amplitude falls 60 dB over the decay time: exp(-6.91 t / rt)
    ir = low * np.exp(-6.91 * t / rt_low)[:, None] + high * np.exp(-6.91 * t / rt_high)[:, None]
    build = min(length, int(0.012 * sample_rate))
    ir[:build] *= np.linspace(0.0, 1.0, build)[:, None]
    ir /= np.sqrt((ir**2).sum(axis=0, keepdims=True))
    out: npt.NDArray[np.float32] = ir.astype(np.float32)
    return out


def downmix(audio: npt.NDArray[np.float32], k: int, out: npt.NDArray[np.float32]) -> None:
    """Each run of `k` frames of `audio` (channels × frames) averaged over its samples and channels
    into `out` — the compiled kernel's sums in its order (each channel's run from its first sample,
    then the channels in turn, divided once), so both give the same bits. (numpy's own
    `mean(axis=(0, 2))` orders its sums by the array's strides: an ulp apart, now and then.)"""
    runs = out.shape[0]
    parts = np.zeros((len(audio), runs), dtype=np.float32)
    for j in range(k):  # left to right, as the kernel adds them
        parts += audio[:, j : runs * k : k]
    total = parts[0].copy()
    for row in parts[1:]:
        total += row
    np.divide(total, np.float32(len(audio) * k), out=out)


def _zeros(scratch: Scratch | None, shape: tuple[int, ...]) -> npt.NDArray[np.float32]:
    return np.zeros(shape, dtype=np.float32) if scratch is None else scratch.zeros(shape)


def _step(scratch: Scratch | None) -> None:
    if scratch is not None:
        scratch.tick()


def convolve(x: npt.NDArray[np.float32], response: npt.NDArray[np.float32],
             scratch: Scratch | None = None) -> npt.NDArray[np.float32]:
    """The first len(x) samples of x (one channel) convolved with each channel of `response`
    (length × channels), channel-major (channels × len(x)): overlap-add with FFTs four times the
    response's length, the input's blocks transformed once for all channels, a group of blocks at
    a time (its buffers in `scratch` when given, which ticks every group)."""
    n, m, channels = len(x), len(response), response.shape[1]
    if n == 0 or m == 0:
        return np.zeros((channels, n), dtype=np.float32)
    size = 1 << max(4, (m - 1).bit_length() + 2)
    step = size - m + 1  # ≥ 3/4 of the transform: the part of each block's result that overlaps the next is shorter
    spectrum = np.fft.rfft(response, size, axis=0)
    blocks = -(-n // step)
    padded = _zeros(scratch, ((blocks + 1) * step,))
    for p0 in range(0, n, _UP * 4):
        padded[p0 : min(n, p0 + _UP * 4)] = x[p0 : p0 + _UP * 4]
        _step(scratch)
    rows = _zeros(scratch, (channels, blocks + 1, step))
    over = size - step
    group = 64 if scratch is None else 2  # blocks transformed at once (each block's FFT is its own)
    for g0 in range(0, blocks, group):
        _step(scratch)
        g1 = min(blocks, g0 + group)
        spectra = np.fft.rfft(padded[g0 * step : g1 * step].reshape(g1 - g0, step), size, axis=1)
        for ch in range(channels):
            y = np.fft.irfft(spectra * spectrum[:, ch][None, :], size, axis=1).astype(np.float32, copy=False)
            rows[ch, g0:g1] += y[:, :step]
            rows[ch, g0 + 1 : g1 + 1, :over] += y[:, step:]
    out: npt.NDArray[np.float32] = rows.reshape(channels, -1)[:, :n]
    return out


_UP = 1 << 13  # quarter-rate frames brought back to the full rate per step (32,768 frames: a multiple of BLOCK)

Level = Callable[[int, int], "npt.NDArray[np.float32] | float"]  # (first frame, frames) → gain per frame, or one gain


def reverb(audio: Audio, sample_rate: int, room_size: float, damping: float, pre_delay_ms: float, *,
           out: Audio | None = None, add: bool = False, level: Level | float = 1.0,
           scratch: Scratch | None = None) -> Audio:
    """The reverberated signal only (no dry) of `audio` (channels × frames), as long as it, times
    `level` (a number, or the gain per frame of each stretch); written into `out` (a new array by
    default; it may be `audio` itself), replacing what it holds or, with `add`, added to it.
    Returns `out`. With `scratch`, its quarter-rate buffers live there and it ticks as it goes
    (`bandstand.render.scratch`): the same numbers, in flat memory."""
    k = DECIMATION
    frames = audio.shape[1]
    runs = frames // k
    target = np.zeros_like(audio) if out is None else out
    if runs < 2:
        if not add:
            target[...] = 0.0
        return target
    kernels = jit() if audio.dtype == np.float32 and audio.strides[-1] == audio.itemsize else None
    if scratch is None and kernels is None:
        mono = np.empty(runs, dtype=np.float32)
        downmix(audio[:, : runs * k], k, mono)
    else:  # the same means, a stretch at a time (compiled: one pass, the same sums)
        mono = _zeros(scratch, (runs,))
        for r0 in range(0, runs, _UP):
            r1 = min(runs, r0 + _UP)
            if kernels is not None:
                kernels.downmix(audio[:, r0 * k : r1 * k], k, mono[r0:r1])
            else:
                downmix(audio[:, r0 * k : r1 * k], k, mono[r0:r1])
            _step(scratch)
    return room(mono, sample_rate, room_size, damping, pre_delay_ms, target, add=add, level=level, scratch=scratch)


def room(mono: npt.NDArray[np.float32], sample_rate: int, room_size: float, damping: float, pre_delay_ms: float,
         target: Audio, *, add: bool = False, level: Level | float = 1.0, scratch: Scratch | None = None) -> Audio:
    """The room's sound of `mono` — a signal already mixed down to one channel at a quarter of
    `sample_rate` (`DECIMATION`), one value per run of four frames of `target` — brought back to
    the full rate, times `level`, written into `target` (channels × frames; from run
    len(mono) × 4 on it is silence) or, with `add`, added to it. `reverb` is this after its
    downmix; a bus whose chain is one reverb is given its senders' downmixes summed
    (`bandstand.render.mixer`), without a full-rate input at all. Returns `target`."""
    k = DECIMATION
    runs = len(mono)
    if runs < 2:
        if not add:
            target[...] = 0.0
        return target
    kernels = jit() if target.dtype == np.float32 and target.strides[-1] == target.itemsize else None
    rate = sample_rate // k
    ir = impulse_response(rate, round(room_size, 3), round(damping, 3))
    shift = min(runs, int(pre_delay_ms / 1000.0 * rate))
    wet_low = _zeros(scratch, (2, runs + 1))
    tail = convolve(mono[: runs - shift], ir, scratch)
    for r0 in range(0, runs - shift, _UP):
        wet_low[:, shift + r0 : shift + min(runs - shift, r0 + _UP)] = tail[:, r0 : r0 + _UP]
        _step(scratch)
    wet_low[:, runs] = wet_low[:, runs - 1]
    # back to the full rate: linear interpolation between the quarter-rate samples, a stretch at a time
    ramp = (np.arange(k, dtype=np.float32) / k)[None, None, :]
    for r0 in range(0, runs, _UP):
        _step(scratch)
        w = wet_low[:, r0 : min(runs, r0 + _UP) + 1]
        a, b = r0 * k, (r0 + w.shape[1] - 1) * k
        if scratch is not None:
            scratch.ready(target[:, a:b])
        gain = level(a, b - a) if callable(level) else level
        if kernels is not None:  # the steps below in one pass, the same numbers
            gains = gain if isinstance(gain, np.ndarray) else np.array([gain], dtype=np.float32)
            kernels.upsample(w, ramp[0, 0], np.ascontiguousarray(gains, dtype=np.float32), target[:, a:b], add)
            continue
        wet = (w[:, :-1, None] + (w[:, 1:] - w[:, :-1])[:, :, None] * ramp).reshape(2, -1)
        if isinstance(gain, np.ndarray):
            wet *= gain[None, :]
        elif gain != 1.0:
            wet *= np.float32(gain)
        if add:
            target[:, a:b] += wet
        else:
            target[:, a:b] = wet
    if not add:
        target[:, runs * k :] = 0.0
    return target
