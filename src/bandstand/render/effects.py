"""The effect processors: one entry per type of `bandstand.score.mix.EFFECTS`.

`PROCESSORS` is the one table the mixer looks effects up in (a test pins it to
`EFFECTS`). Most effects are **stages**: made once per chain with their state,
then called on consecutive chunks of a track (`stage(chunk, first)`, the chunk
channel-major — channels × frames, each channel contiguous — and `first` its
frame in the song), so a whole chain runs over a chunk while it is in cache. Filters are biquad cascades (`bandstand.render.iir`); modulation
reads the signal at a moving fractional delay from a short history; the delay
keeps a ring of its echoes. Dynamics (compressor, limiter) need the block peaks
of their whole input first: their entry gives the **gain** per block from those
peaks, which the chain then applies as a stage. The reverb is **whole**: it
convolves its input in one go (`bandstand.render.reverb`). Each entry also says
how long the effect rings after its input stops (`tail`), so a chain runs over
a track's sounding stretch plus that, not the whole song.

Automated numeric parameters arrive as per-block curves of the song in the
`Context` (`AUTOMATED` lists which parameters follow theirs); the rest take
their static value.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from bandstand.render.dsp import (
    BLOCK,
    Audio,
    Context,
    Floats,
    biquad,
    block_ramp,
    db,
    gain_reduction,
    limiter_gain,
    release,
    smooth,
)
from bandstand.render.iir import Cascade
from bandstand.render.reverb import decay_seconds, reverb
from bandstand.score.mix import Effect

__all__ = ["AUTOMATED", "PROCESSORS", "Processor", "Stage"]

Stage = Callable[[Audio, int], Audio]  # (channels × frames chunk, its first frame in the song) → the processed chunk


def _no_tail(fx: Effect, ctx: Context) -> float:
    return 0.0


@dataclass(frozen=True, slots=True)
class Processor:
    """How one effect type runs: as a `stage` (None when its settings change nothing), as a `gain`
    per block from the block peaks of its whole input, or `whole` over its input (channels ×
    frames) at once, in place; `tail` is how many seconds it rings after its input falls silent."""

    stage: Callable[[Effect, Context], Stage | None] | None = None
    gain: Callable[[Effect, Context, Floats], Floats] | None = None
    whole: Callable[[Audio, Effect, Context], None] | None = None
    tail: Callable[[Effect, Context], float] = _no_tail


def _blocks(first: int, frames: int) -> Floats:
    """The song's block numbers a chunk spans, and the next one (to interpolate towards)."""
    b0 = first // BLOCK
    return np.arange(b0, b0 + -(-frames // BLOCK) + 1, dtype=np.float64)


def _curve(fx: Effect, ctx: Context, name: str, blocks: int) -> Floats:
    """`blocks` values of a parameter from the block where the audio starts: its automation, or
    its static value."""
    got = ctx.curves.get(name)
    if got is None:
        return np.full(blocks, fx.num(name))
    at = np.minimum(np.arange(ctx.start // BLOCK, ctx.start // BLOCK + blocks), len(got) - 1)
    out: Floats = got[at]
    return out


def _blend(dry: Audio, wet: Audio, fx: Effect, ctx: Context, first: int, name: str = "mix") -> Audio:
    """Dry and wet crossfaded by the parameter `name` (its automation when it has one), in `wet`."""
    curve = ctx.curves.get(name)
    if curve is not None:
        amount = block_ramp(curve, first, dry.shape[-1])[None, :]
        wet *= amount
        wet += dry * (1 - amount)
        return wet
    mix = fx.num(name)
    if mix >= 1.0:
        return wet
    wet *= np.float32(mix)
    wet += dry * np.float32(1 - mix)
    return wet


class _Gain:
    """A stage multiplying by a per-block gain curve that starts at song block `b0`."""

    __slots__ = ("b0", "gain")

    def __init__(self, gain: Floats, start: int) -> None:
        self.gain, self.b0 = gain, start // BLOCK

    def __call__(self, chunk: Audio, first: int) -> Audio:
        chunk *= block_ramp(self.gain, first - self.b0 * BLOCK, chunk.shape[-1])[None, :]
        return chunk


def gain_stage(gain: Floats, start: int) -> Stage:
    """A stage applying `gain` (one value per block from song frame `start`), interpolated per frame."""
    return _Gain(gain, start)


# ----------------------------------------------------------------------------- filters

def _eq_sections(fx: Effect, sr: int) -> list[list[float]]:
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
    return sos


def eq(fx: Effect, ctx: Context) -> Stage | None:
    """High-pass at `low_cut_hz`, low shelf at 120 Hz, a peak at `mid_freq_hz`, high shelf at 8 kHz,
    low-pass at `high_cut_hz`; bands left at their neutral values are not computed."""
    sos = _eq_sections(fx, ctx.sample_rate)
    return Cascade(sos) if sos else None


def _q(resonance: float) -> float:
    return 0.7071 + 11.0 * resonance**2  # 0 → a flat Butterworth response, 1 → a sharp peak


_STEP = 4 * BLOCK  # frames between new coefficients of a moving filter


def filter_(fx: Effect, ctx: Context) -> Stage:
    """A resonant low-, high- or band-pass; cutoff and resonance follow their automation (new
    coefficients every 1,024 frames, the state carried over)."""
    kind, sr = str(fx.params["kind"]), ctx.sample_rate
    cascade = Cascade([biquad(kind, fx.num("cutoff_hz"), sr, _q(fx.num("resonance")))])
    cutoff, res = ctx.curves.get("cutoff_hz"), ctx.curves.get("resonance")
    if cutoff is None and res is None:
        return cascade
    blocks = len(cutoff if cutoff is not None else res)  # type: ignore[arg-type]

    def moving(chunk: Audio, first: int) -> Audio:
        for at in range(0, chunk.shape[-1], _STEP):
            b = min((first + at) // BLOCK + _STEP // BLOCK // 2, blocks - 1)
            c = float(cutoff[b]) if cutoff is not None else fx.num("cutoff_hz")
            r = float(res[b]) if res is not None else fx.num("resonance")
            cascade.retune([biquad(kind, c, sr, _q(r))])
            cascade(chunk[:, at : at + _STEP])
        return chunk

    return moving


def _filter_tail(fx: Effect, ctx: Context) -> float:
    """Until a resonant pole has rung down 120 dB (14 time constants Q / (π f)), at the lowest
    cutoff and the highest resonance the automation reaches."""
    cutoff, res = ctx.curves.get("cutoff_hz"), ctx.curves.get("resonance")
    lowest = min(fx.num("cutoff_hz"), float(cutoff.min()) if cutoff is not None and len(cutoff) else math.inf)
    top = max(fx.num("resonance"), float(res.max()) if res is not None and len(res) else 0.0)
    return min(4.0, 14.0 * _q(top) / (math.pi * max(lowest, 10.0)))


# ----------------------------------------------------------------------------- dynamics

def compressor(fx: Effect, ctx: Context, peaks: Floats) -> Floats:
    """Feed-forward compressor on the block peaks of both channels: soft knee, release that
    recovers 10 dB per `release_ms`, attack as a moving average over `attack_ms` (centred, so it
    starts a little ahead of the hit), then `makeup_db`. Returns the gain per block."""
    block_ms = 1000 * BLOCK / ctx.sample_rate
    target = gain_reduction(db(peaks), _curve(fx, ctx, "threshold_db", len(peaks)), fx.num("ratio"))
    held = release(target, 10.0 * block_ms / fx.num("release_ms"))
    shaped = smooth(held, max(1, round(fx.num("attack_ms") / block_ms)))
    out: Floats = 10 ** ((shaped + _curve(fx, ctx, "makeup_db", len(peaks))) / 20)
    return out


def limiter(fx: Effect, ctx: Context, peaks: Floats) -> Floats:
    """A look-ahead peak limiter at `threshold_db` with a linear-in-dB release: the gain per block."""
    block_ms = 1000 * BLOCK / ctx.sample_rate
    ceiling = 10 ** (_curve(fx, ctx, "threshold_db", len(peaks)) / 20)
    return limiter_gain(peaks, ceiling, 20.0 * block_ms / fx.num("release_ms"))


# ----------------------------------------------------------------------------- drive

def distortion(fx: Effect, ctx: Context) -> Stage:
    """Hard-ish saturation: tanh of the signal driven by `drive_db`, level kept near the input's."""
    drive = 10 ** (fx.num("drive_db") / 20)
    gain, level = np.float32(drive), np.float32(1 / math.sqrt(drive))

    def run(chunk: Audio, first: int) -> Audio:
        wet = np.tanh(chunk * gain)
        wet *= level
        return _blend(chunk, wet, fx, ctx, first)

    return run


def overdrive(fx: Effect, ctx: Context) -> Stage:
    """Soft, slightly asymmetric clipping (even harmonics, like a valve), then a tone low-pass
    from 1.2 kHz (`tone` 0) to 14 kHz (`tone` 1)."""
    drive = np.float32(1 + 15 * fx.num("drive"))
    bias, level, offset = np.float32(0.1), np.float32(1 / math.sqrt(float(drive))), np.float32(0.1 / 1.1)
    tone = Cascade([biquad("lowpass", 1200.0 * (14000.0 / 1200.0) ** fx.num("tone"), ctx.sample_rate)])

    def run(chunk: Audio, first: int) -> Audio:
        wet = chunk * drive
        wet += bias
        wet /= np.abs(wet) + 1
        wet -= offset
        wet *= level
        return _blend(chunk, tone(wet), fx, ctx, first)

    return run


# ----------------------------------------------------------------------------- modulation

def tremolo(fx: Effect, ctx: Context) -> Stage:
    """Volume rising and falling `rate_hz` times a second by up to `depth`; the LFO starts at its
    dip at time 0, so a tremolo at the beat rate ducks on every beat (a sidechain-style pump)."""
    rate, depth, curve = fx.num("rate_hz"), fx.num("depth"), ctx.curves.get("depth")

    def run(chunk: Audio, first: int) -> Audio:
        blocks = _blocks(first, chunk.shape[-1])
        amount = depth if curve is None else curve[np.minimum(blocks, len(curve) - 1).astype(np.int64)]
        gain = 1 - amount * (0.5 + 0.5 * np.cos(2 * math.pi * rate * blocks * BLOCK / ctx.sample_rate))
        chunk *= block_ramp(gain, 0, chunk.shape[-1])[None, :]
        return chunk

    return run


class _Swing:
    """The signal read at a delay swinging around `centre_ms` (the right channel a quarter cycle
    later), from a history of the frames before the chunk; with feedback, the loop unrolled into
    `taps` echoes (exact while the delay moves slowly, which it does)."""

    def __init__(self, centre_ms: float, sweep_ms: float, rate_hz: float, sr: int, taps: int = 1,
                 feedback: float = 0.0) -> None:
        self.centre, self.sweep = centre_ms * sr / 1000.0, sweep_ms * sr / 1000.0
        self.w, self.taps, self.feedback = 2 * math.pi * rate_hz / sr, taps, feedback
        self.history = np.zeros((2, math.ceil((self.centre + self.sweep) * taps) + 2), dtype=np.float32)

    def __call__(self, chunk: Audio, first: int) -> Audio:
        keep = self.history.shape[1]
        ext = np.concatenate([self.history, chunk], axis=1)
        n = chunk.shape[1]
        frames = np.arange(first, first + n, dtype=np.float64)
        base = np.arange(keep, keep + n, dtype=np.float64)
        wet = np.zeros_like(chunk)
        for ch in range(len(chunk)):
            delay = self.centre + self.sweep * np.sin(self.w * frames + ch * math.pi / 2)
            for k in range(1, self.taps + 1):
                pos = base - delay * k
                i = pos.astype(np.int64)
                frac = (pos - i).astype(np.float32)
                tap = ext[ch, i] * (1 - frac) + ext[ch, i + 1] * frac
                wet[ch] += tap * np.float32(self.feedback ** (k - 1))
        self.history = ext[:, n:].copy()
        return wet


def chorus(fx: Effect, ctx: Context) -> Stage:
    """One voice a little late and wavering (12 ms ± up to 6 ms), mixed under the dry signal."""
    swing = _Swing(12.0, 6.0 * fx.num("depth"), fx.num("rate_hz"), ctx.sample_rate)
    return lambda chunk, first: _blend(chunk, swing(chunk, first), fx, ctx, first)


def _flanger_taps(fb: float) -> int:
    return 1 if fb < 0.05 else min(4, 1 + math.ceil(math.log(0.05) / math.log(fb)))


def flanger(fx: Effect, ctx: Context) -> Stage:
    """A very short sweeping delay (1–7 ms) with feedback, mixed with the dry signal (comb sweeps)."""
    fb = fx.num("feedback")
    swing = _Swing(4.0, 3.0 * fx.num("depth"), fx.num("rate_hz"), ctx.sample_rate, _flanger_taps(fb), fb)
    return lambda chunk, first: _blend(chunk, swing(chunk, first), fx, ctx, first)


def _power(poly: list[float], n: int) -> Floats:
    out = np.array([1.0])
    for _ in range(n):
        out = np.convolve(out, poly)
    return out


def phaser(fx: Effect, ctx: Context) -> Stage:
    """Four first-order all-passes whose corner sweeps 200 Hz … 200·2^(4·depth) Hz, with
    feedback, mixed with the dry signal: notches that move. Per stretch of 1024 frames the
    all-pass chain with its feedback is one fourth-order filter (scipy.signal.lfilter, imported
    when a phaser first plays)."""
    from scipy.signal import lfilter

    sr, fb = ctx.sample_rate, fx.num("feedback")
    state = [np.zeros((2, 4))]  # float64: a fourth-order filter in one direct form is too touchy for float32

    def run(chunk: Audio, first: int) -> Audio:
        wet = np.empty_like(chunk)
        for at in range(0, chunk.shape[1], _STEP):
            lfo = math.sin(2 * math.pi * fx.num("rate_hz") * (first + at + _STEP / 2) / sr)
            corner = 200.0 * 2 ** (4 * fx.num("depth") * (0.5 + 0.5 * lfo))
            t = math.tan(math.pi * min(corner, 0.45 * sr) / sr)
            a = (t - 1) / (t + 1)
            b = _power([a, 1.0], 4)  # (a + z⁻¹)^4, coefficients of z⁰ … z⁻⁴
            d = _power([1.0, a], 4) - fb * b  # the all-passes inside a feedback loop: A / (1 − fb·A)
            wet[:, at : at + _STEP], state[0] = lfilter(b, d, chunk[:, at : at + _STEP], axis=1, zi=state[0])
        return _blend(chunk, wet, fx, ctx, first)

    return run


# ----------------------------------------------------------------------------- time

class _Echo:
    """The echoes of a feedback delay, w[n] = x[n − d] + g·w[n − d], a chunk at a time: a ring of
    the last d values of v = x + g·w (slot n mod d), so w[n] is what slot n mod d holds before
    frame n writes it."""

    def __init__(self, delay: int, feedback: float) -> None:
        self.ring = np.zeros((2, max(1, delay)), dtype=np.float32)
        self.g, self.slot = np.float32(feedback), 0

    def __call__(self, chunk: Audio) -> Audio:
        d, n = self.ring.shape[1], chunk.shape[1]
        echoes = np.empty_like(chunk)
        done = 0
        while done < n:
            m = min(n - done, d - self.slot)
            ring = self.ring[:, self.slot : self.slot + m]
            out = echoes[:, done : done + m]
            out[...] = ring
            np.multiply(out, self.g, out=ring)
            ring += chunk[:, done : done + m]
            done += m
            self.slot = (self.slot + m) % d
        return echoes


def delay(fx: Effect, ctx: Context) -> Stage:
    """A tempo-synced echo (`time_beats` at the song's tempo) with feedback; on a bus only the echoes."""
    echo = _Echo(round(fx.num("time_beats") * 60.0 / ctx.tempo * ctx.sample_rate), fx.num("feedback"))
    curve, mix = ctx.curves.get("mix"), np.float32(fx.num("mix"))

    def run(chunk: Audio, first: int) -> Audio:
        echoes = echo(chunk)
        echoes *= mix if curve is None else block_ramp(curve, first, chunk.shape[1])[None, :]
        if ctx.on_bus:
            return echoes
        chunk += echoes
        return chunk

    return run


def _delay_tail(fx: Effect, ctx: Context) -> float:
    """Until the echoes have fallen 120 dB."""
    fb = fx.num("feedback")
    repeats = 1 + (math.ceil(math.log(1e-6) / math.log(fb)) if fb > 0 else 0)
    return repeats * fx.num("time_beats") * 60.0 / ctx.tempo


def reverb_(audio: Audio, fx: Effect, ctx: Context) -> None:
    """A room (`bandstand.render.reverb`), in place: added to the signal, or on a bus instead of it."""
    curve, wet = ctx.curves.get("wet"), fx.num("wet")
    level = wet if curve is None else (lambda first, frames: block_ramp(curve, ctx.start + first, frames))
    reverb(audio, ctx.sample_rate, fx.num("room_size"), fx.num("damping"), fx.num("pre_delay_ms"), out=audio,
           add=not ctx.on_bus, level=level, scratch=ctx.scratch)


def _reverb_tail(fx: Effect, ctx: Context) -> float:
    return fx.num("pre_delay_ms") / 1000.0 + 2.0 * decay_seconds(fx.num("room_size"))


# The parameters whose automation the processors follow, by effect type.
AUTOMATED: Mapping[str, tuple[str, ...]] = {
    "filter": ("cutoff_hz", "resonance"), "compressor": ("threshold_db", "makeup_db"), "tremolo": ("depth",),
    "delay": ("mix",), "reverb": ("wet",), "distortion": ("mix",), "overdrive": ("mix",), "chorus": ("mix",),
    "phaser": ("mix",), "flanger": ("mix",), "limiter": ("threshold_db",),
}


def _seconds(value: float) -> Callable[[Effect, Context], float]:
    return lambda fx, ctx: value


PROCESSORS: Mapping[str, Processor] = {
    "reverb": Processor(whole=reverb_, tail=_reverb_tail),
    "delay": Processor(stage=delay, tail=_delay_tail),
    "compressor": Processor(gain=compressor),
    "eq": Processor(stage=eq, tail=_seconds(0.25)),
    "distortion": Processor(stage=distortion),
    "overdrive": Processor(stage=overdrive, tail=_seconds(0.05)),
    "filter": Processor(stage=filter_, tail=_filter_tail),
    "chorus": Processor(stage=chorus, tail=_seconds(0.05)),
    "tremolo": Processor(stage=tremolo),
    "phaser": Processor(stage=phaser, tail=_seconds(1.0)),
    "flanger": Processor(stage=flanger, tail=_seconds(0.05)),
    "limiter": Processor(gain=limiter),
}

