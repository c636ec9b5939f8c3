"""Hypothesis strategies for whole songs (every kind of event, a mix and buses) and a
small composed-like song for unit tests."""

from __future__ import annotations

from hypothesis import strategies as st

from bandstand import score
from bandstand.score import EFFECTS, Effect

_time = st.floats(min_value=0.0, max_value=300.0, allow_nan=False, allow_infinity=False)
_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ABC-", min_size=1, max_size=12).map(str.strip).filter(bool)


@st.composite
def effects(draw: st.DrawFn) -> Effect:
    etype = draw(st.sampled_from(sorted(EFFECTS)))
    params: dict[str, float | str] = {}
    for name, spec in EFFECTS[etype].items():
        if draw(st.booleans()):
            params[name] = draw(st.sampled_from(spec.choices)) if spec.choices else \
                draw(st.floats(min_value=spec.low, max_value=spec.high, allow_nan=False))
    return Effect(etype, params, draw(st.booleans()))


@st.composite
def mixes(draw: st.DrawFn, buses: list[str]) -> score.TrackMix:
    sends = ()
    if buses:
        chosen = draw(st.lists(st.sampled_from(buses), unique=True, max_size=len(buses)))
        sends = tuple(score.Send(b, draw(st.floats(0, 1))) for b in chosen)
    lanes = []
    for param in draw(st.lists(st.sampled_from(["volume", "pan", "delay.mix", "filter.cutoff_hz"]), unique=True,
                               max_size=2)):
        low, high = score.parameter_range(param)
        points = draw(st.lists(st.tuples(_time, st.floats(low, high), st.sampled_from(score.CURVES)), max_size=4))
        lanes.append(score.AutomationLane(param, tuple(score.AutomationPoint(b, v, c) for b, v, c in points)))
    return score.TrackMix(volume=draw(st.floats(0, score.VOLUME_MAX)), pan=draw(st.floats(0, 1)),
                          mute=draw(st.booleans()), solo=draw(st.booleans()),
                          inserts=tuple(draw(st.lists(effects(), max_size=3))), sends=sends,
                          automation=tuple(lanes))


@st.composite
def tracks(draw: st.DrawFn, name: str, buses: list[str]) -> score.Track:
    is_drum = draw(st.booleans())
    notes = draw(st.lists(st.builds(score.Note, _time, st.floats(0.01, 8.0), st.integers(0, 127),
                                    st.integers(1, 127)), max_size=40))
    controls = draw(st.lists(st.builds(score.ControlChange, _time, st.integers(0, 127), st.integers(0, 127)),
                             max_size=8))
    bends = draw(st.lists(st.builds(score.PitchBend, _time, st.integers(-8192, 8191)), max_size=6))
    chan_at = draw(st.lists(st.builds(score.ChannelAftertouch, _time, st.integers(0, 127)), max_size=4))
    poly_at = draw(st.lists(st.builds(score.PolyAftertouch, _time, st.integers(0, 127), st.integers(0, 127)),
                            max_size=4))
    programs = draw(st.lists(st.builds(score.ProgramChange, _time, st.integers(0, 127)), max_size=2))
    track = score.Track(
        name=name, role=draw(st.sampled_from(["drums", "bass", "chords", "lead", "pad", "", "strings"])),
        program=draw(st.integers(0, 127)), is_drum=is_drum,
        channel=draw(st.none() | st.integers(0, 15)), notes=notes, controls=controls, pitch_bends=bends,
        aftertouch=chan_at, poly_aftertouch=poly_at, program_changes=programs, mix=draw(mixes(buses)))
    track.notes.sort(key=lambda n: n.start)  # in time order, ties as drawn
    track.controls.sort(key=lambda c: c.time)
    track.pitch_bends.sort(key=lambda b: b.time)
    track.aftertouch.sort(key=lambda a: a.time)
    track.poly_aftertouch.sort(key=lambda a: a.time)
    track.program_changes.sort(key=lambda p: p.time)
    return track


@st.composite
def songs(draw: st.DrawFn) -> score.Song:
    ts = score.TimeSignature(draw(st.sampled_from([2, 3, 4, 5, 6, 7, 12])), draw(st.sampled_from([4, 8, 2, 16])))
    sections = []
    bar = draw(st.integers(1, 3))
    for i in range(draw(st.integers(0, 5))):
        bars = draw(st.integers(1, 12))
        sections.append(score.Section(f"Part {i}", bar, bars, draw(st.floats(0, 1))))
        bar += bars + draw(st.sampled_from([0, 0, 0, 2]))  # sometimes a gap between sections
    bus_names = draw(st.lists(_names, unique_by=str.casefold, max_size=2))
    buses = [score.Bus(n, tuple(draw(st.lists(effects(), max_size=2))), draw(st.floats(0, 1.5))) for n in bus_names]
    names = draw(st.lists(_names, unique_by=str.casefold, min_size=0, max_size=4))
    key = draw(st.none() | st.sampled_from(["C major", "E minor", "F# minor"]))
    key_changes = [score.KeyChange(b, k) for b, k in draw(st.lists(
        st.tuples(_time, st.sampled_from(["D major", "Bb major", "A dorian"])), max_size=2))] if key else []
    return score.Song(
        title=draw(st.text(max_size=20)), tempo=draw(st.floats(40, 240)), time_signature=ts,
        key=key, key_changes=key_changes, sections=sections,
        tracks=[draw(tracks(n, bus_names)) for n in names],
        markers=[score.Marker(b, t) for b, t in draw(st.lists(st.tuples(_time, st.text(max_size=8)), max_size=3))],
        tempo_changes=[score.TempoChange(b, bpm) for b, bpm in draw(st.lists(st.tuples(_time, st.floats(40, 240)),
                                                                               max_size=2))],
        buses=buses)


def small_song() -> score.Song:
    """A 16-bar song in 4/4: drums, bass (roots on the beat), chords; an intro, verse and chorus."""
    sections = [score.Section("Intro", 1, 4, 0.2), score.Section("Verse", 5, 8, 0.5),
                score.Section("Chorus", 13, 4, 0.9)]
    roots = [40, 43, 45, 38]
    drums = score.Track("Drums", "drums", 0, is_drum=True)
    bass = score.Track("Bass", "bass", 33)
    chords = score.Track("Chords", "chords", 0)
    for bar in range(16):
        at = bar * 4.0
        for beat in range(4):
            drums.notes.append(score.Note(at + beat, 0.25, 36 if beat % 2 == 0 else 38, 100))
            drums.notes.append(score.Note(at + beat + 0.5, 0.25, 42, 70))
        if bar >= 4:
            root = roots[bar % 4]
            bass.notes += [score.Note(at + b, 0.9, root, 96) for b in (0.0, 2.0)]
        chords.notes += [score.Note(at, 3.8, p, 72) for p in (60, 64, 67)]
        chords.controls.append(score.ControlChange(at, 64, 127))
    for t in (drums, bass, chords):
        t.sort()
    return score.Song(title="Small", tempo=100, key="E minor", sections=sections, tracks=[drums, bass, chords],
                      markers=[score.Marker(0.0, "Intro")], buses=[score.Bus("Reverb", (Effect("reverb"),))])
