"""The per-voice control signals of a SoundFont synthesizer: envelopes and LFOs.

They change once per block of 64 output samples (TinySoundFont's effect block): a block
plays with the values they had at its start, then they advance by the block's length. A
voice asks for a whole run of blocks at once (`EnvelopeState.advance`, `Lfo.advance`), so
the work is a few numpy operations per segment, not a Python step per block. Segments
change at the end of the block in which their sample count runs out."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from bandstand.render.sf2.parse import Envelope

__all__ = ["BLOCK", "DELAY", "ATTACK", "HOLD", "DECAY", "SUSTAIN", "RELEASE", "DONE", "EnvelopeState", "Lfo"]

BLOCK = 64
FAST_RELEASE_SECONDS = 0.01
NONE, DELAY, ATTACK, HOLD, DECAY, SUSTAIN, RELEASE, DONE = range(8)
_FOREVER = 0x7FFFFFFF

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


def _timecents(tc: float) -> float:
    return float(np.float32(2.0 ** (tc / 1200.0)))


class EnvelopeState:
    """One voice's volume or modulation envelope: segment, level, slope, samples left."""

    __slots__ = ("p", "amp", "velocity", "rate", "segment", "level", "slope", "exponential", "until")

    def __init__(self, params: Envelope, key: int, velocity: int, amp: bool, rate: float) -> None:
        hold, decay = params.hold, params.decay
        if params.keynum_to_hold:
            tc = hold + params.keynum_to_hold * (60.0 - key)
            hold = 0.0 if tc < -10000.0 else _timecents(tc)
        if params.keynum_to_decay:
            tc = decay + params.keynum_to_decay * (60.0 - key)
            decay = 0.0 if tc < -10000.0 else _timecents(tc)
        self.p = (params.delay, params.attack, hold, decay, params.sustain, params.release)
        self.amp, self.velocity, self.rate = amp, velocity, rate
        self.segment, self.level, self.slope, self.exponential, self.until = NONE, 0.0, 0.0, False, 0
        self.next_segment(NONE)

    def release_samples(self) -> int:
        release = self.p[5]
        return int(np.float32(release if release > 0 else FAST_RELEASE_SECONDS) * np.float32(self.rate))

    def quick(self) -> None:
        """Stop at once: a release of TinySoundFont's fast release time."""
        self.p = (*self.p[:5], 0.0)
        self.next_segment(SUSTAIN)

    def next_segment(self, active: int) -> None:  # noqa: C901 — one case per segment, as the standard lists them
        delay, attack, hold, decay, sustain, _ = self.p
        rate = np.float32(self.rate)
        if active == NONE:
            self.until = int(np.float32(delay) * rate)
            if self.until > 0:
                self.segment, self.exponential, self.level, self.slope = DELAY, False, 0.0, 0.0
                return
            active = DELAY
        if active == DELAY:
            self.until = int(np.float32(attack) * rate)
            if self.until > 0:
                if not self.amp:  # the modulation attack shortens with velocity
                    scale = np.float32((145 - self.velocity) / np.float32(144.0))
                    self.until = int(np.float32(attack) * scale * rate)
                self.segment, self.exponential, self.level = ATTACK, False, 0.0
                self.slope = float(np.float32(1.0) / np.float32(self.until)) if self.until else 0.0
                return
            active = ATTACK
        if active == ATTACK:
            self.until = int(np.float32(hold) * rate)
            if self.until > 0:
                self.segment, self.exponential, self.level, self.slope = HOLD, False, 1.0, 0.0
                return
            active = HOLD
        if active == HOLD:
            self.until = int(np.float32(decay) * rate)
            if self.until > 0:
                self.segment, self.level = DECAY, 1.0
                if self.amp:
                    mystery = float(np.float32(-9.226) / np.float32(self.until))
                    self.slope, self.exponential = float(np.exp(np.float32(mystery))), True
                    if sustain > 0.0:
                        self.until = int(math.log(sustain) / mystery)
                else:
                    self.slope = float(np.float32(-1.0) / np.float32(self.until))
                    self.until = int(np.float32(decay) * np.float32(1.0 - np.float32(sustain)) * rate)
                    self.exponential = False
                return
            active = DECAY
        if active == DECAY:
            self.segment, self.level, self.slope, self.until, self.exponential = SUSTAIN, sustain, 0.0, _FOREVER, False
            return
        if active == SUSTAIN:
            self.segment = RELEASE
            self.until = self.release_samples()
            if self.amp:
                mystery = float(np.float32(-9.226) / np.float32(self.until))
                self.slope, self.exponential = float(np.exp(np.float32(mystery))), True
            else:
                self.slope = float(np.float32(-self.level) / np.float32(self.until))
                self.exponential = False
            return
        self.segment, self.exponential, self.level, self.slope, self.until = DONE, False, 0.0, 0.0, 0x7FFFFFF

    def advance(self, starts: Ints) -> tuple[Floats, int]:
        """The level at the start of each block (`starts`: the cumulative sample count before
        each block, then the total), advancing through the blocks; and the index of the first
        block after which the envelope is done (or the number of blocks)."""
        blocks = len(starts) - 1
        levels = np.empty(blocks, dtype=np.float64)
        done_at = blocks
        i = 0
        while i < blocks:
            # the segment ends after block j: the first j whose end reaches `until` samples on
            k = int(np.searchsorted(starts, starts[i] + self.until, side="left"))
            j = min(k, blocks) - 1
            j = max(j, i)
            offsets = (starts[i : j + 1] - starts[i]).astype(np.float64)
            levels[i : j + 1] = self._levels(offsets)
            span = int(starts[j + 1] - starts[i])
            self.level = float(self._levels(np.array([float(span)]))[0])
            self.until -= span
            if self.until <= 0:
                self.next_segment(self.segment)
                if self.segment == DONE and done_at == blocks:
                    done_at = j
            i = j + 1
        return levels, done_at

    def _levels(self, offsets: Floats) -> Floats:
        if not self.slope:
            return np.full(len(offsets), self.level)
        if self.exponential:
            return np.float32(self.level) * np.power(self.slope, offsets)
        return np.float32(self.level) + np.float32(self.slope) * offsets


