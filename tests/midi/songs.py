"""Hypothesis strategies and hand-built songs shared by the MIDI and render tests.

Times are whole ticks at 480 PPQ (what a MIDI file can hold exactly); notes of
one pitch in one track never overlap (MIDI cannot tell such notes apart)."""

from __future__ import annotations

from hypothesis import strategies as st

from bandstand.score import (
    ChannelAftertouch,
    ControlChange,
    Marker,
    Note,
    PitchBend,
    PolyAftertouch,
    ProgramChange,
    Section,
    Song,
    TempoChange,
    TimeSignature,
    Track,
)

PPQ = 480
ROLES = ["drums", "bass", "chords", "lead", "pad", "fx", "vox"]
KEYS = [None, "C major", "A minor", "Eb major", "F# minor", "Bb minor", "D dorian"]
names = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12)
beats = st.integers(0, 32 * PPQ).map(lambda t: t / PPQ)


def _no_same_pitch_overlap(notes: list[Note]) -> list[Note]:
    kept: list[Note] = []
    busy_until: dict[int, float] = {}
    for n in sorted(notes, key=lambda n: (n.start, n.pitch)):
        if n.start >= busy_until.get(n.pitch, -1.0):
            kept.append(n)
            busy_until[n.pitch] = n.end
    return kept


notes = st.builds(
    Note,
    start=beats,
    duration=st.integers(1, 4 * PPQ).map(lambda t: t / PPQ),
    pitch=st.integers(0, 127),
    velocity=st.integers(1, 127),
)


@st.composite
def tracks(draw: st.DrawFn) -> Track:
    return Track(
        name=draw(names),
        role=draw(st.sampled_from(ROLES)),
        program=draw(st.integers(0, 127)),
        is_drum=draw(st.booleans()),
        channel=draw(st.none() | st.integers(0, 15)),
        notes=_no_same_pitch_overlap(draw(st.lists(notes, max_size=30))),
        controls=draw(st.lists(st.builds(ControlChange, beats, st.integers(0, 127), st.integers(0, 127)), max_size=5)),
        pitch_bends=draw(st.lists(st.builds(PitchBend, beats, st.integers(-8192, 8191)), max_size=5)),
        aftertouch=draw(st.lists(st.builds(ChannelAftertouch, beats, st.integers(0, 127)), max_size=3)),
        poly_aftertouch=draw(st.lists(st.builds(PolyAftertouch, beats, st.integers(0, 127), st.integers(0, 127)), max_size=3)),
        program_changes=draw(st.lists(st.builds(ProgramChange, beats, st.integers(0, 127)), max_size=2)),
    )


@st.composite
def sections(draw: st.DrawFn) -> list[Section]:
    result, bar = [], 1
    for _ in range(draw(st.integers(0, 4))):
        bar += draw(st.integers(0, 2))
        length = draw(st.integers(1, 8))
        result.append(Section(draw(names), bar, length, draw(st.integers(0, 100)) / 100))
        bar += length
    return result


@st.composite
def songs(draw: st.DrawFn, max_tracks: int = 5) -> Song:
    change_beats = draw(st.lists(st.integers(1, 32 * PPQ), max_size=3, unique=True))
    return Song(
        title=draw(names),
        tempo=draw(st.integers(3000, 30000)) / 100,
        time_signature=TimeSignature(draw(st.integers(1, 12)), draw(st.sampled_from([2, 4, 8, 16]))),
        key=draw(st.sampled_from(KEYS)),
        sections=draw(sections()),
        tracks=draw(st.lists(tracks(), max_size=max_tracks)),
        markers=draw(st.lists(st.builds(Marker, beats, names), max_size=3)),
        tempo_changes=[TempoChange(t / PPQ, draw(st.integers(3000, 30000)) / 100) for t in change_beats],
    )


def normalized(song: Song) -> Song:
    """The song with every list in a canonical order, for equality checks."""
    for track in song.tracks:
        track.sort()
        track.controls.sort(key=lambda c: (c.time, c.control, c.value))
        track.poly_aftertouch.sort(key=lambda a: (a.time, a.pitch, a.value))
        track.pitch_bends.sort(key=lambda b: (b.time, b.value))
        track.aftertouch.sort(key=lambda a: (a.time, a.value))
        track.program_changes.sort(key=lambda p: (p.time, p.program))
    song.markers.sort(key=lambda m: (m.beat, m.text))
    song.tempo_changes.sort(key=lambda c: c.beat)
    return song


def demo_song(bars: int = 8, tempo: float = 96.0) -> Song:
    """A small, musical five-part song in C minor: drums, bass, chords, lead, pad."""
    song = Song(title="Demo", tempo=tempo, key="C minor",
                sections=[Section("intro", 1, bars // 2, 0.4), Section("drop", bars // 2 + 1, bars - bars // 2, 0.9)])
    roots = [48, 44, 51, 46]  # C, Ab, Eb, Bb
    drums = Track("Drums", "drums", is_drum=True)
    bass = Track("Bass", "bass", program=33)
    chords = Track("Keys", "chords", program=4)
    lead = Track("Lead", "lead", program=81)
    pad = Track("Pad", "pad", program=89)
    scale = [0, 2, 3, 5, 7, 8, 10]
    for bar in range(bars):
        b0 = bar * 4.0
        root = roots[bar % 4]
        for step in range(8):
            drums.notes.append(Note(b0 + step * 0.5, 0.25, 42, 70 + 20 * (step % 2 == 0)))
        for beat in (0.0, 2.5):
            drums.notes.append(Note(b0 + beat, 0.25, 36, 110))
        for beat in (1.0, 3.0):
            drums.notes.append(Note(b0 + beat, 0.25, 38, 100))
        bass.notes += [Note(b0, 1.5, root - 12, 100), Note(b0 + 2.5, 1.0, root - 5, 90)]
        third = 3 if root in (48, 51) else 4
        chords.notes += [Note(b0, 3.5, root + i, 75) for i in (0, third, 7)]
        pad.notes += [Note(b0, 4.0, root + 12 + i, 55) for i in (0, 7)]
        for step in range(4):
            degree = (bar * 3 + step * 2) % len(scale)
            lead.notes.append(Note(b0 + step, 0.75, 72 + scale[degree], 90))
    bass.controls.append(ControlChange(0.0, 7, 110))
    lead.pitch_bends += [PitchBend(4.0, 2048), PitchBend(4.5, 0)]
    lead.aftertouch.append(ChannelAftertouch(8.0, 40))
    song.tracks += [drums, bass, chords, lead, pad]
    return song
