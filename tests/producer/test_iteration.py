"""`producer.requests.iteration.edit`: a request in words becomes a variation that changes what
was asked and nothing else — on real composed sessions, accepted, undone and redone
through the studio's project API, the MIDI files read back with mido."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import mido
import pytest

from bandstand.errors import InvalidInput
from bandstand.producer.requests.iteration import edit
from bandstand.producer.requests.proposal import part_keys, recipe_of
from bandstand.producer.sessions.projects import open_project

Session = Callable[..., Path]
SCALES = {"major": (0, 2, 4, 5, 7, 9, 11), "minor": (0, 2, 3, 5, 7, 8, 10)}


def files(root: Path) -> dict[str, str]:
    """sha256 of every top-level file a HEAD move rewrites (MIDI, notes, picture, manifest)."""
    out = {}
    for folder in ("midi", "notes", "images"):
        for p in sorted((root / folder).glob("*")):
            if p.is_file():
                out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    out["manifest.json"] = hashlib.sha256((root / "manifest.json").read_bytes()).hexdigest()
    return out


def notes(path: Path) -> list[tuple[int, int, int]]:
    """(absolute tick, pitch, velocity) of every note-on, read by mido."""
    out = []
    for track in mido.MidiFile(path).tracks:
        tick = 0
        for msg in track:
            tick += msg.time
            if msg.type == "note_on" and msg.velocity > 0:
                out.append((tick, msg.note, msg.velocity))
    return sorted(out)


def bar_roots(path: Path, ticks_per_bar: int = 4 * 480) -> dict[int, int]:
    """The lowest pitch class sounding first in each bar (the root a bass line states)."""
    roots: dict[int, tuple[int, int]] = {}
    for tick, pitch, _ in notes(path):
        bar = tick // ticks_per_bar
        if bar not in roots or (tick, pitch) < roots[bar]:
            roots[bar] = (tick, pitch)
    return {bar: pitch % 12 for bar, (_, pitch) in roots.items()}


def test_busier_bass_changes_the_bass_and_nothing_else_then_undo_and_redo(composed_copy: Session) -> None:
    root = composed_copy("funk groove with a synth pad", 3, 32)
    before = files(root)
    bass_before = notes(root / "midi" / "bass.mid")
    outcome = edit(root, "make the bass busier")
    assert outcome.kind == "variation" and outcome.variation is not None
    assert outcome.affected == ("bass",) and set(outcome.preserved) == {"drums", "chords", "lead", "pad"}
    assert outcome.cost == "moderate" and files(root) == before  # nothing changes before accept
    project = open_project(root)
    project.accept(outcome.variation.id)
    after = files(root)
    bass_after = notes(root / "midi" / "bass.mid")
    assert len(bass_after) >= 1.3 * len(bass_before)
    changed = {k for k in after if after[k] != before[k]}
    assert {"midi/bass.mid", "midi/full-arrangement.mid"} <= changed <= {
        "midi/bass.mid", "midi/full-arrangement.mid", "manifest.json", "notes/producer-notes.md",
        "images/pianoroll.png"}
    for role in ("drums", "chords", "lead", "pad"):
        assert after[f"midi/{role}.mid"] == before[f"midi/{role}.mid"]
    project.undo()
    assert files(root) == before
    project.redo()
    assert files(root) == after


def test_a_busier_bass_keeps_its_roots(composed_copy: Session) -> None:
    root = composed_copy("house music", 5, 32)
    before = bar_roots(root / "midi" / "bass.mid")
    outcome = edit(root, "make the bass busier")
    assert outcome.variation is not None
    open_project(root).accept(outcome.variation.id)
    after = bar_roots(root / "midi" / "bass.mid")
    shared = [bar for bar in before if bar in after]
    assert shared and sum(before[b] == after[b] for b in shared) >= 0.9 * len(shared)
    assert "same roots" in outcome.variation.diff["bass"]


def test_a_key_change_retunes_what_follows_and_keeps_the_drums(composed_copy: Session) -> None:
    root = composed_copy("pop ballad", 3, 32)
    drums = notes(root / "midi" / "drums.mid")
    outcome = edit(root, "change the key to F# minor")
    assert outcome.cost == "expensive" and "drums" in outcome.preserved
    assert set(outcome.affected) == {"bass", "chords", "lead", "pad"}
    project = open_project(root)
    project.accept(outcome.variation.id)  # type: ignore[union-attr]
    assert notes(root / "midi" / "drums.mid") == drums
    assert project.head.key == "F# minor"
    scale = {(6 + d) % 12 for d in SCALES["minor"]}
    for role in ("bass", "chords", "pad"):
        pcs = [p % 12 for _, p, _ in notes(root / "midi" / f"{role}.mid")]
        assert sum(pc in scale for pc in pcs) >= 0.85 * len(pcs), role
    assert recipe_of(project.head).intent.key == "F#"


def test_a_frozen_part_never_regenerates(composed_copy: Session) -> None:
    root = composed_copy("funk groove with a synth pad", 3, 32)
    froze = edit(root, "keep the drums")
    assert froze.kind == "freeze" and froze.frozen == ("drums",) and froze.revision == 2
    drums = (root / "midi" / "drums.mid").read_bytes()
    with pytest.raises(InvalidInput, match="drums not restyled: it is frozen"):
        edit(root, "make the drums busier")
    outcome = edit(root, "make it busier")
    assert "drums" not in outcome.affected and "drums" in outcome.frozen
    open_project(root).accept(outcome.variation.id)  # type: ignore[union-attr]
    assert (root / "midi" / "drums.mid").read_bytes() == drums
    thawed = edit(root, "unfreeze the drums")
    assert thawed.frozen == ()
    open_project(root).undo()  # the freeze is a revision like any other
    assert recipe_of(open_project(root).head).frozen == ["drums"]


def test_praise_changes_nothing_and_leaves_no_history(composed_copy: Session) -> None:
    root = composed_copy()
    project = open_project(root)
    history = len(project.history())
    outcome = edit(root, "love it!")
    assert outcome.kind == "praise" and outcome.variation is None
    assert len(open_project(root).history()) == history and open_project(root).variations() == []


@pytest.mark.parametrize("request_text", ["make it sparkle", "hello there", "the bass"])
def test_not_understood_is_one_line_and_nothing_changes(composed_copy: Session, request_text: str) -> None:
    root = composed_copy()
    before = files(root)
    with pytest.raises(InvalidInput, match="not understood") as info:
        edit(root, request_text)
    assert "\n" not in str(info.value) and "try e.g." in str(info.value)
    assert files(root) == before and open_project(root).variations() == []


def test_scope_words_limit_the_change_to_those_bars(composed_copy: Session) -> None:
    root = composed_copy("funk groove with a synth pad", 3, 32)
    before = notes(root / "midi" / "bass.mid")
    outcome = edit(root, "make the bass busier in bars 9-16")
    open_project(root).accept(outcome.variation.id)  # type: ignore[union-attr]
    after = notes(root / "midi" / "bass.mid")
    ticks = 4 * 480
    outside = [n for n in before if not 8 * ticks <= n[0] < 16 * ticks]
    assert [n for n in after if not 8 * ticks <= n[0] < 16 * ticks] == outside  # every note-on outside stays
    assert len([n for n in after if 8 * ticks <= n[0] < 16 * ticks]) > \
        len([n for n in before if 8 * ticks <= n[0] < 16 * ticks])
    # notes come and go in bars 9–16 only; before them at most a note still ringing when the same
    # pitch is struck again in bar 9 is shortened
    for phrase in outcome.variation.phrases:  # type: ignore[union-attr]
        if phrase.end_bar < 9 or phrase.start_bar > 16:
            counts = phrase.counts()
            assert counts["added"] == counts["removed"] == 0 and counts["modified"] <= 2


def test_a_manual_edit_of_a_part_the_request_does_not_reach_survives(composed_copy: Session) -> None:
    root = composed_copy("funk groove with a synth pad", 3, 32)
    project = open_project(root)
    head = project.head
    drums = next(t for t in head.tracks if t.role == "drums")
    region = next(r for r in drums.regions if r.notes)
    touched = drums.model_copy(update={"regions": tuple(
        r.model_copy(update={"notes": r.notes[1:]}) if r.id == region.id else r for r in drums.regions),
        "user_touched": True})
    project.commit(head.with_track(touched), author="you", request="delete a kick")
    manual = (root / "midi" / "drums.mid").read_bytes()
    outcome = edit(root, "make the bass busier")
    open_project(root).accept(outcome.variation.id)  # type: ignore[union-attr]
    assert (root / "midi" / "drums.mid").read_bytes() == manual


def test_an_edit_made_against_an_older_revision_is_refused_on_accept(composed_copy: Session) -> None:
    from bandstand.errors import VariationConflict

    root = composed_copy()
    first = edit(root, "make the bass busier")
    second = edit(root, "regenerate the lead")
    project = open_project(root)
    project.accept(second.variation.id)  # type: ignore[union-attr]
    with pytest.raises(VariationConflict, match="revision 1"):
        project.accept(first.variation.id)  # type: ignore[union-attr]


def test_the_recipe_travels_with_the_revision(composed_copy: Session) -> None:
    root = composed_copy("funk groove with a synth pad", 3, 32)
    project = open_project(root)
    recipe = recipe_of(project.head)
    assert list(part_keys(project.head, recipe)) == ["drums", "bass", "chords", "lead", "pad"]
    outcome = edit(root, "regenerate the lead")
    project.accept(outcome.variation.id)  # type: ignore[union-attr]
    assert recipe_of(project.head).variant("parts:lead") == 1
    project.undo()
    assert recipe_of(project.head).variant("parts:lead") == 0


def test_an_added_part_plays_the_instrument_named_only_where_asked(composed_copy: Session) -> None:
    root = composed_copy("funk groove with a synth pad", 3, 32)
    outcome = edit(root, "add a string pad to the chorus")
    assert outcome.affected == ("pad-2",) and outcome.cost == "moderate"
    project = open_project(root)
    project.accept(outcome.variation.id)  # type: ignore[union-attr]
    strings = next(t for t in project.head.tracks if t.name == "String Pad")
    assert strings.program == 48 and strings.role == "pad"
    choruses = [s for s in project.head.sections if s.name.lower().startswith("chorus")]
    bpb = project.head.beats_per_bar
    inside = [((s.start_bar - 1) * bpb, (s.start_bar - 1 + s.bars) * bpb) for s in choruses]
    starts = [r.start_beat + n.start for r in strings.regions for n in r.notes]
    assert starts and all(any(a <= t < b for a, b in inside) for t in starts)
    assert recipe_of(project.head).parts["pad-2"] == "String Pad"
    again = edit(root, "new chord progression")  # made again, it still plays in the choruses only
    project.accept(again.variation.id)  # type: ignore[union-attr]
    strings = next(t for t in project.head.tracks if t.name == "String Pad")
    starts = [r.start_beat + n.start for r in strings.regions for n in r.notes]
    assert starts and all(any(a <= t < b for a, b in inside) for t in starts)


def test_section_words_reach_the_sections_that_play_their_part_in_another_genre(composed_copy: Session) -> None:
    root = composed_copy("EDM festival anthem, 128 bpm", 4, 32)
    outcome = edit(root, "add a string pad to the chorus")
    assert outcome.affected == ("pad-2",) and outcome.variation is not None
    # an anthem has its big drop once more at the end (Drop 3)
    assert "this song has no chorus: Drop 1 and Drop 2 and Drop 3 play its part" in outcome.notes
    project = open_project(root)
    project.accept(outcome.variation.id)
    strings = next(t for t in project.head.tracks if t.name == "String Pad")
    drops = [s for s in project.head.sections if s.name.startswith("Drop")]
    bpb = project.head.beats_per_bar
    inside = [((s.start_bar - 1) * bpb, (s.start_bar - 1 + s.bars) * bpb) for s in drops]
    starts = [r.start_beat + n.start for r in strings.regions for n in r.notes]
    assert len(drops) == 3 and starts and all(any(a <= t < b for a, b in inside) for t in starts)
    louder = edit(root, "more energy in the bridge")  # the breakdown is this song's bridge
    assert "this song has no bridge: Break plays its part" in louder.notes


def test_a_section_nothing_corresponds_to_is_refused_with_the_songs_sections(composed_copy: Session) -> None:
    root = composed_copy("funk groove with a synth pad", 3, 16)
    sections = [s.name for s in open_project(root).head.sections]
    assert not any(n.lower().startswith(("bridge", "break")) for n in sections)
    with pytest.raises(InvalidInput, match="this song has no bridge; its sections are " + ", ".join(sections[:2])):
        edit(root, "more energy in the bridge")
