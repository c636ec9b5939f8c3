"""Rendered audio: the right length, not silent, in tune, mastered to its loudness target."""

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
from bandstand.render.audio import write_wav
from bandstand.render.dsp import feedback_echo
from bandstand.render.master import Master
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


def loudness(audio: np.ndarray, rate: int) -> float:
    import pyloudnorm

    return float(pyloudnorm.Meter(rate).integrated_loudness(audio))


def true_peak_db(audio: np.ndarray) -> float:
    from scipy.signal import resample_poly

    return float(20 * np.log10(np.abs(resample_poly(audio, 4, 1, axis=0)).max()))


def test_demo_renders_mastered_audio_with_a_short_tail(tmp_path: Path) -> None:
    song = demo_song(4, tempo=120.0)  # 16 beats at 120 bpm = 8 s
    path = render_wav(song, tmp_path / "demo.wav")
    rate, audio = read_wav(path)
    assert rate == 44100
    assert 8.0 * rate < len(audio) <= int((8.0 + TAIL_SECONDS) * rate)  # trailing silence trimmed
    assert loudness(audio, rate) == pytest.approx(-14.0, abs=0.5)
    assert true_peak_db(audio) <= -1.0
    per_second = rms_per_second(audio, rate)
    assert (per_second[:8] > 0.05).all(), per_second  # every second of music is audible
    assert np.abs(audio[-100:]).max() < 0.01  # it fades out, it does not stop mid-sound
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize("target", [-10.0, -16.0])
def test_the_loudness_target_is_met(tmp_path: Path, target: float) -> None:
    rate, audio = read_wav(render_wav(demo_song(4, tempo=100.0), tmp_path / "m.wav", settings=Master(target)))
    assert loudness(audio, rate) == pytest.approx(target, abs=0.5)
    assert true_peak_db(audio) <= -1.0


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
    assert 4.0 * rate < len(audio) <= int((4.0 + TAIL_SECONDS) * rate)
    assert rms_per_second(audio, rate)[:4].min() > 0.05


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1, 1, width=32), min_size=1, max_size=300), st.integers(1, 40),
       st.sampled_from([0.0, 0.5, 0.78, 0.8]))
def test_the_vectorized_echo_matches_the_recurrence(xs: list[float], delay: int, gain: float) -> None:
    x = np.array(xs, dtype=np.float32)
    echo = np.zeros(len(x))
    for i in range(delay, len(x)):
        echo[i] = x[i - delay] + gain * echo[i - delay]
    got = feedback_echo(np.stack([x, -x], axis=1), delay, gain)
    assert np.allclose(got[:, 0], echo, atol=1e-4) and np.allclose(got[:, 1], -echo, atol=1e-4)


def test_tempo_changes_set_the_length(tmp_path: Path) -> None:
    # 4 beats at 120 (2 s) then 4 beats at 60 (4 s)
    song = Song(tempo=120.0, tempo_changes=[TempoChange(4.0, 60.0)],
                tracks=[Track("Keys", "chords", notes=[Note(float(b), 1.0, 60, 90) for b in range(8)])])
    rate, audio = read_wav(render_wav(song, tmp_path / "t.wav"))
    assert 6.0 * rate < len(audio) <= int((6.0 + TAIL_SECONDS) * rate)
    per_second = rms_per_second(audio, rate)
    assert (per_second[:6] > 0.02).all(), per_second


def test_write_wav_scales_rounds_and_clips(tmp_path: Path) -> None:
    audio = np.array([[0.5, -0.5], [1.2, -3.0], [0.25, 0.0], [1e-6, -0.1]], dtype=np.float32)
    rate, back = read_wav(write_wav(audio, tmp_path / "g.wav", gain=1.5))
    assert rate == 44100
    assert (np.rint(back * 32768.0).astype(int) == [[24575, -24575], [32767, -32767], [12288, 0], [0, -4915]]).all()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-2.0, 2.0, width=32), min_size=2, max_size=300), st.floats(0.1, 2.0))
def test_the_compiled_pcm_conversion_is_numpys(values: list[float], gain: float) -> None:
    """`bandstand.render.jit.to_pcm16` (what `write_wav` runs where numba does) gives the numbers
    numpy's four steps give: halves rounded to even, −0 and the clip at ±32767 included."""
    from bandstand.render.iir import jit

    kernels = jit()
    assert kernels is not None
    pairs = len(values) // 2
    audio = np.array(values[: 2 * pairs], dtype=np.float32).reshape(pairs, 2)
    audio[0] = [np.float32(0.5) / np.float32(32767.0), -0.0]  # a half step, and a negative zero
    scale = np.float32(gain * 32767.0)
    expected = np.rint(np.clip(audio * scale, -32767.0, 32767.0))
    rows = np.ascontiguousarray(audio.T)
    for source in (audio, rows.T):  # contiguous frames, and a view of channel-major rows
        got, pcm = np.empty_like(audio), np.empty(audio.shape, dtype=np.int16)
        kernels.to_pcm16(source, scale, got, pcm)
        assert got.tobytes() == expected.tobytes()
        assert np.array_equal(pcm, expected.astype(np.int16))


def test_a_render_is_byte_identical_run_to_run(tmp_path: Path) -> None:
    song = demo_song(8, tempo=96.0)
    first = render_wav(song, tmp_path / "1.wav").read_bytes()
    assert render_wav(song, tmp_path / "2.wav").read_bytes() == first
    midi = write_midi(song, tmp_path / "s.mid")
    assert render_wav(midi, tmp_path / "3.wav").read_bytes() == render_wav(midi, tmp_path / "4.wav").read_bytes()


def test_the_master_written_a_block_at_a_time_is_the_master(tmp_path: Path) -> None:
    """`write_wav(mix, mastering=plan)` masters each block as it writes it: the same bytes as the
    whole mix mastered first, with the trim and the fade landing across a block boundary."""
    from bandstand.render.master import master, plan_master

    rng = np.random.default_rng(3)
    mix = rng.uniform(-3e-4, 3e-4, (200_000, 2)).astype(np.float32)  # under −60 dBFS: heard in the fade
    mix[:48_000] = rng.normal(0.0, 0.3, (48_000, 2)).astype(np.float32)
    mix[20_000:20_100] *= 6  # a burst for the limiter
    plan = plan_master(mix, 44100, Master(target_lufs=-9.0))
    assert plan.frames - plan.fade < 1 << 16 < plan.frames and plan.limiter_max_db > 0
    assert np.abs(mix[plan.frames - plan.fade : plan.frames] * plan.gain).max() * 32767 > 4
    streamed = write_wav(mix, tmp_path / "streamed.wav", mastering=plan).read_bytes()
    whole = master(mix.copy(), 44100, Master(target_lufs=-9.0))
    assert streamed == write_wav(whole.audio, tmp_path / "whole.wav").read_bytes()


def test_render_wav_writes_what_render_song_masters(tmp_path: Path) -> None:
    from bandstand.render import render_song, write_stems

    song = demo_song(8, tempo=96.0)
    settings = Master(target_lufs=-10.0)
    path = render_wav(song, tmp_path / "song.wav", settings=settings, stems_dir=tmp_path / "stems")
    rendered = render_song(song, settings=settings, stems=True)
    assert path.read_bytes() == write_wav(rendered.audio, tmp_path / "whole.wav").read_bytes()
    written = write_stems(rendered, tmp_path / "again")
    assert sorted(p.name for p in written) == sorted(p.name for p in (tmp_path / "stems").glob("*.wav"))
    for stem in written:
        assert stem.read_bytes() == (tmp_path / "stems" / stem.name).read_bytes()
