"""The render's compiled kernels (`bandstand.render.jit`) give the numbers the numpy steps they
replace give, to the bit: the reverb's change of rate down and back up; and the master's true-peak
estimate within float32 rounding (its quarter points' dot products sum in another order)."""

from __future__ import annotations

from types import ModuleType

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.render.iir import jit
from bandstand.render.master import _row_true_peaks, true_peak_blocks


def kernels() -> ModuleType:
    loaded = jit()
    assert loaded is not None  # numba is installed here: the render runs these
    return loaded


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 3), st.integers(1, 6), st.integers(0, 900), st.integers(0, 2**16))
def test_the_downmix_is_the_numpy_paths_bit_for_bit_and_the_mean_within_an_ulp(
        channels: int, k: int, runs: int, seed: int) -> None:
    from bandstand.render.reverb import downmix

    rng = np.random.default_rng(seed)
    wide = (rng.standard_normal((channels, runs * k + 11)) * 0.4).astype(np.float32)
    audio = wide[:, 3 : 3 + runs * k + 2]  # rows of a wider buffer, a part-run at the end left out
    expected = np.full(runs, np.nan, dtype=np.float32)
    downmix(audio[:, : runs * k], k, expected)
    got = np.full(runs, np.nan, dtype=np.float32)
    kernels().downmix(audio, k, got)
    assert got.tobytes() == expected.tobytes()
    mean = audio[:, : runs * k].reshape(channels, runs, k).mean(axis=(0, 2), dtype=np.float64)
    assert np.allclose(got, mean, rtol=0, atol=1e-6)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 400), st.integers(1, 5), st.booleans(), st.sampled_from(["one", "curve", "unity"]),
       st.integers(0, 2**16))
def test_the_upsample_is_numpys_interpolation(runs: int, k: int, add: bool, gain_kind: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    low = (rng.standard_normal((2, runs + 1)) * 0.3).astype(np.float32)
    ramp = (np.arange(k, dtype=np.float32) / k)[None, None, :]
    wet = (low[:, :-1, None] + (low[:, 1:] - low[:, :-1])[:, :, None] * ramp).reshape(2, -1)
    gains = {"one": np.array([0.37], dtype=np.float32), "unity": np.ones(1, dtype=np.float32),
             "curve": rng.uniform(0, 1, runs * k).astype(np.float32)}[gain_kind]
    wet = wet * (gains[None, :] if gain_kind == "curve" else gains[0])
    before = (rng.standard_normal((2, runs * k + 8)) * 0.1).astype(np.float32)
    expected = before.copy()
    if add:
        expected[:, 4 : 4 + runs * k] += wet
    else:
        expected[:, 4 : 4 + runs * k] = wet
    got = before.copy()
    kernels().upsample(low, ramp[0, 0], gains, got[:, 4 : 4 + runs * k], add)
    assert got.tobytes() == expected.tobytes()


def _peaks_both_ways(row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return _row_true_peaks(row), _row_true_peaks(row, compiled=False)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 3000), st.integers(1, 3), st.sampled_from([1e-3, 0.3, 1.0, 4.0]), st.booleans(),
       st.integers(0, 2**16))
def test_the_true_peaks_are_the_numpy_paths_within_float32_rounding(frames: int, stride: int, level: float,
                                                                     spiky: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    wide = (rng.standard_normal((frames, stride)) * level).astype(np.float32)
    if spiky and frames:  # lone peaks and equal neighbours: the first of the loudest is the one looked around
        wide[rng.integers(0, frames, 1 + frames // 50)] = np.float32(level * 3)
    row = wide[:, 0]  # a channel of interleaved frames, as the master reads the mix
    got, expected = _peaks_both_ways(row)
    assert got.shape == expected.shape
    assert np.allclose(got, expected, rtol=3e-7, atol=1e-12 * level)


def test_the_true_peaks_of_a_rendered_mix_are_the_numpy_paths() -> None:
    from bandstand.render.audio import render_song
    from tests.midi.songs import demo_song

    audio = render_song(demo_song(4, tempo=120.0), workers=1).audio
    for row in audio.T:
        got, expected = _peaks_both_ways(row)
        assert np.allclose(got, expected, rtol=3e-7, atol=0)
    assert true_peak_blocks(audio).max() >= np.abs(audio).max()
