"""The reverb: a seeded, generated impulse response (exponentially decaying noise,
its highs dying sooner with more damping), convolved with the signal by
scipy.signal.oaconvolve.

The room runs on a mono mix at a quarter of the sample rate (a tail has little
above 5 kHz, and a quarter of the samples is a sixteenth of the work), with a
different noise for the left and the right so the tail is wide; the result is
brought back to the full rate by linear interpolation. The noise comes from a
fixed seed, so a song always renders to the same bytes.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import numpy.typing as npt

from bandstand.render.dsp import Audio, biquad, signal

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
    low = signal().sosfilt([biquad("lowpass", 1500.0, sample_rate)], noise, axis=0)
    high = noise - low
    t = np.arange(length) / sample_rate
    # amplitude falls 60 dB over the decay time: exp(-6.91 t / rt)
    ir = low * np.exp(-6.91 * t / rt_low)[:, None] + high * np.exp(-6.91 * t / rt_high)[:, None]
    build = min(length, int(0.012 * sample_rate))
    ir[:build] *= np.linspace(0.0, 1.0, build)[:, None]
    ir /= np.sqrt((ir**2).sum(axis=0, keepdims=True))
    out: npt.NDArray[np.float32] = ir.astype(np.float32)
    return out


def reverb(audio: Audio, sample_rate: int, room_size: float, damping: float, pre_delay_ms: float) -> Audio:
    """The reverberated signal only (no dry), as long as `audio`."""
    k = DECIMATION
    frames = len(audio)
    runs = frames // k
    if runs < 2:
        return np.zeros_like(audio)
    mono = audio[: runs * k].reshape(runs, k * audio.shape[1]).mean(axis=1, dtype=np.float32)
    rate = sample_rate // k
    ir = impulse_response(rate, round(room_size, 3), round(damping, 3))
    sig = signal()
    shift = int(pre_delay_ms / 1000.0 * rate)
    wet_low = np.zeros((runs, 2), dtype=np.float32)
    for ch in range(2):
        tail = sig.oaconvolve(mono, ir[:, ch])[: runs - shift]
        wet_low[shift:, ch] = tail
    # back to the full rate: linear interpolation between the quarter-rate samples
    nxt = np.concatenate([wet_low[1:], wet_low[-1:]])
    ramp = (np.arange(k, dtype=np.float32) / k)[None, :, None]
    full = (wet_low[:, None, :] + (nxt - wet_low)[:, None, :] * ramp).reshape(runs * k, 2)
    out = np.zeros_like(audio)
    out[: runs * k] = full
    return out
