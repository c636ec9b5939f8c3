"""Issue 23: the cost of an edit grew faster than the song. Scans of one list for every item
of another became binary searches: a spliced part's notes against the edit's windows and the
new onsets of their pitch, the musical diff's sections against a part's notes, a merged
track's sections against its old regions, the chords part's notes against the planned changes
(each scanned from the first), the lead sheet's bars against the sections. The cyclic
collector is also held off while a use case builds and drops a song's worth of objects.

Each fast form is checked against the scan it replaced (kept here as the reference); that
edit, accept and undo write the same bytes as before was checked on whole sessions when the
change was made (benchmarks/edit_scaling.py measures the cost)."""

from __future__ import annotations

import gc
import threading
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand import score
from bandstand.compose.models.arrangement import ArrangementPlan, SectionPlan
from bandstand.compose.output import chord_changes
from bandstand.producer.execution import collector
from bandstand.producer.requests.iteration_song import silence, splice
from bandstand.producer.sessions.head_notes import chords_agree
from bandstand.producer.sessions.projects import create_from_song
from bandstand.studio import Provenance, SeededIds, merge_song, to_song
from bandstand.studio.convert import _free, _Span
from bandstand.studio.musical_diff import _count_between
from bandstand.theory import parse_chord

from ..studio.songs import small_song

# ----------------------------------------------------------------------------- the scans they replaced


def _inside(windows: list[tuple[float, float]], t: float) -> bool:
    return any(a - 1e-9 <= t < b - 1e-9 for a, b in windows)


def _splice_by_scan(old: score.Track | None, new: score.Track, windows: list[tuple[float, float]]) -> score.Track:
    inside = [n for n in new.notes if _inside(windows, n.start)]
    starts: dict[int, list[float]] = {}
    for n in inside:
        starts.setdefault(n.pitch, []).append(n.start)
    notes = list(inside)
    for n in old.notes if old else ():
        if _inside(windows, n.start):
            continue
        cut = min((t for t in starts.get(n.pitch, ()) if n.start < t < n.end), default=None)
        notes.append(n if cut is None else replace(n, duration=max(0.01, cut - n.start)))
    out = replace(new, notes=sorted(notes, key=lambda n: (n.start, n.pitch)))
    keep_new = [e for e in new.controls if _inside(windows, e.time) or e.time == 0]
    keep_old = [e for e in (old.controls if old else ()) if not _inside(windows, e.time) and e.time != 0]
    out.controls = sorted([*keep_new, *keep_old], key=lambda e: e.time)
    return out


def _chord_changes_by_scan(harmony: object, arrangement: ArrangementPlan, bpb: float) -> list[tuple[float, str]]:
    chords = harmony.chords  # type: ignore[attr-defined]
    out: list[tuple[float, str]] = []
    for bar in range(1, arrangement.total_bars + 1):
        try:
            symbol = chords[arrangement.chord_index_at(bar)].symbol
        except (IndexError, KeyError):
            continue
        if not out or out[-1][1] != symbol:
            out.append(((bar - 1) * bpb, symbol))
    return out


def _agreement_by_scan(track: score.Track, changes: list[tuple[float, str]], tones: list[frozenset[int]]) -> bool:
    starts = [beat for beat, _ in changes] + [float("inf")]
    on = total = 0.0
    for note in track.notes:
        i = 0
        while starts[i + 1] <= note.start:
            i += 1
        while i < len(changes) and starts[i] < note.end:
            overlap = min(note.end, starts[i + 1]) - max(note.start, starts[i])
            if overlap > 0:
                total += overlap
                on += overlap if note.pitch % 12 in tones[i] else 0.0
            i += 1
    return total == 0 or on / total >= 0.8


# ----------------------------------------------------------------------------- strategies

_beats = st.integers(0, 64).map(lambda q: q / 4)  # on a 16th grid, so ends and starts meet exactly
_windows = st.lists(st.tuples(_beats, _beats), max_size=12)


@st.composite
def _tracks(draw: st.DrawFn) -> score.Track:
    notes = [score.Note(start, draw(st.sampled_from([0.25, 0.5, 1.0, 3.0, 9.5])), draw(st.sampled_from([36, 38, 60])),
                        90) for start in draw(st.lists(_beats, max_size=40))]
    controls = [score.ControlChange(t, 74, 64) for t in draw(st.lists(_beats, max_size=6))]
    return score.Track("Part", "bass", notes=notes, controls=controls)


# ----------------------------------------------------------------------------- the fast forms agree


@settings(max_examples=300, deadline=None)
@given(old=st.none() | _tracks(), new=_tracks(), windows=_windows)
def test_splice_matches_the_scan(old: score.Track | None, new: score.Track, windows: list[tuple[float, float]]) -> None:
    made, expected = splice(old, new, windows), _splice_by_scan(old, new, windows)
    assert made.notes == expected.notes and made.controls == expected.controls


