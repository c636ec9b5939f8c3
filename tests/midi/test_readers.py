"""pretty_midi and music21 read our files the way we meant them."""

from __future__ import annotations

import io
from collections import Counter

import pretty_midi
import pytest
from hypothesis import HealthCheck, given, settings

from bandstand.midi import key_signature, song_to_midi_bytes
from bandstand.score import Note, Song, Track, assign_channels
from tests.midi.songs import demo_song, songs


def ticks(pm: pretty_midi.PrettyMIDI, seconds: float) -> int:
    return int(pm.time_to_tick(seconds))


def beat_ticks(beat: float) -> int:
    return round(beat * 480)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(songs())
def test_pretty_midi_agrees(song: Song) -> None:
    pm = pretty_midi.PrettyMIDI(io.BytesIO(song_to_midi_bytes(song)))
    got = Counter(
        (inst.is_drum, n.pitch, n.velocity, ticks(pm, n.start), ticks(pm, n.end))
        for inst in pm.instruments for n in inst.notes
    )
    channels = assign_channels(song)
    want = Counter(
        (ch == 9, n.pitch, n.velocity, beat_ticks(n.start), beat_ticks(n.start) + beat_ticks(n.duration))
        for t, ch in zip(song.tracks, channels, strict=True) for n in t.notes
    )
    assert got == want
    times, bpms = pm.get_tempo_changes()
    tempo_map = song.tempo_map()
    # pretty_midi drops a tempo change that repeats the tempo before it
    kept = [c for i, c in enumerate(tempo_map) if i == 0 or c.bpm != tempo_map[i - 1].bpm]
    assert [ticks(pm, t) for t in times] == [beat_ticks(c.beat) for c in kept]
    assert list(bpms) == pytest.approx([c.bpm for c in kept], rel=1e-5)
    ts = pm.time_signature_changes[0]
    assert (ts.numerator, ts.denominator) == (song.time_signature.numerator, song.time_signature.denominator)
    sig = key_signature(song.key) if song.key else None
    assert [k.key_number for k in pm.key_signature_changes] == (
        [] if sig is None else [pretty_midi.key_name_to_key_number(sig.name)]
    )


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(songs())
def test_pretty_midi_agrees_on_controllers(song: Song) -> None:
    # pretty_midi keeps controller events only in tracks with notes and one program
    song.tracks = [t for t in song.tracks if t.notes]
    for t in song.tracks:
        t.program_changes.clear()
    pm = pretty_midi.PrettyMIDI(io.BytesIO(song_to_midi_bytes(song)))
    bends = Counter((ticks(pm, b.time), b.pitch) for i in pm.instruments for b in i.pitch_bends)
    assert bends == Counter((beat_ticks(b.time), b.value) for t in song.tracks for b in t.pitch_bends)
    ccs = Counter((ticks(pm, c.time), c.number, c.value) for i in pm.instruments for c in i.control_changes)
    assert ccs == Counter((beat_ticks(c.time), c.control, c.value) for t in song.tracks for c in t.controls)
    assert sorted(i.program for i in pm.instruments) == sorted(t.program for t in song.tracks)


def test_pretty_midi_sees_the_parts_of_the_demo() -> None:
    song = demo_song()
    pm = pretty_midi.PrettyMIDI(io.BytesIO(song_to_midi_bytes(song)))
    assert [(i.name, i.program, i.is_drum) for i in pm.instruments] == [
        (t.name, t.program, t.is_drum) for t in song.tracks
    ]
    assert pretty_midi.key_number_to_key_name(pm.key_signature_changes[0].key_number) == "C minor"
    assert pm.get_tempo_changes()[1].tolist() == [96.0]


def describe(track: Track, offset: float, length: float, note: object) -> tuple[object, ...]:
    """A note as music21 can tell it: its percussion chords keep neither pitch nor
    per-hit velocity, so drum hits compare by time only."""
    if track.is_drum:
        return (offset, length)
    if isinstance(note, Note):
        return (offset, length, note.pitch, note.velocity)
    return (offset, length, note.pitch.midi, note.volume.velocity)  # type: ignore[attr-defined]


def test_music21_agrees_on_the_demo() -> None:
    m21midi = pytest.importorskip("music21.midi")
    from music21.midi import translate

    song = demo_song()
    mf = m21midi.MidiFile()
    mf.readstr(song_to_midi_bytes(song))
    score = translate.midiFileToStream(mf, quantizePost=False)
    assert [p.partName for p in score.parts] == [t.name for t in song.tracks]
    for part, track in zip(score.parts, song.tracks, strict=True):
        got: Counter[tuple[object, ...]] = Counter()
        for element in part.flatten().notes:
            members = list(getattr(element, "notes", ())) or [element]
            for member in members:
                got[describe(track, float(element.offset), float(element.quarterLength), member)] += 1
        want = Counter(describe(track, n.start, n.duration, n) for n in track.notes)
        assert got == want, track.name
    flat = score.flatten()
    key = flat.getElementsByClass("KeySignature")[0]
    assert (key.sharps, key.mode) == (-3, "minor")
    ts = flat.getElementsByClass("TimeSignature")[0]
    assert ts.ratioString == "4/4"
    assert flat.getElementsByClass("MetronomeMark")[0].number == 96
