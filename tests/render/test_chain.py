"""Chains a chunk at a time: the cascade kernels (scipy's, and numba's) are scipy's sosfilt to the bit, a chain over a
stretch is the chain over the whole song, the echo ring is the recurrence, a track's mix is the
same whoever finishes it, and a render imports neither scipy.signal nor pyloudnorm."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.render import Master, render_song, render_wav
from bandstand.render.chain import CHUNK, process, run_chain, stretch
from bandstand.render.dsp import Context, biquad, feedback_echo
from bandstand.render.effects import PROCESSORS
from bandstand.render.iir import Cascade, _fallback, compiled, filter_sos, kernel
from bandstand.render.master import (
    chunk_power,
    k_weighting,
    power_envelope,
    power_steps,
    true_peak_blocks,
)
from bandstand.render.mixer import MixPlan, sounding
from bandstand.render.synth import frames_for, synthesize_dry
from bandstand.score import (
    AutomationLane,
    AutomationPoint,
    Bus,
    Effect,
    Note,
    Send,
    Song,
    Track,
    TrackMix,
)

KINDS = ("lowpass", "highpass", "bandpass", "peak", "lowshelf", "highshelf")


def noise(frames: int, seed: int = 0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal((frames, 2)) * 0.2).astype(np.float32)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(KINDS), st.floats(30, 15000), st.floats(0.3, 8), st.floats(-12, 12)),
                min_size=1, max_size=4),
       st.lists(st.integers(1, 5000), min_size=1, max_size=6), st.integers(0, 2**16))
def test_a_cascade_in_chunks_is_sosfilt_to_the_bit(bands: list[tuple[str, float, float, float]],
                                                   cuts: list[int], seed: int) -> None:
    import scipy.signal

    sections = [biquad(kind, freq, 44100, q, gain) for kind, freq, q, gain in bands]
    x = noise(sum(cuts), seed)
    expected = scipy.signal.sosfilt(np.asarray(sections, dtype=np.float32), x, axis=0)
    rows = x.T.copy()
    cascade = Cascade(sections)
    at = 0
    for n in cuts:  # chunks of any length, some of them views into the longer rows
        cascade(rows[:, at : at + n])
        at += n
    assert np.array_equal(rows.T, expected)
    assert np.array_equal(filter_sos(x, sections), expected)


def test_the_kernel_is_scipys_compiled_one_and_the_fallback_agrees() -> None:
    import scipy.signal

    assert kernel() is scipy.signal._signaltools._sosfilt  # loaded on its own, shared with scipy.signal
    sos = np.asarray([biquad("peak", 900.0, 44100, 2.0, 6.0)], dtype=np.float32)
    x = np.ascontiguousarray(noise(3000).T)
    a, b = x.copy(), x.copy()
    za, zb = np.zeros((2, 1, 2), np.float32), np.zeros((2, 1, 2), np.float32)
    kernel()(sos, a, za)
    _fallback(sos, b, zb)
    assert np.array_equal(a, b) and np.array_equal(za, zb)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.integers(1, 5), st.lists(st.integers(0, 700), min_size=1, max_size=5),
       st.integers(0, 2**16))
def test_the_compiled_kernel_is_scipys_to_the_bit(signals: int, sections: int, cuts: list[int], seed: int) -> None:
    """Any number of signals (in pairs, and one alone) and of sections (in pairs, and one alone),
    chunks of any length (none, one sample) carrying the state, the signals rows of a wider buffer."""
    fast = compiled()
    assert fast is not None  # numba is installed here: the render's cascades are the compiled ones
    rng = np.random.default_rng(seed)
    kinds = rng.choice(KINDS, sections)
    sos = np.asarray([biquad(str(k), float(rng.uniform(30, 15000)), 44100, float(rng.uniform(0.3, 8)),
                             float(rng.uniform(-12, 12))) for k in kinds], dtype=np.float32)
    wide = (rng.standard_normal((signals, sum(cuts) + 7)) * 0.3).astype(np.float32)
    a, b = wide.copy(), wide.copy()
    za, zb = np.zeros((signals, sections, 2), np.float32), np.zeros((signals, sections, 2), np.float32)
    at = 0
    for n in cuts:
        kernel()(sos, piece := np.ascontiguousarray(a[:, at : at + n]), za)
        a[:, at : at + n] = piece
        fast(sos, b[:, at : at + n], zb)  # a view: each row contiguous, the rows a buffer's width apart
        at += n
    assert np.array_equal(a, b) and np.array_equal(za, zb)


def test_the_loudness_measure_of_both_channels_at_once_is_each_channels_own() -> None:
    x = noise(44100 * 2 + 123, seed=5)
    hop, step = power_steps(44100)
    env, _ = power_envelope(x, 44100)
    for c in range(2):
        cascade = Cascade(k_weighting(44100), 1)
        row = x[: len(x) // hop * hop, c]
        power = np.concatenate([chunk_power(cascade, row[f : f + step], hop) for f in range(0, len(row), step)])
        assert np.array_equal(env[:, c], np.sqrt(power))


def test_k_weighting_is_pyloudnorms_filter() -> None:
    from pyloudnorm.iirfilter import IIRfilter

    for rate in (44100, 48000, 22050):
        stages = (IIRfilter(4.0, 1 / math.sqrt(2), 1500.0, rate, "high_shelf"), IIRfilter(0.0, 0.5, 38.0, rate, "high_pass"))
        expected = [[*(f.b / f.a[0]), *(f.a / f.a[0])] for f in stages]
        assert np.allclose(k_weighting(rate), expected, rtol=1e-12, atol=1e-15)


def test_the_master_measures_contiguous_and_channel_major_audio_alike() -> None:
    x = noise(44100 * 3)
    rows = np.ascontiguousarray(x.T)
    assert np.array_equal(true_peak_blocks(x), true_peak_blocks(rows.T))
    assert np.array_equal(power_envelope(x, 44100)[0], power_envelope(rows.T, 44100)[0])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1, 1, width=32), min_size=1, max_size=400), st.integers(1, 60),
       st.sampled_from([0.0, 0.3, 0.8]), st.integers(1, 97))
def test_the_streamed_echo_is_the_recurrence(xs: list[float], delay_frames: int, gain: float, piece: int) -> None:
    from bandstand.render.effects import _Echo

    x = np.array(xs, dtype=np.float32)
    stereo = np.stack([x, -x], axis=1)
    expected = feedback_echo(stereo, delay_frames, gain)
    echo = _Echo(delay_frames, gain)
    rows = np.ascontiguousarray(stereo.T)
    got = np.concatenate([echo(rows[:, at : at + piece]) for at in range(0, len(x), piece)], axis=1)
    assert np.allclose(got.T, expected, atol=1e-4)


AUTOMATION = {"filter": "cutoff_hz", "tremolo": "depth", "delay": "mix", "reverb": "wet", "chorus": "mix"}


@pytest.mark.parametrize("etype", sorted(PROCESSORS))
def test_a_chain_over_a_stretch_is_the_chain_over_the_song(etype: str) -> None:
    # silence, then sound: running from a later chunk boundary gives what the whole song gives there
    params = {"compressor": {"threshold_db": -30.0}, "limiter": {"threshold_db": -20.0},
              "eq": {"low_cut_hz": 200.0, "high_gain_db": 6.0}}.get(etype, {})
    fx = Effect(etype, params)
    frames = 3 * CHUNK + 5000
    song = np.zeros((frames, 2), dtype=np.float32)
    song[CHUNK + 300 :] = noise(frames - CHUNK - 300, 4)
    blocks = -(-frames // 256)
    curves = {}
    if etype in AUTOMATION:
        spec_default = fx.num(AUTOMATION[etype])
        curves = {AUTOMATION[etype]: np.linspace(spec_default, spec_default * 0.5 + 0.1, blocks)}
    whole = process(song, fx, Context(44100, 120.0, curves))
    start, stop = stretch(*sounding(np.ascontiguousarray(song.T)), round(44100 * PROCESSORS[etype].tail(
        fx, Context(44100, 120.0, curves))), frames)
    assert start == CHUNK
    rows = np.ascontiguousarray(song.T)
    lanes = {f"{etype}.{k}": v for k, v in curves.items()}
    run_chain(rows[:, start:stop], (fx,), Context(44100, 120.0, {}, False, start), lanes)
    got = rows.T
    assert np.allclose(got[start:stop], whole[start:stop], atol=2e-5), etype
    assert not got[:start].any()


def mixed_song() -> Song:
    keys = [Note(b * 2.0 + 8.0, 1.5, p, 96) for b in range(6) for p in (60, 64, 67)]
    bass = [Note(b * 1.0 + 4.0, 0.5, 36 + b % 5, 110) for b in range(12)]
    lead = [Note(b / 2 + 1.0, 0.4, 72 + (b * 5) % 12, 100) for b in range(20)]
    song = Song(tempo=118.0, tracks=[
        Track("Keys", "chords", program=4, notes=keys, mix=TrackMix(volume=0.8, pan=0.3, inserts=(
            Effect("eq", {"low_cut_hz": 150.0, "high_cut_hz": 9000.0}), Effect("compressor", {"threshold_db": -24.0}),
            Effect("tremolo", {"rate_hz": 3.0})), sends=(Send("Reverb", 0.3),))),
        Track("Bass", "bass", program=38, notes=bass, mix=TrackMix(inserts=(
            Effect("overdrive", {"drive": 0.5, "mix": 0.6}), Effect("limiter", {"threshold_db": -9.0})))),
        Track("Lead", "lead", program=81, notes=lead, mix=TrackMix(volume=0.7, inserts=(
            Effect("filter", {"cutoff_hz": 600.0}), Effect("delay", {"time_beats": 0.5, "feedback": 0.4})),
            sends=(Send("Reverb", 0.2), Send("Echo", 0.3)), automation=(
                AutomationLane("filter.cutoff_hz", (AutomationPoint(0.0, 600.0), AutomationPoint(10.0, 8000.0))),
                AutomationLane("pan", (AutomationPoint(0.0, 0.0), AutomationPoint(10.0, 1.0)))))),
    ])
    song.buses = [Bus("Echo", (Effect("delay", {"time_beats": 0.75, "feedback": 0.5}),), 0.8)]
    return song


def test_a_mixed_song_renders_to_the_same_bytes_in_one_process_or_two(tmp_path: Path) -> None:
    song = mixed_song()
    one = render_wav(song, tmp_path / "one.wav", workers=1, stems_dir=tmp_path / "stems1")
    two = render_wav(song, tmp_path / "two.wav", workers=2, stems_dir=tmp_path / "stems2")
    assert one.read_bytes() == two.read_bytes()
    names = sorted(p.name for p in (tmp_path / "stems1").iterdir())
    assert names == ["bass.wav", "bus-echo.wav", "bus-reverb.wav", "keys.wav", "lead.wav"]
    assert all((tmp_path / "stems1" / n).read_bytes() == (tmp_path / "stems2" / n).read_bytes() for n in names)


def test_a_track_is_finished_only_where_it_sounds_and_the_same_as_over_the_whole_song() -> None:
    song = mixed_song()
    frames = frames_for(song, 44100, 4.0)
    plan = MixPlan(song, 44100, frames)
    dry = synthesize_dry(song, 44100, workers=1, tail=4.0)
    whole = dry.audio.copy()
    for index, (first, end) in enumerate(dry.spans):
        heard = sounding(dry.audio[index])
        assert first <= heard[0] < heard[1] <= end  # the synthesizer's slices cover what sounds
        start, stop = plan.finish(index, dry.audio[index], first, end)
        assert start <= first and stop >= end and start % CHUNK == 0
        assert not dry.audio[index][:, :start].any() and not dry.audio[index][:, stop:].any()
        plan.finish(index, whole[index], 0, frames)  # the chain over every frame of the song
        level = float(np.abs(whole[index]).max())
        assert np.abs(whole[index] - dry.audio[index]).max() < 1e-5 * level  # −100 dB


def test_stems_sum_to_the_master_before_its_limiter() -> None:
    done = render_song(mixed_song(), settings=Master(target_lufs=-30.0), stems=True, workers=2)
    assert done.mastered.limiter_max_db == 0.0  # quiet enough that the limiter never acts
    total = sum(stem.astype(np.float64) for stem in done.stems.values()) * done.mastered.gain
    body = len(done.audio) - int(0.05 * 44100)  # before the closing fade
    assert np.allclose(total[:body], done.audio[:body], atol=1e-6)


def test_a_render_imports_neither_scipy_signal_nor_pyloudnorm(tmp_path: Path) -> None:
    code = ("import sys; from bandstand.render import render_wav; from tests.render.test_chain import mixed_song; "
            f"render_wav(mixed_song(), {str(tmp_path / 'x.wav')!r}, stems_dir={str(tmp_path / 's')!r}); "
            "print(sorted(m for m in sys.modules if m in ('scipy.signal', 'pyloudnorm')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).parents[2])
    assert done.stdout.strip() == "[]"
