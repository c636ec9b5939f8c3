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

__all__ = ["ATTACK", "BLOCK", "DECAY", "DELAY", "DONE", "HOLD", "RELEASE", "SUSTAIN", "EnvelopeState", "Lfo", "expf"]

BLOCK = 64
FAST_RELEASE_SECONDS = 0.01
NONE, DELAY, ATTACK, HOLD, DECAY, SUSTAIN, RELEASE, DONE = range(8)
_FOREVER = 0x7FFFFFFF

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


def expf(x: float) -> float:
    """C's `expf`: e^x of a float32, rounded to float32 (computed in double: correctly rounded)."""
    return float(np.float32(math.exp(float(np.float32(x)))))


def _timecents(tc: float) -> float:
    return float(np.float32(2.0 ** float(np.float32(tc) / np.float32(1200.0))))


class EnvelopeState:
    """One voice's volume or modulation envelope: segment, level, slope, samples left."""

    __slots__ = ("amp", "exponential", "level", "p", "rate", "segment", "slope", "until", "velocity")

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

    def next_segment(self, active: int) -> None:
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
                    self.slope, self.exponential = expf(mystery), True
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
                self.slope, self.exponential = expf(mystery), True
            else:
                self.slope = float(np.float32(-self.level) / np.float32(self.until))
                self.exponential = False
            return
        self.segment, self.exponential, self.level, self.slope, self.until = DONE, False, 0.0, 0.0, 0x7FFFFFF

    def hold(self, total: int) -> float | None:
        """If the envelope holds still through the next `total` samples (sustain, hold, delay):
        advance through them and give its level; else None (and nothing changes)."""
        if not self.slope and self.until > total:
            self.until -= total
            return self.level
        return None

    def advance(self, starts: Ints) -> tuple[npt.NDArray[np.float32], int]:
        """The level at the start of each block (`starts`: the cumulative sample count before
        each block, then the total), advancing through the blocks; and the index of the first
        block after which the envelope is done (or the number of blocks). Levels step in
        float32, block by block, as TinySoundFont's do (so they are the same bits), a segment at a
        time in numpy."""
        blocks = len(starts) - 1
        total = int(starts[-1])
        if not self.slope and self.until > total:  # holding still the whole request (sustain, hold, delay)
            self.until -= total
            return np.full(blocks, self.level, dtype=np.float32), blocks
        if self.until > total:  # one segment the whole request (a decay, a release): one walk
            walk = self._walk(starts)
            self.level = float(walk[-1])
            self.until -= total
            return walk[:-1], blocks
        levels = np.empty(blocks, dtype=np.float32)
        done_at = blocks
        i = 0
        while i < blocks:
            # the segment ends after block j: the first j whose end reaches `until` samples on
            k = int(starts.searchsorted(starts[i] + self.until, side="left"))
            j = max(min(k, blocks) - 1, i)
            walk = self._walk(starts[i : j + 2])
            levels[i : j + 1] = walk[:-1]
            self.level = float(walk[-1])
            self.until -= int(starts[j + 1] - starts[i])
            if self.until <= 0:
                self.next_segment(self.segment)
                if self.segment == DONE and done_at == blocks:
                    done_at = j
            i = j + 1
        return levels, done_at

    def _walk(self, starts: Ints) -> npt.NDArray[np.float32]:
        """The level before each block that starts at these `starts` (then the end), then after
        the last."""
        blocks = len(starts) - 1
        steps = np.empty(blocks + 1, dtype=np.float32)
        steps[0] = self.level
        if not self.slope:
            steps[1:] = self.level
            return steps
        # blocks of BLOCK samples but the last (as a request is cut): one step for all of them
        uniform = int(starts[-2] - starts[0]) == BLOCK * (blocks - 1)
        sizes = (np.array((BLOCK, starts[-1] - starts[-2]), dtype=np.float32) if uniform
                 else np.diff(starts).astype(np.float32))
        if self.exponential:
            factors = np.power(self.slope, sizes.astype(np.float64)).astype(np.float32)  # powf, correctly rounded
        else:
            factors = np.float32(self.slope) * sizes
        if uniform:
            steps[1:blocks] = factors[0]
            steps[blocks] = factors[1]
        else:
            steps[1:] = factors
        if self.exponential:
            return np.multiply.accumulate(steps, dtype=np.float32)
        return np.add.accumulate(steps, dtype=np.float32)


class Lfo:
    """A triangle LFO from -1 to 1, starting at 0 upwards after its delay, stepping per block
    in float32 as TinySoundFont's does."""

    __slots__ = ("delta", "level", "until")

    def __init__(self, delay: float, freq_cents: int, rate: float) -> None:
        self.until = int(np.float32(delay) * np.float32(rate))
        hertz = np.float32(8.176) * np.float32(2.0 ** float(np.float32(freq_cents) / np.float32(1200.0)))
        self.delta = float(np.float32(4.0) * hertz / np.float32(rate))  # level change per sample
        self.level = 0.0

    def _moving(self, sizes: Ints) -> npt.NDArray[np.bool_]:
        """Which blocks move the LFO: a block waits while the delay left is longer than it (the
        delay left shrinks only then) — so, as in TinySoundFont, a short last block of a request
        can wait again after the LFO has started."""
        before = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        waiting = self.until - before > sizes
        first = int(np.argmin(waiting)) if not waiting.all() else len(sizes)
        moving = np.zeros(len(sizes), dtype=np.bool_)
        if first:
            self.until -= int(before[first - 1] + sizes[first - 1])
        moving[first:] = True
        for b in np.flatnonzero(sizes[first + 1 :] < self.until) + first + 1:
            if self.until > sizes[b]:
                moving[b] = False
                self.until -= int(sizes[b])
        return moving

    def advance(self, sizes: Ints) -> npt.NDArray[np.float32]:
        """The level at the start of each block of these sizes, advancing through them."""
        moving = self._moving(sizes)
        levels = np.empty(len(sizes), dtype=np.float32)
        first = int(np.argmax(moving)) if moving.any() else len(sizes)
        levels[:first] = self.level
        i = first
        while i < len(sizes):
            steps = np.empty(len(sizes) - i + 1, dtype=np.float32)
            steps[0] = self.level
            steps[1:] = np.float32(self.delta) * sizes[i:].astype(np.float32) * moving[i:]
            walk = np.add.accumulate(steps, dtype=np.float32)  # walk[k]: after k blocks
            over = np.flatnonzero((walk[1:] > 1.0) | (walk[1:] < -1.0))
            if not len(over):
                levels[i:] = walk[:-1]
                self.level = float(walk[-1])
                break
            k = int(over[0])  # block i + k turns the LFO round
            levels[i : i + k + 1] = walk[: k + 1]
            edge = np.float32(2.0) if walk[k + 1] > 1.0 else np.float32(-2.0)
            self.level = float(edge - walk[k + 1])
            self.delta = -self.delta
            i += k + 1
        return levels
