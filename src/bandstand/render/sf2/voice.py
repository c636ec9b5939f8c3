"""One sounding region of one note: a sample played at a pitch through a filter and envelopes.

A voice plays its region's sample with linear interpolation (looping between the loop
points, for a sustain loop only while the key is held), through TinySoundFont's resonant
lowpass (a biquad in transposed direct form II, its state carried), scaled by the volume
envelope and its note gain and panned with a square-root law. Pitch, filter cutoff and gain
may move with the modulation envelope and the two LFOs once per 64-sample block. `render`
plays a whole request at once in numpy (control values per block, sample positions per
sample as a cumulative sum of per-sample steps folded into the loop, the filter by scipy's
compiled biquad kernel or, for a moving cutoff, a banded LAPACK solve). The compiled engine
(`engine.py`) plays the same voices sample by sample; the two agree within float rounding
(about 1e-6 of full scale)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from bandstand.render.iir import kernel as sos_kernel
from bandstand.render.sf2.envelope import RELEASE, SUSTAIN, EnvelopeState, Lfo
from bandstand.render.sf2.parse import Region

__all__ = ["Voice", "db_to_gain", "gain_to_db"]

Audio = npt.NDArray[np.float32]
Floats = npt.NDArray[np.float64]


def _biquad(b: Sequence[float], a: Sequence[float], x: Floats, zi: Floats) -> tuple[Floats, Floats]:
    """The biquad (numerator `b`, denominator `a`, a[0] = 1) over `x` from state `zi`, in transposed
    direct form II: the outputs and the final state. Run by scipy's compiled second-order-section
    kernel as the mix loads it (`bandstand.render.iir`: without importing scipy.signal, which
    would cost a render about 50 MB of memory)."""
    y = np.array(x, dtype=np.float64, ndmin=2)
    state = np.array(zi, dtype=np.float64).reshape(1, 1, 2)
    sos_kernel()(np.array([[b[0], b[1], b[2], 1.0, a[1], a[2]]]), y, state)
    return y[0], state[0, 0]


def _varying_biquad(a0: Floats, b1: Floats, b2: Floats, x: Floats, zi: Floats) -> tuple[Floats, Floats]:
    """TinySoundFont's lowpass (transposed direct form II; numerator a0, 2·a0, a0; denominator
    1, b1, b2) with coefficients that change from sample to sample, from state `zi` (z1, z2):
    the outputs and the final state. Written out, the recursion is y[n] + b1[n-1]·y[n-1] +
    b2[n-2]·y[n-2] = a0[n]·x[n] + 2·a0[n-1]·x[n-1] + a0[n-2]·x[n-2] (the state carries the
    start), a lower-triangular banded system: LAPACK solves it by forward substitution in one
    call, however often the coefficients change."""
    n = len(x)
    if n == 0:
        return x.copy(), zi
    rhs = a0 * x
    rhs[1:] += 2.0 * a0[:-1] * x[:-1]
    rhs[2:] += a0[:-2] * x[:-2]
    rhs[0] += zi[0]
    if n > 1:
        rhs[1] += zi[1]
    band = np.empty((3, n))
    band[0] = 1.0
    band[1] = b1
    band[2] = b2
    from scipy.linalg.lapack import dtbtrs

    y, _ = dtbtrs(band, rhs[:, None], uplo="L", diag="U")  # unit diagonal: never singular
    y = y[:, 0]
    z2 = a0[-2] * x[-2] - b2[-2] * y[-2] if n > 1 else zi[1]  # the state before the last sample
    zf = np.array((2.0 * a0[-1] * x[-1] + z2 - b1[-1] * y[-1], a0[-1] * x[-1] - b2[-1] * y[-1]))
    return y, zf


def db_to_gain(db: float) -> float:
    """C's `powf(10, db * 0.05f)` (in double, rounded to float32), silence below -100 dB."""
    return float(np.float32(10.0 ** float(np.float32(db) * np.float32(0.05)))) if db > -100.0 else 0.0


def gain_to_db(gain: float) -> float:
    return -100.0 if gain <= 0.00001 else float(np.float32(20.0 * math.log10(gain)))


_CENTS_LIMIT = 120_000.0


def _cents_to_hertz(cents: float) -> float:
    return float(np.float32(8.176) * np.float32(2.0 ** float(np.float32(cents) / np.float32(1200.0))))


