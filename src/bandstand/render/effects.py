"""The effect processors: one function per type of `bandstand.score.mix.EFFECTS`,
each turning stereo audio and the effect's parameters into processed audio.

`PROCESSORS` is the one table the mixer looks effects up in (a test pins it to
`EFFECTS`). Filters are scipy.signal biquads; dynamics are gain curves computed
per block from block peaks; the reverb convolves with a seeded, generated
impulse response (`bandstand.render.reverb`); modulation effects read the signal
at a moving fractional delay. Automated numeric parameters arrive as per-block
curves in the `Context` (`AUTOMATED` lists which parameters follow theirs);
the rest take their static value.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np

from bandstand.render.dsp import (
    BLOCK,
    Audio,
    Context,
    Floats,
    apply_gain,
    biquad,
    block_peaks,
    feedback_echo,
    filter_sos,
    filter_varying,
    moving_min,
    per_frame,
    read_delayed,
    release,
    smooth,
)
from bandstand.render.reverb import reverb
from bandstand.score.mix import Effect

__all__ = ["AUTOMATED", "PROCESSORS", "Processor", "process"]

Processor = Callable[[Audio, Effect, Context], Audio]
_CHUNK = 1 << 15  # frames per step of an elementwise pass (stays in cache)


def _curve(effect: Effect, ctx: Context, name: str, blocks: int) -> Floats:
    got = ctx.curves.get(name)
    return got if got is not None else np.full(blocks, effect.num(name))


def _mix(dry: Audio, wet: Audio, fx: Effect, ctx: Context, name: str = "mix") -> Audio:
    """Dry and wet crossfaded by the parameter `name` (its automation when it has one)."""
    curve = ctx.curves.get(name)
    if curve is not None:
        amount = per_frame(curve, len(dry))[:, None]
        varying: Audio = dry * (1 - amount) + wet * amount
        return varying
    mix = fx.num(name)
    if mix >= 1.0:
        return wet
    keep, add = np.float32(1 - mix), np.float32(mix)
    work = np.empty((_CHUNK, dry.shape[1]), dtype=np.float32)
    for first in range(0, len(dry), _CHUNK):  # in place in `wet`, a chunk at a time (no new song-long arrays)
        d, w = dry[first : first + _CHUNK], wet[first : first + _CHUNK]
        t = work[: len(d)]
        np.multiply(d, keep, out=t)
        w *= add
        w += t
    return wet


def _scaled(wet: Audio, fx: Effect, ctx: Context, name: str) -> Audio:
    """The wet signal times the parameter `name` (its automation when it has one)."""
    curve = ctx.curves.get(name)
    if curve is not None:
        return apply_gain(wet, curve)
    wet *= np.float32(fx.num(name))
    return wet


# ----------------------------------------------------------------------------- filters

def eq(audio: Audio, fx: Effect, ctx: Context) -> Audio:
    """High-pass at `low_cut_hz`, low shelf at 120 Hz, a peak at `mid_freq_hz`, high shelf at 8 kHz,
    low-pass at `high_cut_hz`; bands left at their neutral values are not computed."""
    sr = ctx.sample_rate
    sos = []
    if fx.num("low_cut_hz") > 20.0:
        sos.append(biquad("highpass", fx.num("low_cut_hz"), sr))
    if fx.num("low_gain_db"):
        sos.append(biquad("lowshelf", 120.0, sr, gain_db=fx.num("low_gain_db")))
    if fx.num("mid_gain_db"):
        sos.append(biquad("peak", fx.num("mid_freq_hz"), sr, q=1.0, gain_db=fx.num("mid_gain_db")))
    if fx.num("high_gain_db"):
        sos.append(biquad("highshelf", 8000.0, sr, gain_db=fx.num("high_gain_db")))
    if fx.num("high_cut_hz") < 20000.0:
        sos.append(biquad("lowpass", fx.num("high_cut_hz"), sr))
    return filter_sos(audio, sos)


def _q(resonance: float) -> float:
    return 0.7071 + 11.0 * resonance**2  # 0 → a flat Butterworth response, 1 → a sharp peak


def filter_(audio: Audio, fx: Effect, ctx: Context) -> Audio:
    """A resonant low-, high- or band-pass; cutoff and resonance follow their automation."""
    kind = str(fx.params["kind"])
    if "cutoff_hz" not in ctx.curves and "resonance" not in ctx.curves:
        return filter_sos(audio, [biquad(kind, fx.num("cutoff_hz"), ctx.sample_rate, _q(fx.num("resonance")))])
    blocks = ctx.blocks(len(audio))
    cutoff = _curve(fx, ctx, "cutoff_hz", blocks)
    res = _curve(fx, ctx, "resonance", blocks)
    return filter_varying(audio, lambda b: [biquad(kind, float(cutoff[b]), ctx.sample_rate, _q(float(res[b])))],
                          blocks)


# ----------------------------------------------------------------------------- dynamics

def gain_reduction(peaks_db: Floats, threshold_db: float | Floats, ratio: float, knee_db: float = 6.0) -> Floats:
    """The static curve of a compressor: dB of gain (≤ 0) for each level, with a soft knee."""
    over = peaks_db - threshold_db
    slope = 1.0 / ratio - 1.0
    soft = slope * (over + knee_db / 2) ** 2 / (2 * knee_db)
    out: Floats = np.where(over <= -knee_db / 2, 0.0, np.where(over >= knee_db / 2, slope * over, soft))
    return out


def _db(values: Floats) -> Floats:
    out: Floats = 20 * np.log10(np.maximum(values, 1e-9))
    return out


def compressor(audio: Audio, fx: Effect, ctx: Context) -> Audio:
    """Feed-forward compressor on the block peaks of both channels: soft knee, release that
    recovers 10 dB per `release_ms`, attack as a moving average over `attack_ms` (centred, so it
    starts a little ahead of the hit), then `makeup_db`."""
    block_ms = 1000 * BLOCK / ctx.sample_rate
    peaks = block_peaks(audio)
    threshold = _curve(fx, ctx, "threshold_db", len(peaks))
    target = gain_reduction(_db(peaks), threshold, fx.num("ratio"))
    held = release(target, 10.0 * block_ms / fx.num("release_ms"))
    shaped = smooth(held, max(1, round(fx.num("attack_ms") / block_ms)))
    makeup = _curve(fx, ctx, "makeup_db", len(peaks))
    return apply_gain(audio, 10 ** ((shaped + makeup) / 20), out=np.empty_like(audio))


def limiter_gain(peaks: Floats, ceiling: float, release_db_per_block: float, lookahead: int = 2) -> Floats:
    """The gain (linear, per block) that keeps every block at or under `ceiling`: the block's need,
    the minimum over the block before and `lookahead` blocks ahead (so interpolating between two
    block gains never overshoots), released no faster than the given rate."""
    need = _db(np.minimum(1.0, ceiling / np.maximum(peaks, 1e-9)))
    held = release(moving_min(need, 1, lookahead), release_db_per_block)
    out: Floats = 10 ** (held / 20)
    return out


def limiter(audio: Audio, fx: Effect, ctx: Context) -> Audio:
    """A look-ahead peak limiter at `threshold_db` with a linear-in-dB release."""
    block_ms = 1000 * BLOCK / ctx.sample_rate
    peaks = block_peaks(audio)
    ceiling = 10 ** (_curve(fx, ctx, "threshold_db", len(peaks)) / 20)
    gain = limiter_gain(peaks, ceiling, 20.0 * block_ms / fx.num("release_ms"))  # type: ignore[arg-type]
    return apply_gain(audio, gain, out=np.empty_like(audio))


# ----------------------------------------------------------------------------- drive

def distortion(audio: Audio, fx: Effect, ctx: Context) -> Audio:
    """Hard-ish saturation: tanh of the signal driven by `drive_db`, level kept near the input's."""
    drive = 10 ** (fx.num("drive_db") / 20)
    wet = np.tanh(audio * np.float32(drive)) * np.float32(1 / math.sqrt(drive))
    return _mix(audio, wet.astype(np.float32), fx, ctx)


