"""bandstand's SoundFont synthesizer — the compiled engine (numba, a whole track per call) and
the per-event numpy port — against TinySoundFont (the reference both port; those tests skip
where the binding is not installed) and against each other, on the project's SoundFont: the
parser's presets, single notes of every program, envelopes, loops, bends, controllers, drums,
composed songs, determinism, and the engine `$BANDSTAND_SYNTH` chooses.

Every engine is asked for the same requests: a script's calls are played at the frame where
they stand, and its frames are asked for in pieces that stop at each multiple of the engine's
slice (as the render asks), so the blocks of 64 frames in which the control values step are
the same everywhere."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import wave
from collections.abc import Callable, Sequence
from functools import partial
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
from bandstand.render.sf2.layout import EVENT_INTS
from bandstand.render.sf2.table import font_table, table_of
from bandstand.render.soundfont import find_soundfont
from bandstand.render.synth import ENGINE_ENV, engine, engine_name, synthesize_tracks
from tests.midi.songs import demo_song

RATE = 44100
TOLERANCE = 1e-5  # largest sample difference allowed (float32 rounding is ~1e-7)
Step = tuple[str, tuple[Any, ...]]


@pytest.fixture(scope="module")
def data() -> bytes:
    return find_soundfont().read_bytes()


SLICE = 1 << 14  # the render's (and the compiled engine's) slice


def run(engine: Callable[..., Any], data: bytes, script: Sequence[Step | int]) -> np.ndarray:
    """Play a script (calls by name, ints are frames to generate) through a fresh per-event
    synthesizer (TinySoundFont's binding, or bandstand's numpy port)."""
    synth = engine(samplerate=RATE)
    synth.sfload(data)
    out: list[np.ndarray] = []
    at = 0
    for step in script:
        if isinstance(step, int):
            buffer = np.zeros((step, 2), dtype=np.float32)
            done = 0
            while done < step:  # cut at each slice boundary, as the render asks
                piece = min(step - done, SLICE - at % SLICE)
                synth.generate_simple(piece, buffer=buffer[done : done + piece].data.cast("B"))
                done += piece
                at += piece
            out.append(buffer)
        else:
            name, args = step
            getattr(synth, name)(*args)
    return np.concatenate(out)


_KINDS = {"program_change": 0, "control_change": 1, "pitchbend": 2, "noteoff": 3, "noteon": 4}


def run_compiled(data: bytes, script: Sequence[Step | int], pedal: bool = False) -> np.ndarray:
    """The same script played by the compiled engine: each call an event at its frame, and a
    controller nothing answers (3) where each request ends, so the requests are the same."""
    from bandstand.render.sf2.track import TrackPlayer

    rows: list[tuple[int, ...]] = []
    at = 0
    for step in script:
        if isinstance(step, int):
            at += step
            rows.append((at, 1, 0, 3, 0))
        elif step[0] == "sounds_off":
            rows += [(at, 1, ch, 120, 0) for ch in range(16)]
        else:
            name, args = step
            values = (*args, 0, 0)[:3] if name != "program_change" else (args[0], args[1], 0)
            rows.append((at, _KINDS[name], *values))
    out = np.zeros((2, at), dtype=np.float32)
    player = TrackPlayer(font_table(data), RATE, pedal=pedal)
    player.play_rows(np.array(rows, dtype=np.int64).reshape(-1, EVENT_INTS), out)
    return out.T


ENGINES = ["compiled", "numpy"]


def engine_available(name: str) -> None:
    if name == "compiled":
        pytest.importorskip("numba")


Player = Callable[[bytes, Sequence[Step | int]], np.ndarray]


@pytest.fixture(params=ENGINES)
def player(request: pytest.FixtureRequest) -> Player:
    """bandstand's synthesizer: each engine, playing a script."""
    engine_available(request.param)
    if request.param == "compiled":
        return run_compiled
    return partial(run, Synth)


