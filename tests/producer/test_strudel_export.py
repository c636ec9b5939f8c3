"""`bandstand export SESSION --format strudel` writes a program Strudel plays as the song: run
under node the way the REPL runs it (tests/patterns/strudel/repl.mjs), its haps have the
song's MIDI notes' onsets, pitches, lengths and velocities exactly (MIDI read back with mido),
its tempo is the song's, and every sound is one of Strudel's soundfonts or drum names."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import mido
import pytest

from bandstand.cli import run
from bandstand.craft.to_pattern import DRUM_SOUNDS, OTHER_DRUM
from bandstand.midi import STRUDEL_SOUNDFONTS
from bandstand.producer.sessions.export import STRUDEL_FILE

from ..patterns.reference import node_ready, strudel_program
from .midi_songs import four_part_song

PPQ_OUT = 480


def midi_notes(path: Path) -> tuple[list[tuple[int, int, int, int, bool]], float, int]:
    """(onset tick, pitch, length in ticks, velocity, is drum) of every note, the first tempo
    and the file's PPQ — read by mido, not by bandstand."""
    midi = mido.MidiFile(path)
    notes, tempo = [], 120.0
    for track in midi.tracks:
        tick, open_notes = 0, {}
        for message in track:
            tick += message.time
            if message.type == "set_tempo" and tick == 0:
                tempo = mido.tempo2bpm(message.tempo)
            if message.type == "note_on" and message.velocity:
                open_notes.setdefault((message.channel, message.note), []).append((tick, message.velocity))
            elif message.type in ("note_off", "note_on"):
                start, velocity = open_notes[(message.channel, message.note)].pop(0)
                notes.append((start, message.note, tick - start, velocity, message.channel == 9))
    return sorted(notes), tempo, midi.ticks_per_beat


def strudel_notes(haps: list[dict[str, object]], beats_per_cycle: int, ppq: int) -> list[tuple[object, ...]]:
    """The haps in the same shape: cycles → ticks (exact, or the test fails on a fraction)."""
    out = []
    for hap in haps:
        value = hap["value"]
        assert isinstance(value, dict)
        begin = Fraction(str(hap["begin"])) * beats_per_cycle * ppq
        length = (Fraction(str(hap["end"])) - Fraction(str(hap["begin"]))) * beats_per_cycle * ppq
        assert begin.denominator == 1 and length.denominator == 1, hap
        velocity = round(float(value["velocity"]) * 127)
        drum = "note" not in value
        out.append((int(begin), value["s"] if drum else value["note"], int(length), velocity, drum))
    return sorted(out, key=lambda n: (n[0], str(n[1]), n[2], n[3], n[4]))


def assert_plays_the_midi(program: str, midi: Path, bars: int) -> dict[str, object]:
    """Strudel plays `program` as `midi`'s notes, every one; returns what it played."""
    notes, tempo, ppq = midi_notes(midi)
    assert ppq == PPQ_OUT
    played = strudel_program(program, bars)
    assert "error" not in played, played.get("error")
    assert played["cps"] == pytest.approx(tempo / 4 / 60)  # 4/4: one cycle is one bar
    heard = strudel_notes(played["haps"], 4, ppq)  # type: ignore[arg-type]
    expected = sorted(((t, DRUM_SOUNDS.get(p, OTHER_DRUM) if drum else p, length, v, drum)
                       for t, p, length, v, drum in notes),
                      key=lambda n: (n[0], str(n[1]), n[2], n[3], n[4]))
    assert len(expected) > 100
    assert Counter(heard) == Counter(expected)  # onsets, pitches, lengths and velocities, all of them
    return played


