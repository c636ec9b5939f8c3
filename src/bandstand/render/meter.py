"""Measures of a written WAV taken while it is written: its integrated loudness (BS.1770, as
`bandstand.render.loudness` reads it back from the file) and its spectral balance
(`spectrum_figures`: the share of its power below 250 Hz and its spectral centroid, from
`BLOCKS` windows of `BLOCK` frames spread evenly over it).

A `Meter` is fed the 16-bit samples a writer has just made, a block at a time and in order,
and keeps what the measures need: the K-weighted power per 10 ms hop (filtered in the same
chunks as the measure of a whole signal, so the same bits) and the spectrum's windows. Its
`loudness()` and `spectrum()` are then exactly what reading the file back and measuring it
would give — without reading it, and on the thread that wrote it."""

from __future__ import annotations

import math
from bisect import bisect_left

import numpy as np
import numpy.typing as npt

from bandstand.render.iir import Cascade
from bandstand.render.master import chunk_powers, integrated_loudness, k_weighting, power_steps

__all__ = ["BLOCK", "BLOCKS", "Meter", "spectrum_figures", "window_starts"]

BLOCK = 8192  # frames per spectrum window
BLOCKS = 64  # windows per signal, spread evenly over it (a bound on the work)
_PCM_SCALE = np.float32(1.0 / 32768.0)  # a power of two: the same floats as dividing the file's samples

Spectrum = dict[str, float | None]


def window_starts(frames: int) -> npt.NDArray[np.int64]:
    """The first frame of each spectrum window of a signal `frames` long (none under `BLOCK`)."""
    if frames < BLOCK:
        return np.zeros(0, dtype=np.int64)
    starts: npt.NDArray[np.int64] = np.linspace(0, frames - BLOCK, num=min(BLOCKS, frames // BLOCK)).astype(np.int64)
    return starts


def spectrum_figures(frames: np.ndarray, rate: int) -> Spectrum:
    """low_share and brightness of a signal (frames × channels, or mono; None when it is silent
    or too short): the power of `BLOCKS` windows spread evenly over it, each folded to mono."""
    return _spectrum([frames[s : s + BLOCK] for s in window_starts(len(frames))], rate)


def _spectrum(windows: list[np.ndarray], rate: int) -> Spectrum:
    if not windows:
        return {"low_share": None, "brightness": None}
    window = np.hanning(BLOCK).astype(np.float32)
    power = np.zeros(BLOCK // 2 + 1)
    for block in windows:
        mono = block.mean(axis=1, dtype=np.float32) if block.ndim == 2 else block
        power += np.abs(np.fft.rfft(mono * window)) ** 2
    freqs = np.fft.rfftfreq(BLOCK, 1.0 / rate)
    audible = freqs >= 20.0
    total = float(power[audible].sum())
    if total <= 1e-12:
        return {"low_share": None, "brightness": None}
    low = float(power[audible & (freqs < 250.0)].sum()) / total
    centroid = float((freqs[audible] * power[audible]).sum()) / total
    return {"low_share": low, "brightness": math.log2(max(centroid, 1.0) / 100.0)}


class Meter:
    """The loudness and spectrum of a signal `frames` long (× `channels`), fed in order a block of
    16-bit sample values at a time (`feed_pcm`: floats holding whole numbers, as a writer has them
    just before it stores them)."""

    def __init__(self, rate: int, frames: int, channels: int = 2) -> None:
        self.rate, self.frames, self.channels = rate, frames, channels
        self.hop, self.step = power_steps(rate)
        self.measured = (frames // self.hop) * self.hop  # the loudness measure drops the last part-hop
        self.power = np.zeros((frames // self.hop, channels))
        self.cascade = Cascade(k_weighting(rate), channels)
        self.pending = np.empty((channels, self.step), dtype=np.float32)  # channel-major, as the filter wants
        self.filled = 0  # frames waiting in `pending`
        self.done = 0  # frames measured
        self.starts = [int(s) for s in window_starts(frames)]
        self.windows = np.zeros((len(self.starts), BLOCK), dtype=np.float32)  # each folded to mono as it comes
        self.seen = 0  # frames fed

    def feed_pcm(self, pcm: npt.NDArray[np.float32]) -> None:
        """The next frames (frames × channels) as 16-bit values (whole numbers in ±32767)."""
        self._feed(pcm, _PCM_SCALE)

    def feed(self, block: npt.NDArray[np.float32]) -> None:
        """The next frames (frames × channels, full scale 1.0)."""
        self._feed(block, None)

    def _feed(self, block: npt.NDArray[np.float32], scale: np.float32 | None) -> None:
        """The next frames, times `scale` if given (then +0, so −0 becomes 0 as in the file),
        scaled only where they are kept: no copy of the whole block."""
        lo, n = self.seen, len(block)
        first = bisect_left(self.starts, lo - BLOCK + 1)
        for w in range(first, len(self.starts)):
            s = self.starts[w]
            if s >= lo + n:
                break
            a, b = max(s, lo), min(s + BLOCK, lo + n)
            part = block[a - lo : b - lo]
            if scale is not None:
                part = part * scale
                part += np.float32(0.0)
            self.windows[w, a - s : b - s] = part.mean(axis=1, dtype=np.float32) if part.ndim == 2 else part
        self.seen += n
        taken = 0
        while taken < n and self.done + self.filled < self.measured:
            room = min(self.step - self.filled, self.measured - self.done - self.filled, n - taken)
            into = self.pending[:, self.filled : self.filled + room]
            if scale is None:
                into[...] = block[taken : taken + room].T
            else:
                np.multiply(block[taken : taken + room].T, scale, out=into)
                into += np.float32(0.0)
            self.filled += room
            taken += room
            if self.filled == self.step or self.done + self.filled == self.measured:
                self._measure()

    def _measure(self) -> None:
        at = self.done // self.hop
        power = chunk_powers(self.cascade, self.pending[:, : self.filled], self.hop)
        self.power[at : at + len(power)] = power
        self.done += self.filled
        self.filled = 0

    def loudness(self) -> float:
        """The integrated loudness (LUFS; −inf for silence or under 0.4 s) of all `frames`."""
        self._complete()
        if self.frames == 0:
            return -math.inf
        return integrated_loudness(np.sqrt(self.power), self.rate / self.hop)

    def spectrum(self) -> Spectrum:
        """`spectrum_figures` of all `frames`."""
        self._complete()
        return _spectrum(list(self.windows), self.rate)

    def _complete(self) -> None:
        if self.seen != self.frames:
            raise ValueError(f"the meter was fed {self.seen} of {self.frames} frames")
