"""A song with metre changes is written with a time signature where each change's bar starts (and
its section markers on the bar lines those bars make), read back by mido and by our reader."""

from __future__ import annotations

from pathlib import Path

import mido

from bandstand.midi import read_midi, write_midi
from bandstand.score import MetreChange, Note, Section, Song, TimeSignature, Track


def test_a_song_with_a_bridge_in_six_eight_writes_and_reads_its_time_signatures(tmp_path: Path) -> None:
    song = Song(title="metres", tempo=100.0, sections=[Section("Verse", 1, 4), Section("Bridge", 5, 2),
                                                       Section("Chorus", 7, 2)],
                metre_changes=[MetreChange(5, TimeSignature(6, 8)), MetreChange(7, TimeSignature(4, 4))])
    song.tracks.append(Track("bass", "bass", notes=[Note(song.bar_to_beat(b), 1.0, 40, 90) for b in range(1, 9)]))
    assert [song.bar_to_beat(b) for b in (5, 6, 7, 8)] == [16.0, 19.0, 22.0, 26.0]
    assert song.length_bars == 8 and song.beat_to_bar(21.9) == 6
    path = tmp_path / "metres.mid"
    write_midi(song, path)
    signatures, markers, tick = [], [], 0
    for message in mido.MidiFile(path).tracks[0]:
        tick += message.time
        if message.type == "time_signature":
            signatures.append((tick, message.numerator, message.denominator))
        elif message.type == "marker":
            markers.append((tick, message.text))
    assert signatures == [(0, 4, 4), (16 * 480, 6, 8), (22 * 480, 4, 4)]
    assert markers == [(0, "Verse"), (16 * 480, "Bridge"), (22 * 480, "Chorus")]
    back = read_midi(path)
    assert back.time_signature == TimeSignature(4, 4) and back.metre_map() == song.metre_map()
