"""The two writers of a phrase: to a score track (time feel, swing, humanizing,
no key struck while held, monophony, glides) and to pattern code (which the
pattern engine plays back as the same notes at the same times)."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.craft import Feel, NoteEvent, Phrase, to_track
from bandstand.craft.to_pattern import note_name, to_pattern
from bandstand.craft.to_track import apply_time_feel
from bandstand.patterns import evaluate, validate_pattern
from bandstand.patterns.to_score import value_pitch


def _phrase(events, *, drum=False, bars=2, feel=Feel(looseness=0.0), **kw) -> Phrase:
    return Phrase(role="drums" if drum else "lead", events=tuple(NoteEvent(*e) for e in sorted(events)),
                  bars=bars, is_drum=drum, feel=feel, **kw)


def _heard(code: str, cycles: int) -> list[tuple[Fraction, object]]:
    out = []
    for h in evaluate(code).query_arc(0, cycles):
        if h.has_onset():
            v = h.value
            out.append((Fraction(h.whole.begin), v["s"] if "s" in v and value_pitch(v) is None else round(value_pitch(v))))
    return sorted(out, key=lambda x: (x[0], str(x[1])))


def test_time_feel_half_plays_the_first_half_stretched_and_double_plays_it_twice():
    events = [(0.0, 1.0, 60, 90), (1.0, 1.0, 62, 90), (2.0, 1.0, 64, 90), (4.0, 1.0, 65, 90)]
    half = apply_time_feel(_phrase(events, feel=Feel(time_feel=(0.5, 1.0))))
    assert [(e.start, e.pitch) for e in half] == [(0.0, 60), (2.0, 62), (4.0, 65)]
    assert half[0].duration == 2.0
    double = apply_time_feel(_phrase(events, feel=Feel(time_feel=(2.0, 1.0))))
    assert [(e.start, e.pitch) for e in double][:6] == [(0.0, 60), (0.5, 62), (1.0, 64), (2.0, 60), (2.5, 62),
                                                        (3.0, 64)]


def test_track_writer_swings_offbeats_and_never_strikes_a_held_key():
    events = [(0.0, 2.0, 60, 90), (0.5, 0.5, 60, 80), (1.5, 0.25, 67, 80)]
    feel = Feel(swing=(0.33, 0.33), swing_unit=0.5, looseness=0.0)
    track = to_track(_phrase(events, feel=feel), name="Lead", program=80, tempo=120, rng=random.Random(1))
    starts = [(n.start, n.pitch) for n in track.notes]
    assert starts == [(0.0, 60), (pytest.approx(0.665), 60), (pytest.approx(1.665), 67)]
    first = track.notes[0]
    assert first.end <= track.notes[1].start  # cut where the same key is struck again


def test_monophonic_phrases_never_overlap_and_glides_bend_into_the_next_note():
    events = [(0.0, 2.0, 36, 100), (1.0, 2.0, 48, 100), (3.0, 1.0, 43, 100)]
    phrase = _phrase(events, monophonic=True, glide=1.0)
    track = to_track(phrase, name="Bass", program=38, tempo=140, rng=random.Random(2))
    notes = track.notes
    assert all(a.end <= b.start for a, b in itertools.pairwise(notes))
    assert track.pitch_bends and track.pitch_bends[-1].value == 0
    assert max(b.value for b in track.pitch_bends) > 0  # up the octave


def test_a_drum_phrase_is_written_as_stacked_layers_that_play_the_same_hits():
    events = [(0.0, 0.2, 36, 110), (1.0, 0.2, 38, 100), (1.75, 0.2, 38, 40), (2.5, 0.2, 36, 100),
              (3.0, 0.2, 38, 100), (4.0, 0.2, 36, 110), (5.0, 0.2, 38, 100), (7.0, 0.2, 38, 100),
              (7.5, 0.2, 45, 100)] + [(i * 0.5, 0.1, 42, 70) for i in range(16)]
    code = to_pattern(_phrase(events, drum=True))
    assert code.startswith("stack(") and 's("hh*2 hh*2 hh*2 hh*2")' in code
    assert validate_pattern(code).valid
    heard = _heard(code, 2)
    names = {36: "bd", 38: "sd", 42: "hh", 45: "lt"}
    assert heard == sorted(((Fraction(t).limit_denominator(16) / 4, names[p]) for t, _, p, _ in events),
                           key=lambda x: (x[0], str(x[1])))
    ghost = [layer for layer in code.split("s(")[1:] if "[~ ~ ~ sd]" in layer]
    assert len(ghost) == 1 and ".gain(0.31)" in ghost[0]  # the ghost note is its own, quiet layer


def test_one_pitch_per_bar_with_one_rhythm_is_written_as_notes_and_a_struct():
    events = [(b * 4.0 + s, 0.5, p, 90) for b, p in enumerate((36, 32, 39, 34)) for s in (0.0, 2.5)]
    code = to_pattern(_phrase(events, bars=4), sound="sawtooth")
    assert code == 'note("<c2 ab1 eb2 bb1>").struct("x ~ [~ x] ~").s("sawtooth")'
    whole = [(b * 4.0, 4.0, p, 90) for b, p in enumerate((36, 32, 39, 34))]
    assert to_pattern(_phrase(whole, bars=4)) == 'note("<c2 ab1 eb2 bb1>")'


def test_a_melody_in_the_scale_is_written_in_scale_degrees():
    c_minor = (0, 2, 3, 5, 7, 8, 10)
    events = [(0.0, 0.5, 60, 90), (1.0, 0.5, 63, 90), (1.5, 0.5, 62, 90), (4.0, 1.0, 58, 90), (6.0, 1.0, 67, 90)]
    code = to_pattern(_phrase(events), scale=c_minor, tonic=0, scale_name="C:minor", sound="triangle")
    assert code.startswith('n("<') and '.scale("C4:minor")' in code
    assert [p for _, p in _heard(code, 2)] == [60, 63, 62, 58, 67]
    chromatic = [(0.0, 1.0, 61, 90)]
    assert to_pattern(_phrase(chromatic, bars=1), scale=c_minor, tonic=0, scale_name="C:minor") == 'note("db4").struct("x ~ ~ ~")'


def test_feel_as_speed_and_swing_are_said_in_code():
    events = [(0.0, 0.5, 60, 90), (0.5, 0.5, 62, 90)]
    feel = Feel(time_feel=(2.0,), swing=(0.33,), swing_unit=0.5, looseness=0.0)
    code = to_pattern(_phrase(events, bars=1, feel=feel), feel_as_speed=True)
    assert code.endswith(".fast(2).swingBy(1/3, 4)")
    written = to_pattern(_phrase(events, bars=1, feel=Feel(time_feel=(2.0,))))
    assert [t for t, _ in _heard(written, 1)] == [0, Fraction(1, 16), Fraction(1, 2), Fraction(9, 16)]


def test_sustained_chords_take_their_length_as_a_weight():
    events = [(0.0, 3.0, p, 80) for p in (48, 52, 55)] + [(3.0, 1.0, p, 80) for p in (50, 53, 57)]
    code = to_pattern(_phrase(events, bars=1))
    assert code == 'note("[c3,e3,g3]@3 [d3,f3,a3]")'
    assert note_name(61) == "db4" and note_name(61, sharps=True) == "c#4"


grid = st.sampled_from([Fraction(k, 4) for k in range(16)] + [Fraction(k, 3) for k in range(12)])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), grid, st.sampled_from([36, 38, 42, 46, 49])), min_size=1,
                max_size=24))
def test_any_drum_phrase_on_a_sixteenth_or_triplet_grid_round_trips_through_the_pattern_engine(hits):
    events = sorted({(float(b * 4 + t), 0.2, p, 90) for b, t, p in hits})
    code = to_pattern(_phrase(events, drum=True))
    assert validate_pattern(code).valid, code
    names = {36: "bd", 38: "sd", 42: "hh", 46: "oh", 49: "cr"}
    want = sorted({(Fraction(t).limit_denominator(12) / 4, names[p]) for t, _, p, _ in events},
                  key=lambda x: (x[0], str(x[1])))
    assert sorted(set(_heard(code, 2)), key=lambda x: (x[0], str(x[1]))) == want


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), grid, st.integers(40, 84), st.sampled_from([0.25, 0.5, 1.5, 3.0])),
                min_size=1, max_size=16))
def test_any_pitched_phrase_round_trips_through_the_pattern_engine(notes):
    events = sorted({(float(b * 4 + t), d, p, 90) for b, t, p, d in notes})
    code = to_pattern(_phrase(events), scale=(0, 2, 4, 5, 7, 9, 11), scale_name="C:major")
    assert validate_pattern(code).valid, code
    want = sorted({(Fraction(t).limit_denominator(12) / 4, p) for t, _, p, _ in events})
    assert sorted(set(_heard(code, 2))) == want