def overdrive(audio: Audio, fx: Effect, ctx: Context) -> Audio:
    """Soft, slightly asymmetric clipping (even harmonics, like a valve), then a tone low-pass
    from 1.2 kHz (`tone` 0) to 14 kHz (`tone` 1). The clipping runs a chunk at a time."""
    drive = np.float32(1 + 15 * fx.num("drive"))
    bias, level = np.float32(0.1), np.float32(1 / math.sqrt(float(drive)))
    wet = np.empty_like(audio)
    work = np.empty((_CHUNK, audio.shape[1]), dtype=np.float32)
    for first in range(0, len(audio), _CHUNK):
        x = audio[first : first + _CHUNK]
        n = len(x)
        w, out = work[:n], wet[first : first + n]
        np.multiply(x, drive, out=out)
        out += bias
        np.abs(out, out=w)
        w += 1
        np.divide(out, w, out=out)
        out -= np.float32(0.1 / 1.1)
        out *= level
    cutoff = 1200.0 * (14000.0 / 1200.0) ** fx.num("tone")
    wet = filter_sos(wet, [biquad("lowpass", cutoff, ctx.sample_rate)])
    return _mix(audio, wet, fx, ctx)


# ----------------------------------------------------------------------------- modulation

def _lfo(frames: int, rate_hz: float, sample_rate: int, phase: float = 0.0) -> Floats:
    t = np.arange(frames, dtype=np.float64) / sample_rate
    out: Floats = np.sin(2 * math.pi * rate_hz * t + phase)
    return out