@pytest.fixture
def both(data: bytes, player: Player) -> Callable[[Sequence[Step | int]], tuple[np.ndarray, np.ndarray]]:
    """A script played by TinySoundFont (the reference) and by bandstand's synthesizer."""
    tinysoundfont = pytest.importorskip("tinysoundfont")  # the reference (the `reference` extra)

    def play(script: Sequence[Step | int]) -> tuple[np.ndarray, np.ndarray]:
        return run(tinysoundfont.Synth, data, script), player(data, script)

    return play


Both = Callable[[Sequence[Step | int]], tuple[np.ndarray, np.ndarray]]


def test_exports() -> None:
    assert set(sf2.__all__) == {"SoundFont", "SoundFontError", "Synth", "parse"}


def test_presets_match_tinysoundfont(data: bytes) -> None:
    tinysoundfont = pytest.importorskip("tinysoundfont")
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
def test_single_notes_per_program(both: Both, program: int) -> None:
    loudest = 0.0
    for key, velocity in ((40, 100), (64, 60), (88, 127)):
        script = [("program_change", (0, program)), ("noteon", (0, key, velocity)), 11025,
                  ("noteoff", (0, key)), 22050]
        ref, got = both(script)
        loudest = max(loudest, float(np.abs(ref).max()))
        assert np.abs(ref - got).max() < TOLERANCE, (program, key)
    assert loudest > 0.001  # the program sounds (some keys are outside an instrument's range)


def test_drum_kit(both: Both) -> None:
    script: list[Step | int] = [("program_change", (9, 0, True))]
    for key in (35, 38, 42, 46, 42, 49, 51):  # the closed hi-hat chokes the open one (exclusive class)
        script += [("noteon", (9, key, 110)), 3001, ("noteoff", (9, key)), 1000]
    ref, got = both([*script, 22050])
    assert np.abs(ref).max() > 0.01
    assert np.abs(ref - got).max() < TOLERANCE


def test_envelope_stages_and_release(both: Both) -> None:
    # a slow pad (long attack and release) and a plucked string (decay to silence)
    for program in (89, 24, 46):
        script = [("program_change", (0, program)), ("noteon", (0, 60, 90)), 30000, ("noteoff", (0, 60)),
                  *[997] * 40]
        ref, got = both(script)
        assert np.abs(ref - got).max() < TOLERANCE, program


def test_loops_over_seconds(both: Both) -> None:
    # organ and strings hold a looped sample for several seconds; requests of odd sizes
    for program in (19, 48):
        script = [("program_change", (0, program)), ("noteon", (0, 50, 100)), ("noteon", (0, 57, 100)),
                  *[4093] * 40, ("noteoff", (0, 50)), ("noteoff", (0, 57)), 44100]
        ref, got = both(script)
        assert np.abs(ref - got).max() < TOLERANCE, program


def test_pitch_bend_and_range(both: Both) -> None:
    script: list[Step | int] = [("program_change", (0, 81)), ("noteon", (0, 60, 100)), 5000]
    for value in (8192, 12000, 16383, 0, 4000, 8192):
        script += [("pitchbend", (0, value)), 3333]
    script += [("control_change", (0, 101, 0)), ("control_change", (0, 100, 0)),  # RPN 0: bend range 7
               ("control_change", (0, 6, 7)), ("pitchbend", (0, 14000)), 5000, ("noteoff", (0, 60)), 20000]
    ref, got = both(script)
    assert np.abs(ref - got).max() < TOLERANCE


def test_controllers(both: Both) -> None:
    # volume, expression and pan move sounding notes; sustain (64) is ignored by both;
    # all-sound-off cuts, reset-all-controllers restores
    script: list[Step | int] = [("program_change", (3, 0)), ("noteon", (3, 60, 100)), ("noteon", (3, 67, 80)), 4000]
    for cc, value in ((7, 64), (11, 90), (10, 0), (10, 127), (64, 127), (121, 0), (7, 20)):
        script += [("control_change", (3, cc, value)), 2500]
    script += [("noteoff", (3, 60)), 3000, ("control_change", (3, 120, 0)), 2000, ("noteon", (3, 72, 100)),
               3000, ("sounds_off", ()), 10000]
    ref, got = both(script)
    assert np.abs(ref - got).max() < TOLERANCE


