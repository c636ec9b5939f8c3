"""Rendered audio: the right length, not silent, in tune, normalized, with a reverb tail."""

from __future__ import annotations

import wave
from pathlib import Path

import mido
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.midi import write_midi
from bandstand.render import TAIL_SECONDS, render_wav
from bandstand.render.audio import (
    _STEREO_SPREAD,
    PEAK,
    REVERB_DECIMATION,
    _allpass,
    _downmix,
    _feedback,
    mix_tail,
    reverb,
    reverb_tail,
    synthesize,
    write_wav,
)
from bandstand.score import Note, Song, TempoChange, Track
from tests.midi.songs import demo_song


def read_wav(path: Path) -> tuple[int, np.ndarray]:
    with wave.open(str(path)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth()) == (2, 2)
        data = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2").reshape(-1, 2)
        return wav.getframerate(), data.astype(np.float64) / 32768.0


def rms_per_second(audio: np.ndarray, rate: int) -> np.ndarray:
    seconds = len(audio) // rate
    return np.sqrt((audio[: seconds * rate].reshape(seconds, rate, 2) ** 2).mean(axis=(1, 2)))


def test_demo_renders_non_silent_normalized_audio_of_the_expected_length(tmp_path: Path) -> None:
    song = demo_song(4, tempo=120.0)  # 16 beats at 120 bpm = 8 s
    path = render_wav(song, tmp_path / "demo.wav")
    rate, audio = read_wav(path)
    assert rate == 44100
    assert len(audio) == int((8.0 + TAIL_SECONDS) * 44100)
    assert np.abs(audio).max() == pytest.approx(PEAK, abs=0.002)
    loudness = rms_per_second(audio, rate)
    assert (loudness[:8] > 0.05).all(), loudness  # every second of music is audible
    assert loudness[-1] < loudness[:8].min() / 3  # the tail dies away
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize(("program", "pitch", "hertz"), [(73, 69, 440.0), (73, 81, 880.0), (0, 57, 220.0)])
def test_a_note_sounds_at_its_pitch(tmp_path: Path, program: int, pitch: int, hertz: float) -> None:
    song = Song(tempo=60.0, tracks=[Track("x", "lead", program=program, notes=[Note(0.0, 2.0, pitch, 100)])])
    rate, audio = read_wav(render_wav(song, tmp_path / "a.wav"))
    window = audio[int(0.2 * rate) : int(1.2 * rate)].mean(axis=1) * np.hanning(rate)
    spectrum = np.abs(np.fft.rfft(window))  # one-second window: bin n is n Hz
    peak = int(np.argmax(spectrum[50:4000])) + 50
    if program == 73:  # a flute is nearly a sine: the fundamental is the strongest partial
        assert peak == pytest.approx(hertz, rel=0.02)
    else:  # a piano's strongest partial may be a harmonic, but it is one of this note's
        assert peak / hertz == pytest.approx(round(peak / hertz), abs=0.03)
        assert spectrum[int(hertz) - 3 : int(hertz) + 4].max() > 0.1 * spectrum[peak]