@settings(max_examples=200, deadline=None)
@given(track=_tracks(), windows=_windows)
def test_silence_matches_the_scan(track: score.Track, windows: list[tuple[float, float]]) -> None:
    made = silence(track, windows)
    assert made.notes == [n for n in track.notes if not _inside(windows, n.start)]
    assert made.controls == [c for c in track.controls if c.time == 0 or not _inside(windows, c.time)]


@given(starts=st.lists(_beats, max_size=60), lo=_beats, hi=_beats)
def test_section_counts_match_the_scan(starts: list[float], lo: float, hi: float) -> None:
    assert _count_between(sorted(starts), lo, hi) == sum(1 for s in starts if lo <= s < hi)


@given(sections=st.lists(st.tuples(_beats, _beats), max_size=12), taken=st.lists(st.tuples(_beats, _beats), max_size=12))
def test_free_sections_match_the_scan(sections: list[tuple[float, float]], taken: list[tuple[float, float]]) -> None:
    secs = [_Span(a, b, f"s{i}") for i, (a, b) in enumerate(sections)]
    spans = [_Span(a, b, "") for a, b in taken]
    assert _free(secs, spans) == [s for s in secs if not any(sp.start < s.end and s.start < sp.end for sp in spans)]


@st.composite
def _arrangements(draw: st.DrawFn) -> ArrangementPlan:
    sections, start = [], draw(st.integers(1, 3))
    for i in range(draw(st.integers(0, 8))):
        bars = draw(st.integers(1, 6))
        indices = draw(st.lists(st.integers(-1, 4), min_size=max(0, bars - 1), max_size=bars))
        sections.append(SectionPlan(name=f"S{i}", kind="verse", start_bar=start, bars=bars, energy=0.5, roles=[],
                                    chord_indices=indices))
        start += bars - draw(st.integers(0, 1))  # sometimes overlapping: the first section holding a bar wins
    total = draw(st.integers(1, start + 3))
    return ArrangementPlan(form_name="test", total_bars=total, sections=sections, bar_energy=[0.5] * total)


@settings(max_examples=200, deadline=None)
@given(arrangement=_arrangements())
def test_chord_changes_match_the_scan(arrangement: ArrangementPlan) -> None:
    harmony = SimpleNamespace(chords=[SimpleNamespace(symbol=s) for s in ("C", "Am", "F", "G7", "Em")])
    assert chord_changes(harmony, arrangement, 4.0) == _chord_changes_by_scan(harmony, arrangement, 4.0)


@settings(max_examples=200, deadline=None)
@given(bars=st.lists(st.sampled_from(["C", "Am", "F", "G7"]), min_size=1, max_size=16),
       notes=st.lists(st.tuples(_beats, st.sampled_from([0.5, 2.0, 7.0]), st.sampled_from([48, 55, 60, 64, 66])),
                      min_size=1, max_size=40))
def test_chord_agreement_matches_the_scan(bars: list[str], notes: list[tuple[float, float, int]]) -> None:
    changes = [(i * 4.0, s) for i, s in enumerate(bars)]
    track = score.Track("Chords", "chords", notes=[score.Note(s, d, p, 80) for s, d, p in notes])
    song = score.Song(tracks=[track])
    tones = [frozenset(parse_chord(s).pitch_classes) for _, s in changes]
    assert chords_agree(song, changes) == _agreement_by_scan(track, changes, tones)


# ----------------------------------------------------------------------------- the collector


def test_pauses_nest_across_threads_and_leave_an_off_collector_off() -> None:
    assert gc.isenabled()
    entered, leave = threading.Event(), threading.Event()

    def other() -> None:
        with collector.paused():
            entered.set()
            leave.wait(5)

    worker = threading.Thread(target=other)
    worker.start()
    entered.wait(5)
    with collector.paused():
        with collector.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other thread's pause is still on
    leave.set()
    worker.join(5)
    assert gc.isenabled()
    gc.disable()
    try:
        with collector.paused():
            pass
        assert not gc.isenabled()  # it was off before: it stays off
    finally:
        gc.enable()


def test_propose_accept_and_undo_run_with_the_collector_paused(tmp_path: Path) -> None:
    session = create_from_song(tmp_path / "session", small_song(), Provenance(prompt="small", seeds={"song": 1}),
                               ids=SeededIds(11))
    song = to_song(session.head)
    bass = song.track("bass")
    bass.notes += [score.Note(n.start + 0.5, 0.25, n.pitch, 80) for n in bass.notes]
    bass.sort()
    seen: list[bool] = []
    variation = session.propose(merge_song(session.head, song, ids=session.ids), request="busier", author="test",
                                on_event=lambda kind, payload: seen.append(gc.isenabled()))
    session.accept(variation.id, step=lambda name: seen.append(gc.isenabled()))
    session.undo(step=lambda name: seen.append(gc.isenabled()))
    assert seen and not any(seen)
    assert gc.isenabled()