def test_program_changes_and_channels(both: Both) -> None:
    script: list[Step | int] = []
    for ch, program in ((0, 0), (1, 33), (2, 52), (4, 73)):
        script += [("program_change", (ch, program)), ("noteon", (ch, 55 + ch * 3, 100)), 1500]
    script += [("program_change", (0, 40)), ("noteon", (0, 62, 100)), 9000, ("noteoff", (1, 58)), 20000]
    ref, got = both(script)
    assert np.abs(ref - got).max() < TOLERANCE


def test_a_channel_never_set_up_plays_nothing(data: bytes) -> None:
    # the per-event port's interface (TinySoundFont's): a channel exists once something set it up
    got = run(Synth, data, [("noteon", (5, 60, 100)), 2000])
    assert not got.any()


def test_same_calls_same_bits(data: bytes, player: Player) -> None:
    script = [("program_change", (0, 41)), ("noteon", (0, 60, 100)), ("noteon", (0, 64, 70)), 7001,
              ("pitchbend", (0, 9000)), 5003, ("noteoff", (0, 60)), 30000]
    first, second = player(data, script), player(data, script)
    assert first.tobytes() == second.tobytes()


def test_the_table_holds_every_region(data: bytes) -> None:
    from bandstand.render.sf2.table import regions_of

    font = parse(data)
    table = table_of(font)
    assert len(table.first) == len(font.presets) + 1 and table.first[-1] == sum(len(p.regions) for p in font.presets)
    for index, preset in enumerate(font.presets):
        assert regions_of(table, index) == list(preset.regions)
    assert np.array_equal(font_table(data).regions, table.regions)