class Voice:
    """A region being played: where in the sample, the envelopes, the filter's state."""

    __slots__ = (
        "alive",
        "ampenv",
        "channel",
        "coeffs",
        "filter_on",
        "key",
        "loop_end",
        "loop_start",
        "modenv",
        "modlfo",
        "note_gain_db",
        "pan_left",
        "pan_right",
        "pitch_factor",
        "pitch_timecents",
        "play_index",
        "position",
        "preset",
        "q_inv",
        "rate",
        "region",
        "steady_fres",
        "sustained",
        "viblfo",
        "zi",
    )

    def __init__(self, region: Region, preset: int, key: int, velocity: float, channel: int, play_index: int,
                 gain_db: float, rate: float) -> None:
        midi_velocity = int(np.float32(velocity) * np.float32(127))
        self.region, self.preset, self.key, self.channel, self.play_index, self.rate = (
            region, preset, key, channel, play_index, rate)
        self.note_gain_db = float(np.float32(gain_db) - np.float32(region.attenuation)
                                  - np.float32(gain_to_db(1.0 / float(np.float32(velocity)))))
        self.pan_left = self.pan_right = 0.0
        self.pitch_timecents = self.pitch_factor = 0.0
        self.position = float(region.offset)
        looping = region.loop_mode != 0 and region.loop_start < region.loop_end
        self.loop_start = region.loop_start if looping else 0
        self.loop_end = region.loop_end if looping else 0
        self.ampenv = EnvelopeState(region.ampenv, key, midi_velocity, True, rate)
        self.modenv = EnvelopeState(region.modenv, key, midi_velocity, False, rate)
        fc = _cents_to_hertz(region.initial_filter_fc) / rate if region.initial_filter_fc <= 13500 else 1.0
        self.q_inv = 1.0 / 10.0 ** ((region.initial_filter_q / 10.0) / 20.0)
        self.zi = np.zeros(2, dtype=np.float64)
        self.filter_on = fc < 0.499
        self.coeffs = self._lowpass(fc) if self.filter_on else None
        self.steady_fres: np.float32 | None = None  # a moving cutoff that held still over the last request
        self.modlfo = Lfo(region.delay_mod_lfo, region.freq_mod_lfo, rate)
        self.viblfo = Lfo(region.delay_vib_lfo, region.freq_vib_lfo, rate)
        self.sustained = False  # let go while the sustain pedal was down: released when it comes up
        self.alive = True

    def _lowpass(self, fc: float) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
        k = math.tan(math.pi * float(np.float32(fc)))
        kk = k * k
        norm = 1.0 / (1.0 + k * self.q_inv + kk)
        a0 = kk * norm
        return (a0, 2.0 * a0, a0), (1.0, 2.0 * (kk - 1.0) * norm, (1.0 - k * self.q_inv + kk) * norm)

    def set_pan(self, pan: float) -> None:
        """Pan -0.5 (left) .. 0.5 (right), the region's own added, square-root law."""
        p = float(np.float32(self.region.pan) + np.float32(pan))
        if p <= -0.5:
            self.pan_left, self.pan_right = 1.0, 0.0
        elif p >= 0.5:
            self.pan_left, self.pan_right = 0.0, 1.0
        else:
            self.pan_left = float(np.sqrt(np.float32(0.5 - p)))
            self.pan_right = float(np.sqrt(np.float32(0.5 + p)))

    def set_pitch(self, shift: float) -> None:
        """The note's pitch, `shift` semitones off (bend and tuning)."""
        r = self.region
        note = self.key + r.transpose + r.tune / 100.0
        adjusted = r.pitch_keycenter + (note - r.pitch_keycenter) * (r.pitch_keytrack / 100.0)
        if shift:
            adjusted += float(np.float32(shift))
        # a damaged file's tuning can be absurd: keep the powers of two finite (±2^100)
        self.pitch_timecents = min(max(adjusted * 100.0, -_CENTS_LIMIT), _CENTS_LIMIT)
        centre = min(max(r.pitch_keycenter * 100.0, -_CENTS_LIMIT), _CENTS_LIMIT)
        self.pitch_factor = r.sample_rate / (2.0 ** (centre / 1200.0) * self.rate)

    def release(self) -> None:
        """The key is let go: envelopes release, a sustain loop plays out."""
        self.ampenv.next_segment(SUSTAIN)
        self.modenv.next_segment(SUSTAIN)
        if self.region.loop_mode == 2:
            self.loop_end = self.loop_start
        self.sustained = False

    def stop_quickly(self) -> None:
        self.ampenv.quick()
        self.modenv.quick()
        self.sustained = False

    @property
    def held(self) -> bool:
        return self.ampenv.segment < RELEASE

    def render(self, out: Audio, sizes: npt.NDArray[np.int64], starts: npt.NDArray[np.int64], samples: Audio) -> None:
        """Add one request's frames of this voice into `out` (frames × 2), reading the SoundFont's
        `samples`; the request is cut in blocks of these `sizes` (64 but the last), starting at
        `starts` (then the total); `alive` turns False when the voice ends."""
        r = self.region
        blocks = len(sizes)
        dyn_filter = bool(r.mod_lfo_to_filter_fc or r.mod_env_to_filter_fc)
        dyn_pitch = bool(r.mod_lfo_to_pitch or r.mod_env_to_pitch or r.vib_lfo_to_pitch)
        dyn_gain = r.mod_lfo_to_volume != 0
        still: npt.NDArray[np.float32] = np.zeros(blocks, dtype=np.float32)  # a signal nothing follows
        modenv = still
        amp, done_at = self.ampenv.advance(starts)
        if r.mod_env_to_pitch or r.mod_env_to_filter_fc:
            modenv, _ = self.modenv.advance(starts)
        modlfo = viblfo = still
        if self.modlfo.delta and (r.mod_lfo_to_pitch or r.mod_lfo_to_filter_fc or r.mod_lfo_to_volume):
            modlfo = self.modlfo.advance(sizes)
        if self.viblfo.delta and r.vib_lfo_to_pitch:
            viblfo = self.viblfo.advance(sizes)
        # blocks played: up to and including the one after which the volume envelope is done
        played = min(blocks, done_at + 1)
        n = int(starts[played])
        if dyn_pitch:
            f32 = np.float32
            moved = (modlfo.astype(f32) * f32(r.mod_lfo_to_pitch) + viblfo.astype(f32) * f32(r.vib_lfo_to_pitch)
                     + modenv.astype(f32) * f32(r.mod_env_to_pitch))
            cents = self.pitch_timecents + moved.astype(np.float64)
            ratios = np.repeat(np.power(2.0, cents[:played] / 1200.0) * self.pitch_factor, sizes[:played])
            steps = np.cumsum(ratios)
            positions = self.position + np.concatenate(([0.0], steps[:-1]))
            after = self.position + steps[-1] if n else self.position
        else:
            ratio = 2.0 ** (self.pitch_timecents / 1200.0) * self.pitch_factor
            positions = self.position + ratio * np.arange(n, dtype=np.float64)
            after = self.position + ratio * n
        looping = self.loop_start < self.loop_end
        # positions only grow until folded into the loop: what passes the loop's end, and the
        # sample's end, are suffixes found by bisection
        if looping:
            top = self.loop_end + 1.0
            span = self.loop_end - self.loop_start + 1.0
            first = int(np.searchsorted(positions, top, side="left"))
            if first < n:
                tail = positions[first:]
                tail -= self.loop_start
                np.mod(tail, span, out=tail)
                tail += self.loop_start
            if after >= top:
                after = self.loop_start + math.fmod(after - self.loop_start, span)
        # a sample that ends stops the voice at the end of that block; nothing past its end sounds
        if looping and self.loop_end + 1.0 <= r.end:
            m, ended = n, False
        else:
            hits = np.flatnonzero(positions >= r.end) if looping else None
            m = int(hits[0]) if hits is not None and len(hits) else (
                n if hits is not None else int(np.searchsorted(positions, r.end, side="left")))
            ended = m < n
        if ended:
            block = int(np.searchsorted(starts, m, side="right")) - 1
            played = min(played, block + 1)
        index = positions[:m].astype(np.int64)
        alpha = (positions[:m] - index).astype(np.float32)
        nxt = index + 1
        if looping:
            nxt[index >= self.loop_end] = self.loop_start
        values = samples[index] * (np.float32(1.0) - alpha) + samples[nxt] * alpha
        values = self._filter(values, sizes, starts, modlfo, modenv, dyn_filter, m)
        gain = np.repeat(self._gains(amp, modlfo, played, dyn_gain), sizes[:played], axis=0)[:m]
        out[:m] += values[:, None] * gain
        self.position = after
        if ended or done_at < blocks:
            self.alive = False

    def _gains(self, amp: npt.NDArray[np.float32], modlfo: npt.NDArray[Any], played: int,
               dynamic: bool) -> npt.NDArray[np.float32]:
        """The gain of each of the first `played` blocks, left and right (blocks × 2, float32):
        the note's gain (moving with the modulation LFO when `dynamic`) × envelope × pan."""
        f32 = np.float32
        if dynamic:  # the note's gain moves with the modulation LFO (dB), per block
            db = f32(self.note_gain_db) + modlfo[:played].astype(f32) * (f32(self.region.mod_lfo_to_volume) * f32(0.1))
            gains = np.where(db > -100.0, np.power(10.0, (db * f32(0.05)).astype(np.float64)), 0.0).astype(f32)
            mono = gains * amp[:played]
        else:
            mono = f32(db_to_gain(self.note_gain_db)) * amp[:played]
        pan = np.array((self.pan_left, self.pan_right), dtype=f32)
        result: npt.NDArray[np.float32] = mono[:, None] * pan
        return result

    def _held(self, values: Audio) -> Audio:
        """The lowpass at its last coefficients, its state carried (or nothing, while it is off)."""
        if not self.filter_on or self.coeffs is None:
            return values
        b, a = self.coeffs
        y, self.zi = _biquad(b, a, values.astype(np.float64), self.zi)
        return y.astype(np.float32)

    def _filter(self, values: Audio, sizes: npt.NDArray[np.int64], starts: npt.NDArray[np.int64],
                modlfo: npt.NDArray[Any], modenv: npt.NDArray[Any], dynamic: bool, m: int) -> Audio:
        """The lowpass over the first `m` values: fixed, or (`dynamic`) with a cutoff per block
        from the modulation envelope and LFO, its state carried from block to block."""
        r = self.region
        if not dynamic:
            return self._held(values) if m else values
        blocks = int(np.searchsorted(starts, m, side="left"))
        if not blocks:
            return values
        f32 = np.float32
        fres = (f32(r.initial_filter_fc) + modlfo[:blocks].astype(f32) * f32(r.mod_lfo_to_filter_fc)
                + modenv[:blocks].astype(f32) * f32(r.mod_env_to_filter_fc))
        if self.steady_fres is not None and bool((fres == self.steady_fres).all()):
            return self._held(values)  # the cutoff has not moved since the last request (the envelope sustaining)
        self.steady_fres = fres[-1] if bool((fres == fres[-1]).all()) else None
        # the cutoff of each block (a fraction of the sample rate), as TinySoundFont computes it
        hertz = f32(8.176) * np.power(2.0, (fres / f32(1200.0)).astype(np.float64)).astype(f32)
        fc = np.where(fres <= 13500, hertz / f32(self.rate), f32(1.0)).astype(f32)
        on = fc < 0.499
        k = np.tan(np.pi * fc.astype(np.float64))
        kk = k * k
        norm = 1.0 / (1.0 + k * self.q_inv + kk)
        a0 = kk * norm
        b1 = 2.0 * (kk - 1.0) * norm
        b2 = (1.0 - k * self.q_inv + kk) * norm
        last = blocks - 1
        self.filter_on = bool(on[last])
        if self.filter_on:
            self.coeffs = ((a0[last], 2.0 * a0[last], a0[last]), (1.0, b1[last], b2[last]))
        x = values[:m].astype(np.float64)
        steady = bool((fres == fres[0]).all())  # e.g. the envelope sustaining: one filter throughout
        if steady or on.all():  # one run: the whole request filters in one call
            if not on[0]:
                return values
            if steady:
                y, self.zi = _biquad((a0[0], 2.0 * a0[0], a0[0]), (1.0, b1[0], b2[0]), x, self.zi)
            else:
                counts = np.minimum(sizes[:blocks], np.maximum(m - starts[:blocks], 0))
                y, self.zi = _varying_biquad(np.repeat(a0, counts), np.repeat(b1, counts), np.repeat(b2, counts),
                                             x, self.zi)
            return y.astype(np.float32)
        # runs of blocks where the filter is on (a cutoff below Nyquist) filter in one solve each
        result = values.copy()
        edges = np.flatnonzero(on[1:] != on[:-1]) + 1
        cuts = np.concatenate(([0], edges, [blocks])).tolist()
        zi = self.zi
        for i, j in itertools.pairwise(cuts):
            if on[i]:
                lo, hi = int(starts[i]), min(int(starts[j]), m)
                counts = np.minimum(sizes[i:j], np.maximum(m - starts[i:j], 0))
                result[lo:hi], zi = _varying_biquad(np.repeat(a0[i:j], counts), np.repeat(b1[i:j], counts),
                                                    np.repeat(b2[i:j], counts), x[lo:hi], zi)
        self.zi = zi
        return result

    def __repr__(self) -> str:
        return f"Voice(key={self.key}, channel={self.channel}, segment={self.ampenv.segment}, alive={self.alive})"

