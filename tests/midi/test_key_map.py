"""A song's key map in a Standard MIDI File: a key signature where the key changes (read back by
mido), and the map read back by bandstand — exact names (a mode a key signature cannot say) from
its metadata, the key signatures alone from any other file."""

from __future__ import annotations

from pathlib import Path

import mido

from bandstand.midi import read_midi, write_midi
from bandstand.score import KeyChange, Note, Song, Track


def _song() -> Song:
    lead = Track("Lead", "lead", 80, notes=[Note(float(b), 1.0, 60 + b % 5, 90) for b in range(48)])
    return Song(title="moves", key="C minor", tracks=[lead],
                key_changes=[KeyChange(16.0, "D major"), KeyChange(32.0, "A dorian"), KeyChange(40.0, "A dorian")])


def test_the_key_map_is_one_key_at_the_start_then_each_real_change() -> None:
    song = _song()
    assert [(c.beat, c.key) for c in song.key_map()] == [(0.0, "C minor"), (16.0, "D major"), (32.0, "A dorian")]
    assert [song.key_at(b) for b in (0.0, 15.9, 16.0, 47.0)] == ["C minor", "C minor", "D major", "A dorian"]
    assert Song().key_map() == [] and Song().key_at(3.0) is None


def test_key_signatures_are_written_where_the_key_changes_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "moves.mid"
    write_midi(_song(), path)
    ticks = []
    for track in mido.MidiFile(path).tracks:
        tick = 0
        for msg in track:
            tick += msg.time
            if msg.type == "key_signature":
                ticks.append((tick, msg.key))
    # a signature for each major or minor key (a mode has none: bandstand's metadata names it)
    assert ticks == [(0, "Cm"), (16 * 480, "D")]
    back = read_midi(path)
    assert back.key == "C minor"
    assert [(c.beat, c.key) for c in back.key_changes] == [(16.0, "D major"), (32.0, "A dorian")]


def test_a_file_from_elsewhere_gives_its_key_signatures_as_the_map(tmp_path: Path) -> None:
    path = tmp_path / "plain.mid"
    file = mido.MidiFile(ticks_per_beat=480)
    track = mido.MidiTrack([mido.MetaMessage("key_signature", key="Bb", time=0),
                            mido.Message("note_on", note=58, velocity=90, time=0),
                            mido.Message("note_off", note=58, velocity=0, time=480),
                            mido.MetaMessage("key_signature", key="F#m", time=3360),
                            mido.Message("note_on", note=66, velocity=90, time=0),
                            mido.Message("note_off", note=66, velocity=0, time=480)])
    file.tracks.append(track)
    file.save(path)
    song = read_midi(path)
    assert song.key == "Bb major" and [(c.beat, c.key) for c in song.key_changes] == [(8.0, "F# minor")]