def test_the_table_is_kept_on_disk_and_a_damaged_copy_is_parsed_again(data: bytes, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from bandstand.render.sf2 import table as tables

    monkeypatch.setenv(tables.CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(tables, "_TABLES", {})
    first = tables.font_table(data)
    kept = list(tmp_path.glob("sf2-*.npz"))
    assert len(kept) == 1
    monkeypatch.setattr(tables, "_TABLES", {})
    again = tables.font_table(data)  # read back, not parsed
    assert np.array_equal(again.regions, first.regions) and np.array_equal(again.samples, first.samples)
    kept[0].write_bytes(b"not an npz")
    monkeypatch.setattr(tables, "_TABLES", {})
    assert np.array_equal(tables.font_table(data).regions, first.regions)
    monkeypatch.setenv(tables.CACHE_ENV, str(tmp_path / "file"))
    (tmp_path / "file").write_text("a file where the folder should be")
    monkeypatch.setattr(tables, "_TABLES", {})
    assert np.array_equal(tables.font_table(data).regions, first.regions)  # no cache: parsed, no error


def test_the_sustain_pedal_holds_a_released_key(data: bytes, player: Player) -> None:
    """CC64 down holds a note past its note-off until the pedal comes up (TinySoundFont ignores
    it); a key struck again under the pedal lets its held voice go."""
    engine_available("compiled")
    organ = [("program_change", (0, 19))]  # an organ holds its level while the key (or pedal) holds it
    pedal = [*organ, ("control_change", (0, 64, 127)), ("noteon", (0, 60, 100)), 11025, ("noteoff", (0, 60)),
             22050, ("control_change", (0, 64, 0)), 22050]
    plain = [*organ, ("noteon", (0, 60, 100)), 11025, ("noteoff", (0, 60)), 22050, 22050]
    played = {}
    for name, script in (("pedal", pedal), ("plain", plain)):
        if player is run_compiled:
            played[name] = run_compiled(data, script, pedal=True)
        else:
            played[name] = run(partial(Synth, pedal=True), data, script)

    def level(audio: np.ndarray, start: float, end: float) -> float:
        part = audio[int(start * RATE) : int(end * RATE)]
        return float(np.sqrt((part.astype(np.float64) ** 2).mean()))

    held = level(played["pedal"], 0.05, 0.25)
    assert held > 0.01
    assert level(played["pedal"], 0.5, 0.75) > 0.5 * held  # past the note-off, under the pedal
    assert level(played["pedal"], 1.0, 1.25) < 0.05 * held  # the pedal came up at 0.75 s
    assert level(played["plain"], 0.5, 0.75) < 0.05 * held  # without the pedal the key lets go at 0.25 s
    restruck = [*organ, ("control_change", (0, 64, 127)), ("noteon", (0, 60, 100)), 4410, ("noteoff", (0, 60)),
                4410, ("noteon", (0, 60, 100)), 4410, ("noteoff", (0, 60)), 4410, ("control_change", (0, 64, 0)),
                22050]
    again = (run_compiled(data, restruck, pedal=True) if player is run_compiled
             else run(partial(Synth, pedal=True), data, restruck))
    once = run_compiled(data, restruck, pedal=False) if player is run_compiled else run(Synth, data, restruck)
    assert again.shape == once.shape
    without = [s for s in restruck if not (isinstance(s, tuple) and s[0] == "control_change")]
    assert np.abs(run(Synth, data, without) - run(Synth, data, restruck)).max() == 0.0  # CC64 ignored by default


def test_render_with_each_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """`$BANDSTAND_SYNTH` `compiled` and `numpy` render a song (on two threads) as the binding
    does, within rounding, and as each other."""
    tinysoundfont = pytest.importorskip("tinysoundfont")
    pytest.importorskip("numba")
    song = demo_song()
    assert not any(c.control == 64 for t in song.tracks for c in t.controls)  # the binding ignores the pedal
    monkeypatch.setenv(ENGINE_ENV, "tinysoundfont")
    assert engine() is tinysoundfont.Synth
    reference = synthesize_tracks(song, workers=2)
    assert np.abs(reference).max() > 0.05
    got = {}
    for name in ENGINES:
        monkeypatch.setenv(ENGINE_ENV, name)
        assert engine_name() == name
        got[name] = synthesize_tracks(song, workers=2)
        assert np.abs(reference - got[name]).max() < TOLERANCE, name
    assert np.abs(got["compiled"] - got["numpy"]).max() < TOLERANCE


def test_auto_is_bandstands_synthesizer(monkeypatch: pytest.MonkeyPatch) -> None:
    """`auto` (and no value) never picks the binding: compiled with numba, numpy without it."""
    pytest.importorskip("numba")
    for value in ("auto", ""):
        monkeypatch.setenv(ENGINE_ENV, value)
        assert engine_name() == "compiled"
        assert isinstance(engine()(samplerate=RATE), Synth)  # the per-event interface is the numpy port
    monkeypatch.setitem(sys.modules, "numba", None)  # as if numba were not installed
    monkeypatch.setenv("BANDSTAND_NATIVE", "0")  # (and so nothing it compiled kept as machine code)
    assert engine_name() == "numpy"
    monkeypatch.setenv(ENGINE_ENV, "compiled")
    with pytest.raises(ConfigError, match=r"^\$BANDSTAND_SYNTH is compiled but numba is not installed"):
        engine_name()


def test_tinysoundfont_missing_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tinysoundfont", None)
    monkeypatch.setenv(ENGINE_ENV, "tinysoundfont")
    with pytest.raises(ConfigError, match=r"pip install --no-deps tinysoundfont") as caught:
        engine()
    assert "\n" not in str(caught.value)


def test_a_wrong_engine_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    midi = write_midi(demo_song(2), tmp_path / "song.mid")
    monkeypatch.setenv(ENGINE_ENV, "fluidsynth")
    with pytest.raises(ConfigError,
                       match=r"\$BANDSTAND_SYNTH is 'fluidsynth'; use one of auto, compiled, numpy, tinysoundfont"):
        synthesize_tracks(demo_song())
    assert cli(["render", str(midi)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "$BANDSTAND_SYNTH is 'fluidsynth'" in err[0]
    assert not (tmp_path / "song.wav").exists()


def _render_process(midi: Path, out: Path, value: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, ENGINE_ENV: value}
    return subprocess.run([sys.executable, "-m", "bandstand", "render", str(midi), "--wav", str(out),
                           "--png", str(out.with_suffix(".png"))],
                          capture_output=True, text=True, env=env, cwd=Path(__file__).parents[2])


def _samples(path: Path) -> np.ndarray:
    with wave.open(str(path)) as wav:
        return np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2").astype(np.int32)


def test_the_engine_value_chooses_in_a_real_render(tmp_path: Path) -> None:
    """`bandstand render` in its own process: a wrong `$BANDSTAND_SYNTH` is one line and exit 2
    (no WAV); `compiled` and `numpy` write WAVs within one least significant bit."""
    pytest.importorskip("numba")
    midi = write_midi(demo_song(4), tmp_path / "song.mid")
    bogus = _render_process(midi, tmp_path / "bogus.wav", "bogus")
    assert bogus.returncode == 2
    assert len(bogus.stderr.strip().splitlines()) == 1 and "$BANDSTAND_SYNTH is 'bogus'" in bogus.stderr
    assert not (tmp_path / "bogus.wav").exists()
    for name in ENGINES:
        done = _render_process(midi, tmp_path / f"{name}.wav", name)
        assert done.returncode == 0, done.stderr
    compiled, numpy_ = _samples(tmp_path / "compiled.wav"), _samples(tmp_path / "numpy.wav")
    assert len(compiled) == len(numpy_) and np.abs(compiled).max() > 1000
    assert np.abs(compiled - numpy_).max() <= 1


def test_engines_agree_on_composed_songs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The compiled engine and the numpy port play composed songs (every part: drums, bass,
    chords, lead, pad; the comping piano's sustain pedal too) the same within float rounding."""
    pytest.importorskip("numba")
    from bandstand.compose import compose

    pedals = 0
    for prompt, seed in (("upbeat funk with slap bass and brass stabs", 2), ("slow jazz ballad, warm piano", 3)):
        song = compose(prompt, seed=seed, bars=8, out_dir=str(tmp_path / str(seed)), render_audio=False,
                       render_pianoroll=False).song
        assert song is not None
        pedals += sum(c.control == 64 for t in song.tracks for c in t.controls)
        got = {}
        for name in ENGINES:
            monkeypatch.setenv(ENGINE_ENV, name)
            got[name] = synthesize_tracks(song, workers=1)
        assert np.abs(got["numpy"]).max() > 0.05
        assert np.abs(got["compiled"] - got["numpy"]).max() < TOLERANCE, prompt
    assert pedals  # the ballad's piano uses the pedal


_CALLS = st.one_of(
    st.tuples(st.just("noteon"), st.tuples(st.integers(0, 3), st.integers(20, 100), st.integers(1, 127))),
    st.tuples(st.just("noteoff"), st.tuples(st.integers(0, 3), st.integers(20, 100))),
    st.tuples(st.just("pitchbend"), st.tuples(st.integers(0, 3), st.integers(0, 16383))),
    st.tuples(st.just("control_change"), st.tuples(st.integers(0, 3),
                                                   st.sampled_from([1, 7, 10, 11, 64, 120, 121, 123]),
                                                   st.integers(0, 127))),
    st.integers(1, 5000),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(programs=st.lists(st.integers(0, 127), min_size=4, max_size=4), calls=st.lists(_CALLS, max_size=30))
def test_engines_agree_on_any_calls(data: bytes, programs: list[int], calls: list[Step | int]) -> None:
    """Any sequence of notes, bends, controllers (the sustain pedal among them) and request sizes
    sounds the same (within float rounding) with the compiled engine as with the numpy port."""
    pytest.importorskip("numba")
    script: list[Step | int] = [("program_change", (ch, p)) for ch, p in enumerate(programs)]
    script += [*calls, 30000]
    for pedal in (False, True):
        compiled = run_compiled(data, script, pedal=pedal)
        numpy_ = run(partial(Synth, pedal=pedal), data, script)
        assert np.abs(compiled - numpy_).max() < TOLERANCE


_NO_CACHE = """
import numba.core.caching as caching

def nowhere(self):
    raise OSError("read-only")

caching._CacheLocator.ensure_cache_path = nowhere  # as on a read-only install with no writable home
import numpy as np
from bandstand.render.sf2 import engine
from bandstand.render.sf2.table import font_table
from bandstand.render.sf2.track import TrackPlayer
from bandstand.render.soundfont import find_soundfont
player = TrackPlayer(font_table(find_soundfont().read_bytes()))
out = np.zeros((2, 4410), dtype=np.float32)
player.play([(0.0, 0, 0, 0, 0), (0.0, 4, 0, 60, 100)], out)
print(engine._LOADED != [], float(np.abs(out).max()) > 0.01)
"""


def test_the_engine_runs_where_nothing_can_be_cached(tmp_path: Path) -> None:
    """Where numba finds no directory to cache in, the engine is compiled in memory and plays."""
    pytest.importorskip("numba")
    done = subprocess.run([sys.executable, "-c", _NO_CACHE], capture_output=True, text=True,
                          cwd=Path(__file__).parents[2], env={**os.environ, "BANDSTAND_CACHE": str(tmp_path), "BANDSTAND_NATIVE": "0"})  # numba's own way, no machine code kept
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(keep=st.integers(-300_000, 0), flips=st.lists(st.tuples(st.integers(1, 300_000), st.integers(0, 255)), max_size=12))
@pytest.mark.parametrize("engine_name", ENGINES)
def test_damaged_files_are_refused_or_played(data: bytes, keep: int, flips: list[tuple[int, int]],
                                             engine_name: str) -> None:
    """A SoundFont cut short or corrupted in its preset data (the file's last part) is refused
    with `SoundFontError`, or parsed into presets that play without reading outside the samples."""
    engine_available(engine_name)
    damaged = bytearray(data[: len(data) + keep])
    for back, value in flips:
        if back <= len(damaged):
            damaged[-back] = value
    try:
        font = parse(bytes(damaged))
    except SoundFontError:
        return
    numbers = {p.number for p in font.presets if p.bank == 0} or {0}
    if engine_name == "compiled":
        script: list[Step | int] = []
        for number in numbers:
            script += [("program_change", (0, number)), *[("noteon", (0, key, 100)) for key in (30, 60, 90)], 300]
        from bandstand.render.sf2.track import TrackPlayer

        table = table_of(font)
        rows = [(i * 300, kind, 0, a, b) for i, number in enumerate(sorted(numbers))
                for kind, a, b in ((0, number, 0), (4, 30, 100), (4, 60, 100), (4, 90, 100))]
        out = np.zeros((2, 300 * len(numbers) + 300), dtype=np.float32)
        with contextlib.suppress(sf2_error()):  # the preset may be gone
            TrackPlayer(table).play_rows(np.array(rows, dtype=np.int64), out)
        return
    synth = Synth()
    synth.sfload(bytes(damaged))
    for number in numbers:
        with contextlib.suppress(RuntimeError):  # the preset may be gone
            synth.program_change(0, number)
        for key in (30, 60, 90):
            synth.noteon(0, key, 100)
        synth.generate_simple(300)


def sf2_error() -> type[Exception]:
    from bandstand.errors import RenderError

    return RenderError