def test_drums_play_on_channel_10(tmp_path: Path) -> None:
    # note 42 is a closed hi-hat on the drum kit but an F#2 on a piano: the hat is noisy and bright
    def centroid(is_drum: bool) -> float:
        track = Track("x", "drums" if is_drum else "chords", is_drum=is_drum, notes=[Note(0.0, 0.5, 42, 110)])
        rate, audio = read_wav(render_wav(Song(tracks=[track]), tmp_path / f"{is_drum}.wav"))
        spectrum = np.abs(np.fft.rfft(audio[: rate // 4].mean(axis=1)))
        freqs = np.fft.rfftfreq(rate // 4, 1 / rate)
        return float((spectrum * freqs).sum() / spectrum.sum())

    assert centroid(True) > 3 * centroid(False)


def test_render_from_a_midi_file(tmp_path: Path) -> None:
    midi = write_midi(demo_song(2, tempo=120.0), tmp_path / "in.mid")
    assert sum(m.type == "note_on" for m in mido.MidiFile(midi).merged_track) == sum(
        len(t.notes) for t in demo_song(2).tracks)
    rate, audio = read_wav(render_wav(midi, tmp_path / "out.wav"))
    assert len(audio) == int((4.0 + TAIL_SECONDS) * rate)
    assert rms_per_second(audio, rate)[:4].min() > 0.05


def test_reverb_adds_a_tail_after_the_last_note() -> None:
    song = Song(tempo=60.0, tracks=[Track("Lead", "lead", program=80, notes=[Note(0.0, 0.5, 72, 120)])])
    dry = synthesize(song).copy()
    wet = reverb(dry.copy())
    late = slice(int(1.2 * 44100), int(1.6 * 44100))  # well after the square lead's short release
    assert np.sqrt((wet[late] ** 2).mean()) > 2 * np.sqrt((dry[late] ** 2).mean())


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1, 1, width=32), min_size=1, max_size=300), st.integers(1, 40),
       st.sampled_from([0.5, 0.78, 0.8]))
def test_vectorized_filters_match_the_recurrence(xs: list[float], delay: int, gain: float) -> None:
    x = np.array(xs, dtype=np.float32)
    comb = x.astype(np.float64)
    for i in range(delay, len(comb)):
        comb[i] += gain * comb[i - delay]
    assert np.allclose(_feedback(x, delay, gain), comb, atol=1e-4)
    u = -gain * x.astype(np.float64)
    u[delay:] += x[:-delay]
    for i in range(delay, len(u)):
        u[i] += gain * u[i - delay]
    assert np.allclose(_allpass(x, delay, gain), u, atol=1e-4)


def test_tempo_changes_set_the_length(tmp_path: Path) -> None:
    # 4 beats at 120 (2 s) then 4 beats at 60 (4 s)
    song = Song(tempo=120.0, tempo_changes=[TempoChange(4.0, 60.0)],
                tracks=[Track("Keys", "chords", notes=[Note(float(b), 1.0, 60, 90) for b in range(8)])])
    rate, audio = read_wav(render_wav(song, tmp_path / "t.wav"))
    assert len(audio) == int((6.0 + TAIL_SECONDS) * rate)
    loudness = rms_per_second(audio, rate)
    assert (loudness[:6] > 0.02).all(), loudness


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 100_000), st.integers(0, 2**32 - 1))
def test_output_stage_matches_the_plain_numpy_reference(frames: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    audio = (rng.standard_normal((frames, 2)) * 0.2).astype(np.float32)
    k = REVERB_DECIMATION
    runs = frames // k
    assert np.allclose(_downmix(audio, k), audio[: runs * k].reshape(runs, 2 * k).mean(axis=1), atol=1e-6)
    wet = (rng.standard_normal(runs) * 0.1).astype(np.float32)
    expected = audio.astype(np.float64)
    held = np.repeat(wet.astype(np.float64), k)  # the tail at frame j is wet[j // k]
    expected[: len(held), 0] += held
    right = held[: max(0, frames - _STEREO_SPREAD)]
    expected[_STEREO_SPREAD : _STEREO_SPREAD + len(right), 1] += right  # the right channel hears it later
    loudest = mix_tail(audio, wet)
    assert np.allclose(audio, expected, atol=1e-6)
    assert loudest == float(np.abs(audio).max(initial=0.0))


def test_write_wav_scales_rounds_and_clips(tmp_path: Path) -> None:
    audio = np.array([[0.5, -0.5], [1.2, -3.0], [0.25, 0.0], [1e-6, -0.1]], dtype=np.float32)
    rate, back = read_wav(write_wav(audio, tmp_path / "g.wav", gain=1.5))
    assert rate == 44100
    assert (np.rint(back * 32768.0).astype(int) == [[24575, -24575], [32767, -32767], [12288, 0], [0, -4915]]).all()


def test_short_audio_has_no_tail_but_is_still_measured() -> None:
    audio = np.full((100, 2), 0.25, dtype=np.float32)
    assert reverb_tail(audio) is None
    assert mix_tail(audio, None) == 0.25


def test_a_render_is_byte_identical_run_to_run(tmp_path: Path) -> None:
    song = demo_song(8, tempo=96.0)
    first = render_wav(song, tmp_path / "1.wav").read_bytes()
    assert render_wav(song, tmp_path / "2.wav").read_bytes() == first
    midi = write_midi(song, tmp_path / "s.mid")
    assert render_wav(midi, tmp_path / "3.wav").read_bytes() == render_wav(midi, tmp_path / "4.wav").read_bytes()
