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
from bandstand.render.audio import PEAK, _allpass, _feedback, reverb, synthesize
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
