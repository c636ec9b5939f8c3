"""Every file we write reads back identically: through our reader, and event by
event through mido, an independent parser."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import mido
from hypothesis import HealthCheck, given, settings

from bandstand.midi import key_signature, read_midi, song_to_midi_bytes, write_midi
from bandstand.score import Song, assign_channels
from tests.midi.songs import PPQ, demo_song, normalized, songs

Event = tuple[object, ...]


def expected_events(song: Song) -> list[Counter[Event]]:
    """Per part, the channel events the file must hold (ticks absolute), from the song alone."""
    result = []
    for track, ch in zip(song.tracks, assign_channels(song), strict=True):
        events: Counter[Event] = Counter()
        events[("name", track.name)] += 1
        events[(0, "program_change", ch, track.program)] += 1
        for n in track.notes:
            on, off = round(n.start * PPQ), round(n.start * PPQ) + round(n.duration * PPQ)
            events[(on, "note_on", ch, n.pitch, n.velocity)] += 1
            events[(off, "note_off", ch, n.pitch)] += 1
        for c in track.controls:
            events[(round(c.time * PPQ), "control_change", ch, c.control, c.value)] += 1
        for b in track.pitch_bends:
            events[(round(b.time * PPQ), "pitchwheel", ch, b.value)] += 1
        for a in track.aftertouch:
            events[(round(a.time * PPQ), "aftertouch", ch, a.value)] += 1
        for p in track.poly_aftertouch:
            events[(round(p.time * PPQ), "polytouch", ch, p.pitch, p.value)] += 1
        for pc in track.program_changes:
            events[(round(pc.time * PPQ), "program_change", ch, pc.program)] += 1
        result.append(events)
    return result


def mido_events(track: mido.MidiTrack) -> Counter[Event]:
    events: Counter[Event] = Counter()
    tick = 0
    for msg in track:
        tick += msg.time
        if msg.type == "track_name":
            events[("name", msg.name)] += 1
        elif msg.type == "note_on":
            events[(tick, "note_on", msg.channel, msg.note, msg.velocity)] += 1
        elif msg.type == "note_off":
            events[(tick, "note_off", msg.channel, msg.note)] += 1
        elif msg.type == "control_change":
            events[(tick, "control_change", msg.channel, msg.control, msg.value)] += 1
        elif msg.type == "pitchwheel":
            events[(tick, "pitchwheel", msg.channel, msg.pitch)] += 1
        elif msg.type == "aftertouch":
            events[(tick, "aftertouch", msg.channel, msg.value)] += 1
        elif msg.type == "polytouch":
            events[(tick, "polytouch", msg.channel, msg.note, msg.value)] += 1
        elif msg.type == "program_change":
            events[(tick, "program_change", msg.channel, msg.program)] += 1
        elif msg.type != "end_of_track":
            raise AssertionError(f"unexpected message in a part track: {msg}")
    return events


def check_conductor(song: Song, track: mido.MidiTrack) -> None:
    tick, tempos, markers = 0, [], []
    for msg in track:
        tick += msg.time
        assert not isinstance(msg, mido.Message), "the conductor track holds no channel events"
        if msg.type == "set_tempo":
            tempos.append((tick, msg.tempo))
        elif msg.type == "marker":
            markers.append((tick, msg.text))
        elif msg.type == "time_signature":
            assert (msg.numerator, msg.denominator) == (song.time_signature.numerator, song.time_signature.denominator)
        elif msg.type == "key_signature":
            sig = key_signature(song.key or "")
            assert sig is not None and mido.midifiles.meta._key_signature_decode[(sig.sharps, int(sig.minor))] == msg.key
        elif msg.type == "track_name":
            assert msg.name == song.title
    assert tempos == [(round(c.beat * PPQ), round(60_000_000 / c.bpm)) for c in song.tempo_map()]
    want = [(round(song.bar_to_beat(s.start_bar) * PPQ), s.name) for s in song.sections]
    want += [(round(m.beat * PPQ), m.text) for m in song.markers]
    assert sorted(markers) == sorted(want)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(songs())
def test_write_then_read_is_identity(song: Song) -> None:
    data = song_to_midi_bytes(song)
    assert normalized(read_midi(data)) == normalized(song)


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(songs())
def test_mido_reads_the_same_events(song: Song) -> None:
    midi = mido.MidiFile(file=io.BytesIO(song_to_midi_bytes(song)))
    assert midi.type == 1 and midi.ticks_per_beat == 480
    assert len(midi.tracks) == 1 + len(song.tracks)
    check_conductor(song, midi.tracks[0])
    got = [mido_events(t) for t in midi.tracks[1:]]
    assert got == expected_events(song)


def test_demo_song_file_on_disk(tmp_path: Path) -> None:
    song = demo_song()
    path = write_midi(song, tmp_path / "out" / "demo.mid")
    assert path.exists() and not list(path.parent.glob("*.tmp"))
    back = read_midi(path)
    assert normalized(back) == normalized(demo_song())
    assert [t.channel for t in back.tracks] == [None] * 5
    assert assign_channels(back) == [9, 1, 2, 3, 4]
    midi = mido.MidiFile(path)
    assert [t.name for t in midi.tracks] == ["Demo", "Drums", "Bass", "Keys", "Lead", "Pad"]
    channels = [{m.channel for m in t if not m.is_meta} for t in midi.tracks]
    assert channels == [set(), {9}, {1}, {2}, {3}, {4}]
