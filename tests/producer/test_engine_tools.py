"""`App.patterns()` and `App.theory()` (`producer.engines.pattern_tools`, `theory_tools`): pattern code
evaluated, queried in order, drawn, rendered at the program's own tempo and checked; chords, scales,
Roman numerals and the key heard in a real MIDI file (written here, read back)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from bandstand.errors import InvalidInput, PatternError, TheoryError
from bandstand.midi import write_midi
from bandstand.producer import App
from bandstand.producer.engines.pattern_tools import DEFAULT_BPM, MAX_GRID_STEPS
from bandstand.score import Note, Song, Track

from ..studio.songs import small_song


def test_haps_come_in_time_order_with_exact_times() -> None:
    tools = App().patterns()
    pattern = tools.evaluate('s("<bd sd> hh").fast(2)')
    haps = tools.haps(pattern, Fraction(0), Fraction(1))
    begins = [tools.time(h.part.begin) for h in haps]
    assert begins == [0, Fraction(1, 4), Fraction(1, 2), Fraction(3, 4)]
    assert [h.value["s"] for h in haps] == ["bd", "hh", "sd", "hh"]
    with pytest.raises(PatternError):
        tools.evaluate('s("bd"')


def test_a_grid_holds_pitched_notes_not_drums_and_sorts_pitched_rows_high_to_low() -> None:
    tools = App().patterns()
    grid = tools.grid(tools.evaluate('stack(s("bd ~"), note("c3 g3").slow(2))'), 0)
    assert grid == ["cycle 0 (2 steps)", "  bd |x.|", "  c3 |x-|"]  # a drum is not held; the note is
    assert tools.grid(tools.evaluate('note("c3 g3 e3")'), 0)[1:] == ["  g3 |.x.|", "  e3 |..x|", "  c3 |x..|"]
    assert tools.grid(tools.evaluate("silence"), 0) == ["cycle 0: (silence)"]
    wide = tools.grid(tools.evaluate('s("hh*64")'), 0)
    assert wide[0] == f"cycle 0 ({MAX_GRID_STEPS} steps, quantized)"


def test_a_song_plays_at_the_given_tempo_else_the_programs_else_the_default() -> None:
    tools = App().patterns()
    assert tools.song('s("bd sd")', 2).bpm == DEFAULT_BPM
    assert tools.song('setcpm(30)\ns("bd sd")', 2).bpm == 120.0  # 30 cycles a minute × 4 beats
    assert tools.song('setcpm(30)\ns("bd sd")', 2, beats_per_cycle=3).bpm == 90.0
    made = tools.song('samples("github:x/y")\ns("bd sd")', 2, bpm=100)
    assert made.bpm == 100 and made.song.tempo == 100 and made.notes
    assert sum(len(t.notes) for t in made.song.tracks) == 4


def test_validation_is_the_bands() -> None:
    tools = App().patterns()
    assert tools.validate('note("c3 eb3 g3")', scale="C minor").valid
    report = tools.validate('note("c3 e3")', scale="C minor", cycles=2)
    assert report.cycles == 2 and report.in_scale_ratio == 0.5 and not report.valid
    assert not tools.validate('s("bd"').valid


def test_chords_scales_and_romans() -> None:
    theory = App().theory()
    [chord] = theory.chords(["Cm7b5/Gb"])
    assert chord.root_name == "C" and chord.bass_name == "Gb"
    assert theory.canonical(theory.chords(["Cmin7"])[0]) == "Cm7"
    assert theory.scales(["Eb dorian"])[0].notes[:3] == ("Eb", "F", "Gb")
    read = theory.romans(["ii7", "V7"], "C major")
    assert read.key.name == "C major" and [(f, c.symbol) for f, c in read.chords] == [("ii7", "Dm7"), ("V7", "G7")]
    with pytest.raises(TheoryError):
        theory.chords(["H7"])


def test_the_key_heard_in_a_midi_file(tmp_path: Path) -> None:
    theory = App().theory()
    song = small_song()
    write_midi(song, tmp_path / "song.mid")
    heard = theory.key_heard(tmp_path / "song.mid")
    pitched = sum(len(t.notes) for t in song.tracks if not t.is_drum)
    assert heard.notes == pitched and heard.estimate.key.name.endswith(("major", "minor"))
    drums = Song(title="drums", tempo=120.0, tracks=[Track(name="drums", role="drums", is_drum=True,
                                                           notes=[Note(0.0, 0.5, 36, 100)])])
    write_midi(drums, tmp_path / "drums.mid")
    with pytest.raises(InvalidInput, match="no pitched notes"):
        theory.key_heard(tmp_path / "drums.mid")
    with pytest.raises(TheoryError):
        theory.key_heard(tmp_path / "song.mid", profile="nope")
