"""Stage 6 — assembly: the spec's table 1–7, checked on the written Standard
MIDI File with mido as the independent reader."""

from __future__ import annotations

import io
import itertools

import mido
import pytest

from bandstand.compose.assembly import EARLY, TRANSITIONS, active_spans, assemble
from bandstand.compose.harmony import build_harmony
from bandstand.compose.models.arrangement import ArrangementPlan, SectionPlan
from bandstand.compose.parts import generate_part
from bandstand.midi import read_midi, song_to_midi_bytes
from bandstand.score import Note, Track

from .musicfix import make_intent

PPQ = 480


def _plan(rows, n_chords=4) -> ArrangementPlan:
    sections, bar = [], 1
    for name, kind, bars, roles, transition in rows:
        sections.append(SectionPlan.model_validate({
            "name": name, "kind": kind, "start_bar": bar, "bars": bars, "energy": 0.5, "roles": roles,
            "chord_indices": [i % n_chords for i in range(bars)], "transition": transition}))
        bar += bars
    return ArrangementPlan(form_name="t", total_bars=bar - 1, sections=sections, bar_energy=[0.5] * (bar - 1))


FOUR = ["drums", "bass", "chords", "lead"]
THREE_SECTIONS = (("Intro", "intro", 4, ["drums", "chords"], "cut"),
                  ("Verse", "verse", 8, FOUR, "fade"),
                  ("Chorus", "chorus", 8, FOUR, "cut"))


def _build(rows=THREE_SECTIONS, roles=FOUR, genre="pop"):
    intent = make_intent(genre)
    harmony = build_harmony(intent, 3)
    plan = _plan(rows, len(harmony.chords))
    tracks = [generate_part(r, intent, harmony, plan, 10 + i).track for i, r in enumerate(roles)]
    song = assemble(tracks, intent, harmony, plan)
    return song, mido.MidiFile(file=io.BytesIO(song_to_midi_bytes(song))), plan, tracks


def _notes_on(track: mido.MidiTrack) -> list[tuple[int, int, int]]:
    """(tick, channel, note) of every note-on in a mido track."""
    out, tick = [], 0
    for msg in track:
        tick += msg.time
        if msg.type == "note_on" and msg.velocity > 0:
            out.append((tick, msg.channel, msg.note))
    return out


def test_1_format_1_with_conductor_and_one_track_per_part():
    _song, mid, *_ = _build()
    assert mid.type == 1 and mid.ticks_per_beat == PPQ
    assert len(mid.tracks) == 5
    assert not _notes_on(mid.tracks[0])
    assert all(_notes_on(t) for t in mid.tracks[1:])
    names = [next(m.name for m in t if m.type == "track_name") for t in mid.tracks[1:]]
    assert names == ["Drums", "Bass", "Chords", "Lead"]
    metas = {m.type for m in mid.tracks[0]}
    assert {"set_tempo", "time_signature", "key_signature", "marker"} <= metas


def test_2_inactive_bass_in_the_intro_is_silent():
    _, mid, *_ = _build()
    bass = _notes_on(mid.tracks[2])
    assert bass and min(t for t, _, _ in bass) >= 4 * 4 * PPQ


def test_3_one_marker_per_section_at_its_first_tick():
    _, mid, *_ = _build()
    tick, markers = 0, []
    for msg in mid.tracks[0]:
        tick += msg.time
        if msg.type == "marker":
            markers.append((tick, msg.text))
    assert markers == [(0, "Intro"), (4 * 4 * PPQ, "Verse"), (12 * 4 * PPQ, "Chorus")]


def test_4_each_part_on_its_own_channel():
    _, mid, *_ = _build(roles=["drums", "bass", "chords", "lead"])
    channels = [{c for _, c, _ in _notes_on(t)} for t in mid.tracks[1:]]
    assert channels == [{9}, {1}, {2}, {3}]
    _, mid5, *_ = _build(roles=["drums", "bass", "chords", "lead", "arp"],
                         rows=(("A", "verse", 8, ["drums", "bass", "chords", "lead", "arp"], "cut"),))
    arp = {c for _, c, _ in _notes_on(mid5.tracks[5])}
    assert len(arp) == 1 and arp.isdisjoint({9, 1, 2, 3})


