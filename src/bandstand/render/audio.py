"""Song or MIDI file → WAV: General MIDI synthesis with TinySoundFont
(`bandstand.render.synth`), then a light stereo reverb and peak
normalization. 44.1 kHz, 16-bit stereo.

After synthesis the output stage touches the big buffer as few times as it
can: one pass averages it down to the reverb's quarter-rate mono input, one
pass (a block at a time) adds the held-up tail to both channels and finds the
peak, and one pass scales, rounds and writes 16-bit PCM."""

from __future__ import annotations

import math
import os
import wave
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import numpy.typing as npt

from bandstand.files import atomic_open
from bandstand.render.synth import TAIL_SECONDS, Audio, default_workers, synthesize
from bandstand.score import Song

__all__ = ["PEAK", "TAIL_SECONDS", "normalize", "render_wav", "reverb", "synthesize", "write_wav"]

PEAK = 0.89  # -1 dBFS
REVERB_WET = 0.3
REVERB_DECIMATION = 4  # the reverb runs on a mono mix at 1/4 of the sample rate: tails are dark anyway
# Freeverb-style delays in samples at 44.1 kHz (parallel combs, then series allpasses).
_COMBS = (1557, 1617, 1491, 1422)
_ALLPASSES = (556, 441)
_STEREO_SPREAD = 23  # the right channel hears the tail this many samples later
_COMB_FEEDBACK = 0.8
_ALLPASS_GAIN = 0.5
_BLOCK = 1 << 15  # frames per block when a pass over the whole song should stay in cache