def tremolo(audio: Audio, fx: Effect, ctx: Context) -> Audio:
    """Volume rising and falling `rate_hz` times a second by up to `depth`; the LFO starts at its
    dip at time 0, so a tremolo at the beat rate ducks on every beat (a sidechain-style pump)."""
    blocks = ctx.blocks(len(audio))
    t = np.arange(blocks, dtype=np.float64) * BLOCK / ctx.sample_rate
    gain = 1 - _curve(fx, ctx, "depth", blocks) * (0.5 + 0.5 * np.cos(2 * math.pi * fx.num("rate_hz") * t))
    return apply_gain(audio, gain, out=np.empty_like(audio))


def _modulated(audio: Audio, centre_ms: float, sweep_ms: float, rate_hz: float, sr: int,
               taps: int = 1, feedback: float = 0.0) -> Audio:
    """The signal read at a delay swinging around `centre_ms` (the right channel a quarter cycle
    later); with feedback, the loop is unrolled into `taps` echoes (exact while the delay moves
    slowly, which it does)."""
    out = np.zeros_like(audio)
    for ch in range(audio.shape[1]):
        lfo = _lfo(len(audio), rate_hz, sr, phase=ch * math.pi / 2)
        delay = (centre_ms + sweep_ms * lfo) * sr / 1000.0
        for k in range(1, taps + 1):
            out[:, ch] += read_delayed(audio[:, ch], delay * k) * np.float32(feedback ** (k - 1))
    return out


def chorus(audio: Audio, fx: Effect, ctx: Context) -> Audio:
    """One voice a little late and wavering (12 ms ± up to 6 ms), mixed under the dry signal."""
    wet = _modulated(audio, 12.0, 6.0 * fx.num("depth"), fx.num("rate_hz"), ctx.sample_rate)
    return _mix(audio, wet, fx, ctx)


def flanger(audio: Audio, fx: Effect, ctx: Context) -> Audio:
    """A very short sweeping delay (1–7 ms) with feedback, mixed with the dry signal (comb sweeps)."""
    fb = fx.num("feedback")
    taps = 1 if fb < 0.05 else min(4, 1 + math.ceil(math.log(0.05) / math.log(fb)))
    wet = _modulated(audio, 4.0, 3.0 * fx.num("depth"), fx.num("rate_hz"), ctx.sample_rate, taps, fb)
    return _mix(audio, wet, fx, ctx)


