"""The numpy SoundFont synthesizer against TinySoundFont (the reference it ports), on the
project's SoundFont: the parser's presets, single notes of every program, envelopes, loops,
bends, controllers, drums, and determinism."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bandstand.cli import run as cli
from bandstand.errors import ConfigError
from bandstand.midi import write_midi
from bandstand.render import sf2
from bandstand.render.sf2 import SoundFontError, Synth, parse
from bandstand.render.soundfont import find_soundfont
from bandstand.render.synth import ENGINE_ENV, engine, synthesize_tracks
from tests.midi.songs import demo_song

tinysoundfont = pytest.importorskip("tinysoundfont")  # the reference (the `reference` extra)

RATE = 44100
TOLERANCE = 1e-5  # largest sample difference allowed (float32 rounding is ~1e-7)
Step = tuple[str, tuple[Any, ...]]


@pytest.fixture(scope="module")
def data() -> bytes:
    return find_soundfont().read_bytes()


def run(engine: Callable[..., Any], data: bytes, script: Sequence[Step | int]) -> np.ndarray:
    """Play a script (calls by name, ints are frames to generate) through a fresh engine."""
    synth = engine(samplerate=RATE)
    synth.sfload(data)
    out: list[np.ndarray] = []
    for step in script:
        if isinstance(step, int):
            buffer = np.zeros((step, 2), dtype=np.float32)
            synth.generate_simple(step, buffer=buffer.data.cast("B"))
            out.append(buffer)
        else:
            name, args = step
            getattr(synth, name)(*args)
    return np.concatenate(out)


def both(data: bytes, script: Sequence[Step | int]) -> tuple[np.ndarray, np.ndarray]:
    return run(tinysoundfont.Synth, data, script), run(Synth, data, script)


def test_exports() -> None:
    assert set(sf2.__all__) == {"SoundFont", "SoundFontError", "Synth", "parse"}


def test_presets_match_tinysoundfont(data: bytes) -> None:
    font = parse(data)
    reference = tinysoundfont.Synth()
    sfid = reference.sfload(data)
    assert len(font.presets) == 136
    for preset in font.presets:
        assert reference.sfpreset_name(sfid, preset.bank, preset.number) == preset.name
    numbers = {(p.bank, p.number) for p in font.presets}
    for bank, number in [(0, n) for n in range(128)] + [(128, 0), (128, 25)]:
        assert ((bank, number) in numbers) == (reference.sfpreset_name(sfid, bank, number) is not None)
    assert font.samples.dtype == np.float32 and font.samples[-1] == 0.0


def test_not_a_soundfont() -> None:
    with pytest.raises(SoundFontError, match="not a SoundFont 2 file"):
        parse(b"RIFF\x04\x00\x00\x00WAVE")
    with pytest.raises(SoundFontError, match="no preset data"):
        parse(b"RIFF\x04\x00\x00\x00sfbk")


@pytest.mark.parametrize("program", range(0, 128, 3))
def test_single_notes_per_program(data: bytes, program: int) -> None:
    loudest = 0.0
    for key, velocity in ((40, 100), (64, 60), (88, 127)):
        script = [("program_change", (0, program)), ("noteon", (0, key, velocity)), 11025,
                  ("noteoff", (0, key)), 22050]
        ref, got = both(data, script)
        loudest = max(loudest, float(np.abs(ref).max()))
        assert np.abs(ref - got).max() < TOLERANCE, (program, key)
    assert loudest > 0.001  # the program sounds (some keys are outside an instrument's range)


def test_drum_kit(data: bytes) -> None:
    script: list[Step | int] = [("program_change", (9, 0, True))]
    for key in (35, 38, 42, 46, 42, 49, 51):  # the closed hi-hat chokes the open one (exclusive class)
        script += [("noteon", (9, key, 110)), 3001, ("noteoff", (9, key)), 1000]
    ref, got = both(data, [*script, 22050])
    assert np.abs(ref).max() > 0.01
    assert np.abs(ref - got).max() < TOLERANCE


def test_envelope_stages_and_release(data: bytes) -> None:
    # a slow pad (long attack and release) and a plucked string (decay to silence)
    for program in (89, 24, 46):
        script = [("program_change", (0, program)), ("noteon", (0, 60, 90)), 30000, ("noteoff", (0, 60)),
                  *[997] * 40]
        ref, got = both(data, script)
        assert np.abs(ref - got).max() < TOLERANCE, program


def test_loops_over_seconds(data: bytes) -> None:
    # organ and strings hold a looped sample for several seconds; requests of odd sizes
    for program in (19, 48):
        script = [("program_change", (0, program)), ("noteon", (0, 50, 100)), ("noteon", (0, 57, 100)),
                  *[4093] * 40, ("noteoff", (0, 50)), ("noteoff", (0, 57)), 44100]
        ref, got = both(data, script)
        assert np.abs(ref - got).max() < TOLERANCE, program


def test_pitch_bend_and_range(data: bytes) -> None:
    script: list[Step | int] = [("program_change", (0, 81)), ("noteon", (0, 60, 100)), 5000]
    for value in (8192, 12000, 16383, 0, 4000, 8192):
        script += [("pitchbend", (0, value)), 3333]
    script += [("control_change", (0, 101, 0)), ("control_change", (0, 100, 0)),  # RPN 0: bend range 7
               ("control_change", (0, 6, 7)), ("pitchbend", (0, 14000)), 5000, ("noteoff", (0, 60)), 20000]
    ref, got = both(data, script)
    assert np.abs(ref - got).max() < TOLERANCE


def test_controllers(data: bytes) -> None:
    # volume, expression and pan move sounding notes; sustain (64) is ignored by both;
    # all-sound-off cuts, reset-all-controllers restores
    script: list[Step | int] = [("program_change", (3, 0)), ("noteon", (3, 60, 100)), ("noteon", (3, 67, 80)), 4000]
    for cc, value in ((7, 64), (11, 90), (10, 0), (10, 127), (64, 127), (121, 0), (7, 20)):
        script += [("control_change", (3, cc, value)), 2500]
    script += [("noteoff", (3, 60)), 3000, ("control_change", (3, 120, 0)), 2000, ("noteon", (3, 72, 100)),
               3000, ("sounds_off", ()), 10000]
    ref, got = both(data, script)
    assert np.abs(ref - got).max() < TOLERANCE


def test_program_changes_and_channels(data: bytes) -> None:
    script: list[Step | int] = []
    for ch, program in ((0, 0), (1, 33), (2, 52), (4, 73)):
        script += [("program_change", (ch, program)), ("noteon", (ch, 55 + ch * 3, 100)), 1500]
    script += [("program_change", (0, 40)), ("noteon", (0, 62, 100)), 9000, ("noteoff", (1, 58)), 20000]
    ref, got = both(data, script)
    assert np.abs(ref - got).max() < TOLERANCE


def test_a_channel_never_set_up_plays_nothing(data: bytes) -> None:
    got = run(Synth, data, [("noteon", (5, 60, 100)), 2000])
    assert not got.any()


def test_same_calls_same_bits(data: bytes) -> None:
    script = [("program_change", (0, 41)), ("noteon", (0, 60, 100)), ("noteon", (0, 64, 70)), 7001,
              ("pitchbend", (0, 9000)), 5003, ("noteoff", (0, 60)), 30000]
    first, second = run(Synth, data, script), run(Synth, data, script)
    assert first.tobytes() == second.tobytes()


def test_render_with_the_numpy_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """`$BANDSTAND_SYNTH=numpy` renders a song (both processes) as the binding does, within rounding."""
    song = demo_song()
    monkeypatch.setenv(ENGINE_ENV, "tinysoundfont")
    assert engine() is tinysoundfont.Synth
    reference = synthesize_tracks(song, workers=2)
    monkeypatch.setenv(ENGINE_ENV, "numpy")
    assert engine() is Synth
    got = synthesize_tracks(song, workers=2)
    assert np.abs(reference).max() > 0.05
    assert np.abs(reference - got).max() < TOLERANCE


def test_a_wrong_engine_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    midi = write_midi(demo_song(2), tmp_path / "song.mid")
    monkeypatch.setenv(ENGINE_ENV, "fluidsynth")
    with pytest.raises(ConfigError, match=r"\$BANDSTAND_SYNTH is 'fluidsynth'; use one of auto, tinysoundfont, numpy"):
        synthesize_tracks(demo_song())
    assert cli(["render", str(midi)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "$BANDSTAND_SYNTH is 'fluidsynth'" in err[0]
    assert not (tmp_path / "song.wav").exists()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(keep=st.integers(-300_000, 0), flips=st.lists(st.tuples(st.integers(1, 300_000), st.integers(0, 255)), max_size=12))
def test_damaged_files_are_refused_or_played(data: bytes, keep: int, flips: list[tuple[int, int]]) -> None:
    """A SoundFont cut short or corrupted in its preset data (the file's last part) is refused
    with `SoundFontError`, or parsed into presets that play without reading outside the samples."""
    damaged = bytearray(data[: len(data) + keep])
    for back, value in flips:
        if back <= len(damaged):
            damaged[-back] = value
    synth = Synth()
    try:
        synth.sfload(bytes(damaged))
    except SoundFontError:
        return
    font = synth.font
    assert font is not None
    for number in {p.number for p in font.presets if p.bank == 0} or {0}:
        with contextlib.suppress(RuntimeError):  # the preset may be gone
            synth.program_change(0, number)
        for key in (30, 60, 90):
            synth.noteon(0, key, 100)
        synth.generate_simple(300)