def test_5_fade_ramps_cc7_over_the_last_two_bars_of_the_verse():
    _, mid, *_ = _build()
    for track in mid.tracks[1:]:
        tick, cc7 = 0, []
        for msg in track:
            tick += msg.time
            if msg.type == "control_change" and msg.control == 7:
                cc7.append((tick, msg.value))
        verse_end = 12 * 4 * PPQ
        ramp = [(t, v) for t, v in cc7 if verse_end - 2 * 4 * PPQ <= t < verse_end]
        assert ramp[0] == (verse_end - 2 * 4 * PPQ, 127) and ramp[-1][1] == 0
        assert all(a[1] >= b[1] for a, b in itertools.pairwise(ramp))  # falling
        assert (verse_end, 127) in cc7  # restored at the chorus


def test_build_and_filter_sweep_transitions():
    rows = (("A", "verse", 8, FOUR, "build"), ("B", "chorus", 8, FOUR, "filter_sweep"), ("C", "outro", 4, FOUR, "cut"))
    song, *_ = _build(rows=rows)
    lead = song.track("lead")
    cc1 = [(c.time, c.value) for c in lead.controls if c.control == 1]
    assert cc1[0] == (16.0, 0) and max(v for _, v in cc1) == 127 and (32.0, 0) in cc1
    cc74 = [(c.time, c.value) for c in lead.controls if c.control == 74]
    assert cc74[0] == (56.0, TRANSITIONS["filter_sweep"].start) and cc74[-1] == (64.0, 64)
    assert not any(c.control == 74 for c in song.track("drums").controls)


def test_6_round_trip_note_count_equals_notes_in_active_sections():
    song, mid, plan, tracks = _build()
    expected = 0
    for t in tracks:
        spans = active_spans(t.role, plan, 4.0)
        expected += sum(1 for n in t.notes if any(a - EARLY - 1e-9 <= n.start < b - EARLY - 1e-9 for a, b in spans))
    assert sum(len(_notes_on(t)) for t in mid.tracks) == expected == sum(len(t.notes) for t in song.tracks)
    assert sum(len(t.notes) for t in read_midi(song_to_midi_bytes(song)).tracks) == expected


def test_notes_ringing_into_a_silent_section_are_cut_at_the_boundary():
    intent = make_intent("pop")
    harmony = build_harmony(intent, 1)
    plan = _plan((("A", "verse", 4, ["pad"], "cut"), ("B", "verse", 4, ["drums"], "cut")))
    pad = Track("Pad", "pad", notes=[Note(12.0, 8.0, 60, 90), Note(18.0, 1.0, 62, 90)])
    song = assemble([pad], intent, harmony, plan)
    assert song.track("pad").notes == [Note(12.0, 4.0, 60, 90)]


@pytest.mark.parametrize("source_ppq", [480, 960])
def test_7_sources_at_other_ppq_are_rescaled_to_480(source_ppq):
    mf = mido.MidiFile(type=1, ticks_per_beat=source_ppq)
    tr = mido.MidiTrack()
    mf.tracks.append(tr)
    tr.append(mido.MetaMessage("track_name", name="Lead", time=0))
    last = 0
    for beat in (16, 17, 18.5, 20):  # inside the verse (bars 5–12), where the lead plays
        on = int(beat * source_ppq)
        tr.append(mido.Message("note_on", note=72, velocity=100, channel=3, time=on - last))
        tr.append(mido.Message("note_off", note=72, velocity=0, channel=3, time=int(0.5 * source_ppq)))
        last = on + int(0.5 * source_ppq)
    buf = io.BytesIO()
    mf.save(file=buf)
    source = read_midi(buf.getvalue()).tracks[0]
    source.role = "lead"
    intent = make_intent("pop")
    song = assemble([source], intent, build_harmony(intent, 0), _plan(THREE_SECTIONS))
    out = mido.MidiFile(file=io.BytesIO(song_to_midi_bytes(song)))
    assert out.ticks_per_beat == 480
    assert [t for t, _, _ in _notes_on(out.tracks[1])] == [16 * 480, 17 * 480, int(18.5 * 480), 20 * 480]