def test_the_exported_program_plays_the_songs_midi_notes_in_strudel(
        composed_copy: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert node_ready() is None, node_ready()
    session = composed_copy("funk groove", 3, 8)
    assert run(["export", str(session), "--format", "strudel", "--out", str(tmp_path), "--json"]) == 0
    done = json.loads(capsys.readouterr().out)
    program = tmp_path / STRUDEL_FILE
    assert done["files"] == [str(program)]
    code = program.read_text(encoding="utf-8")
    assert "setcpm(" in code and "arrange(" in code and ".velocity(" in code

    played = assert_plays_the_midi(code, session / "midi" / "full-arrangement.mid", 8)
    sounds = {h["value"]["s"] for h in played["haps"]}  # type: ignore[attr-defined,index]
    assert sounds - set(STRUDEL_SOUNDFONTS) <= set(DRUM_SOUNDS.values()) | {OTHER_DRUM}
    assert sounds & set(STRUDEL_SOUNDFONTS)  # the pitched parts play GM soundfonts


def test_a_quantized_song_is_written_a_bar_a_cycle_and_plays_the_same(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert node_ready() is None, node_ready()
    made = json.loads(_imported(tmp_path, capsys))
    session = Path(made["path"])
    assert run(["export", str(session), "--format", "strudel", "--out", str(tmp_path / "out")]) == 0
    code = (tmp_path / "out" / STRUDEL_FILE).read_text(encoding="utf-8")
    # a bar a cycle, a bar repeated in a row written once, sections in order
    assert 's("<[bd ~@3 sd ~@3 bd ~@3 sd ~@3]!8>").velocity(0.7874)' in code
    assert "[8, " in code and "// verse" in code and "// chorus" in code
    assert_plays_the_midi(code, session / "midi" / "full-arrangement.mid", 16)


def _imported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert run(["import", str(four_part_song(tmp_path / "mine.mid")), "--out", str(tmp_path / "p"), "--json"]) == 0
    return capsys.readouterr().out


def test_an_unknown_format_is_one_line_naming_strudel(composed_copy: Callable[..., Path],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    session = composed_copy("funk groove", 3, 8)
    assert run(["export", str(session), "--format", "strudle"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "strudel" in err and "Traceback" not in err


def test_a_song_whose_metre_changes_plays_every_note_where_it_is(tmp_path: Path) -> None:
    """Strudel has no metre: a 4/4 song with a 3/4 bridge is written a beat a cycle, its sections
    counted in beats, and still plays the MIDI file's notes exactly (the file's bars in 3/4 there)."""
    from dataclasses import replace

    from bandstand.craft.to_strudel import to_strudel
    from bandstand.midi import read_midi, write_midi
    from bandstand.score import MetreChange, Section, TimeSignature

    assert node_ready() is None, node_ready()
    song = read_midi(four_part_song(tmp_path / "mine.mid", bars=8))  # 32 beats of notes
    song = replace(song, metre_changes=[MetreChange(5, TimeSignature(3, 4)), MetreChange(7, TimeSignature(4, 4))],
                   sections=[Section("verse", 1, 4), Section("bridge", 5, 2), Section("chorus", 7, 3)])
    midi = write_midi(song, tmp_path / "metres.mid")
    signatures = [m for t in mido.MidiFile(midi).tracks for m in t if m.type == "time_signature"]
    assert [(m.numerator, m.denominator) for m in signatures] == [(4, 4), (3, 4), (4, 4)]
    code = to_strudel(song)
    assert "one cycle = 1 beat (the metre changes: 3/4 from bar 5, 4/4 from bar 7)" in code
    assert "// bridge" in code and "[6, " in code  # the 3/4 bridge: two bars, six cycles
    notes, tempo, ppq = midi_notes(midi)
    played = strudel_program(code, 32)
    assert "error" not in played, played.get("error")
    assert played["cps"] == pytest.approx(tempo / 60)  # a beat a cycle
    heard = strudel_notes(played["haps"], 1, ppq)  # type: ignore[arg-type]
    ends = [16 * ppq, 22 * ppq, 10**9]  # the sections' ends (beats 16 and 22): a note is cut there

    def cut(start: int, length: int) -> int:
        return min(length, next(e for e in ends if e > start) - start)

    expected = sorted(((t, DRUM_SOUNDS.get(p, OTHER_DRUM) if drum else p, cut(t, length), v, drum)
                       for t, p, length, v, drum in notes), key=lambda n: (n[0], str(n[1]), n[2], n[3], n[4]))
    assert sum(cut(t, length) != length for t, _, length, _, _ in notes) == 3  # the chord across the bar line
    assert Counter(heard) == Counter(expected)