def _power(poly: list[float], n: int) -> Floats:
    out = np.array([1.0])
    for _ in range(n):
        out = np.convolve(out, poly)
    return out


def phaser(audio: Audio, fx: Effect, ctx: Context) -> Audio:
    """Four first-order all-passes whose corner sweeps 200 Hz … 200·2^(4·depth) Hz, with
    feedback, mixed with the dry signal: notches that move. Per stretch of 1024 frames the
    all-pass chain with its feedback is one fourth-order filter (scipy.signal.lfilter)."""
    from bandstand.render.dsp import signal

    sig = signal()
    sr, fb, step = ctx.sample_rate, fx.num("feedback"), 4 * BLOCK
    out = np.empty_like(audio)
    zi = np.zeros((4, audio.shape[1]), dtype=np.float32)
    for first in range(0, len(audio), step):
        lfo = math.sin(2 * math.pi * fx.num("rate_hz") * (first + step / 2) / sr)
        corner = 200.0 * 2 ** (4 * fx.num("depth") * (0.5 + 0.5 * lfo))
        t = math.tan(math.pi * min(corner, 0.45 * sr) / sr)
        a = (t - 1) / (t + 1)
        b = _power([a, 1.0], 4)  # (a + z⁻¹)^4, coefficients of z⁰ … z⁻⁴
        d = _power([1.0, a], 4) - fb * b  # the all-passes inside a feedback loop: A / (1 − fb·A)
        seg = audio[first : first + step]
        out[first : first + step], zi = sig.lfilter(b.astype(np.float32), d.astype(np.float32), seg, axis=0,
                                                    zi=zi)
    return _mix(audio, out, fx, ctx)


# ----------------------------------------------------------------------------- time

def delay(audio: Audio, fx: Effect, ctx: Context) -> Audio:
    """A tempo-synced echo (`time_beats` at the song's tempo) with feedback; on a bus only the echoes."""
    frames = round(fx.num("time_beats") * 60.0 / ctx.tempo * ctx.sample_rate)
    echoes = _scaled(feedback_echo(audio, frames, fx.num("feedback")), fx, ctx, "mix")
    return echoes if ctx.on_bus else audio + echoes


def reverb_(audio: Audio, fx: Effect, ctx: Context) -> Audio:
    """A room (`bandstand.render.reverb`); on a bus only the reverberated signal comes back."""
    wet = reverb(audio, ctx.sample_rate, fx.num("room_size"), fx.num("damping"), fx.num("pre_delay_ms"))
    wet = _scaled(wet, fx, ctx, "wet")
    return wet if ctx.on_bus else audio + wet


# The parameters whose automation the processors follow, by effect type.
AUTOMATED: Mapping[str, tuple[str, ...]] = {
    "filter": ("cutoff_hz", "resonance"), "compressor": ("threshold_db", "makeup_db"), "tremolo": ("depth",),
    "delay": ("mix",), "reverb": ("wet",), "distortion": ("mix",), "overdrive": ("mix",), "chorus": ("mix",),
    "phaser": ("mix",), "flanger": ("mix",), "limiter": ("threshold_db",),
}

PROCESSORS: Mapping[str, Processor] = {
    "reverb": reverb_,
    "delay": delay,
    "compressor": compressor,
    "eq": eq,
    "distortion": distortion,
    "overdrive": overdrive,
    "filter": filter_,
    "chorus": chorus,
    "tremolo": tremolo,
    "phaser": phaser,
    "flanger": flanger,
    "limiter": limiter,
}


def process(audio: Audio, effect: Effect, ctx: Context) -> Audio:
    """Run one effect (a bypassed one leaves the audio as it is)."""
    if effect.bypass:
        return audio
    return PROCESSORS[effect.type](audio, effect, ctx)