class Lfo:
    """A triangle LFO from -1 to 1 starting at 0 upwards after its delay, in blocks."""

    __slots__ = ("until", "phase", "step")

    def __init__(self, delay: float, freq_cents: int, rate: float) -> None:
        self.until = int(np.float32(delay) * np.float32(rate))
        hertz = np.float32(8.176) * np.float32(2.0 ** (np.float32(freq_cents) / np.float32(1200.0)))
        self.step = float(np.float32(4.0) * hertz / np.float32(rate))  # level change per sample
        self.phase = 0.0  # unfolded: level is the triangle of this

    @staticmethod
    def _triangle(phase: Floats) -> Floats:
        x = np.mod(phase + 1.0, 4.0)
        return np.where(x < 2.0, x - 1.0, 3.0 - x)

    def advance(self, sizes: Ints) -> Floats:
        """The level at the start of each block of these sizes, advancing through them."""
        before = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        # a block moves the LFO once its delay has run out: from the first block not longer than what is left
        waiting = self.until - before > sizes
        first = int(np.argmin(waiting)) if not waiting.all() else len(sizes)
        if first > 0:
            self.until -= int(before[first - 1] + sizes[first - 1]) if first <= len(sizes) else 0
        moving = np.zeros(len(sizes), dtype=np.float64)
        moving[first:] = sizes[first:]
        phases = self.phase + self.step * np.concatenate(([0.0], np.cumsum(moving)[:-1]))
        self.phase += self.step * float(moving.sum())
        return self._triangle(phases)

    @property
    def level(self) -> float:
        return float(self._triangle(np.array([self.phase]))[0])