def _recur(padded: npt.NDArray[np.float32], delay: int, gain: float) -> None:
    """In place on `padded` (a whole number of rows one delay long): y[n] = x[n] + gain·y[n-delay].

    Vectorized: a group of rows is solved at once with a scaled cumulative sum (row k of a group:
    y_k = g^k · (g·carry + Σ_{j≤k} x_j · g^-j); the carry rides in on the first row). Groups hold
    about 32k samples (they stay in cache), and few enough rows that g^-rows stays far inside float32."""
    rows = len(padded) // delay
    group = max(1, min(32768 // delay, int(24 / math.log10(1 / gain)))) if 0 < gain < 1 else 1
    grid = padded.reshape(rows, delay)
    powers = (gain ** np.arange(group, dtype=np.float64)).astype(np.float32)[:, None]
    inverse = (1.0 / powers).astype(np.float32)
    work = np.empty((group, delay), dtype=np.float32)
    carry = np.zeros(delay, dtype=np.float32)
    for first in range(0, rows, group):
        block = grid[first : first + group]
        m = len(block)
        w = work[:m]
        np.multiply(block, inverse[:m], out=w)
        w[0] += gain * carry
        np.cumsum(w, axis=0, out=w)
        np.multiply(w, powers[:m], out=block)
        carry = block[-1]


def _padded(n: int, delay: int) -> npt.NDArray[np.float32]:
    """An uninitialized buffer of whole rows one delay long, its part past `n` zeroed."""
    padded = np.empty(-(-n // delay) * delay, dtype=np.float32)
    padded[n:] = 0.0
    return padded


def _feedback(x: npt.NDArray[np.float32], delay: int, gain: float) -> npt.NDArray[np.float32]:
    """Feedback comb: y[n] = x[n] + gain·y[n-delay]."""
    n = len(x)
    padded = _padded(n, delay)
    padded[:n] = x
    _recur(padded, delay, gain)
    return padded[:n]


def _allpass(x: npt.NDArray[np.float32], delay: int, gain: float) -> npt.NDArray[np.float32]:
    """Schroeder allpass: y[n] = -g·x[n] + x[n-d] + g·y[n-d]."""
    n = len(x)
    padded = _padded(n, delay)
    np.multiply(x, np.float32(-gain), out=padded[:n])
    if delay < n:
        padded[delay:n] += x[: n - delay]
    _recur(padded, delay, gain)
    return padded[:n]


def _downmix(audio: Audio, k: int) -> npt.NDArray[np.float32]:
    """Mono average of each run of k stereo frames (the trailing frames that do not fill a run are left out).

    A matrix-vector product per cache-sized block: far faster than `.mean` over a short axis, and
    small enough that BLAS stays on this thread."""
    runs = len(audio) // k
    rows = audio[: runs * k].reshape(runs, 2 * k)
    weights = np.full(2 * k, 1 / (2 * k), dtype=np.float32)
    mono = np.empty(runs, dtype=np.float32)
    step = _BLOCK // k
    for first in range(0, runs, step):
        np.dot(rows[first : first + step], weights, out=mono[first : first + step])
    return mono


def reverb_tail(audio: Audio, sample_rate: int = 44100) -> npt.NDArray[np.float32] | None:
    """The room's wet signal at 1/`REVERB_DECIMATION` of the sample rate (mono), or None when
    the audio is shorter than the longest comb. It is computed from a decimated mono mix
    (averaging, which also darkens it like air does)."""
    k = REVERB_DECIMATION
    if len(audio) - len(audio) % k < k * max(_COMBS):
        return None
    mono = _downmix(audio, k)
    scale = sample_rate / 44100 / k
    delays = [max(1, int(d * scale)) for d in _COMBS]
    # the combs are independent: numpy lets go of the interpreter lock inside each step, so they run
    # side by side on threads; they are summed in a fixed order, so the tail is the same either way
    with ThreadPoolExecutor(default_workers(), thread_name_prefix="bandstand-reverb") as pool:
        combs = list(pool.map(lambda d: _feedback(mono, d, _COMB_FEEDBACK), delays))
    wet = combs[0]
    for comb in combs[1:]:
        wet += comb
    wet *= REVERB_WET / len(_COMBS)
    for d in _ALLPASSES:
        wet = _allpass(wet, max(1, int(d * scale)), _ALLPASS_GAIN)
    return wet


def _peak(audio: Audio) -> float:
    return float(max(audio.max(initial=0.0), -audio.min(initial=0.0)))


def mix_tail(audio: Audio, wet: npt.NDArray[np.float32] | None) -> float:
    """Add the wet signal to `audio` in place, each sample held for `REVERB_DECIMATION` frames,
    the right channel `_STEREO_SPREAD` frames later than the left; returns the new peak level.

    One pass over the audio, a block at a time, so the sum and its peak are taken in cache."""
    if wet is None:
        return _peak(audio)
    k, spread, frames = REVERB_DECIMATION, _STEREO_SPREAD, len(audio)
    sounding = len(wet) * k  # frames that have a tail value
    segment = np.empty(_BLOCK + spread, dtype=np.float32)  # the tail at frames first - spread … first + m
    loudest = 0.0
    for first in range(0, frames, _BLOCK):
        block = audio[first : first + _BLOCK]
        m = len(block)
        lo, hi = first - spread, first + m
        seg = segment[: m + spread]
        a, b = max(lo, 0), min(hi, sounding)
        if a < b:
            seg[: a - lo] = 0.0
            seg[a - lo : b - lo] = np.repeat(wet[a // k : (b - 1) // k + 1], k)[a % k : a % k + b - a]
            seg[b - lo :] = 0.0
        else:
            seg[:] = 0.0
        block[:, 0] += seg[spread:]
        block[:, 1] += seg[:m]
        loudest = max(loudest, _peak(block))
    return loudest


def reverb(audio: Audio, sample_rate: int = 44100) -> Audio:
    """Mix a Freeverb-style room under the dry signal (in place, and returned)."""
    mix_tail(audio, reverb_tail(audio, sample_rate))
    return audio


def normalize(audio: Audio, peak: float = PEAK) -> Audio:
    """Scale in place so the loudest sample is `peak` (silence stays silent)."""
    loudest = _peak(audio)
    if loudest > 0.0:
        audio *= np.float32(peak / loudest)
    return audio


_WRITE_FRAMES = 1 << 16  # convert to PCM a block at a time: big temporaries are slow to fault in


def write_wav(audio: Audio, path: str | os.PathLike[str], sample_rate: int = 44100, *, gain: float = 1.0) -> Path:
    """Write float audio (frames × 2) times `gain` as 16-bit stereo PCM, atomically (clipped at ±1)."""
    block = np.empty((_WRITE_FRAMES, 2), dtype=np.float32)
    pcm = np.empty((_WRITE_FRAMES, 2), dtype="<i2")
    scale = np.float32(gain * 32767.0)
    with atomic_open(path, "wb") as fh, wave.open(fh, "wb") as wav:
        wav.setnchannels(2)
        wav.setsampwidth(2)
        wav.setframerate(sample_rate)
        for first in range(0, len(audio), _WRITE_FRAMES):
            chunk = audio[first : first + _WRITE_FRAMES]
            b, p = block[: len(chunk)], pcm[: len(chunk)]
            np.multiply(chunk, scale, out=b)
            np.clip(b, -32767.0, 32767.0, out=b)
            np.rint(b, out=b)
            p[:] = b
            wav.writeframes(p.data.cast("B"))
    return Path(path)


def render_wav(
    song_or_midi_path: Song | str | os.PathLike[str],
    out_path: str | os.PathLike[str],
    sample_rate: int = 44100,
    *,
    soundfont: Path | None = None,
    workers: int | None = None,
) -> Path:
    """Render a Song (or a .mid file) to a WAV with reverb, normalized to `PEAK`; returns the path.

    `workers` threads synthesize (default: one per channel group, at most one per CPU);
    the file is byte-identical for any number of them."""
    if isinstance(song_or_midi_path, Song):
        song = song_or_midi_path
    else:
        from bandstand.midi import read_midi

        song = read_midi(song_or_midi_path)
    audio = synthesize(song, sample_rate, soundfont, workers=workers)
    loudest = mix_tail(audio, reverb_tail(audio, sample_rate))
    return write_wav(audio, out_path, sample_rate, gain=PEAK / loudest if loudest > 0.0 else 1.0)
