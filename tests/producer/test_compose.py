"""`producer.composing.compose`: the questions every client answers (an ambiguous prompt, an
approval gate), asked through one `Answer` function, on real compose runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bandstand.errors import InvalidInput
from bandstand.producer.composing.compose import (
    Question,
    ambiguity_questions,
    compose_song,
    resume_song,
)

FAST = {"render_audio": False, "render_pianoroll": False, "bars": 8, "seed": 3}


def test_an_ambiguous_prompt_is_a_question_with_options_and_a_default() -> None:
    [question] = ambiguity_questions("Something warm", {})
    assert question.kind == "ambiguity" and question.topic == "genre"
    assert len(question.options) >= 3 and question.default in question.options
    assert ambiguity_questions("Trap beat, dark, 140 BPM", {}) == []


def test_the_answer_decides_the_genre(tmp_path: Path) -> None:
    asked: list[Question] = []

    def answer(question: Question) -> str:
        asked.append(question)
        return "ambient"

    composed = compose_song("Something warm", answer=answer, out_dir=str(tmp_path), **FAST)
    assert [q.topic for q in asked] == ["genre"]
    assert composed.result.status == "completed" and composed.result.intent.genre[0] == "ambient"
    assert composed.decisions == []


def test_no_one_to_ask_stops_before_anything_is_written(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match=r"ambiguous.*--yes"):
        compose_song("Something warm", answer=lambda q: None, out_dir=str(tmp_path / "out"), **FAST)
    assert not (tmp_path / "out").exists()


def test_assumed_defaults_are_reported_as_decisions(tmp_path: Path) -> None:
    composed = compose_song("Something warm", assume_defaults=True, out_dir=str(tmp_path), **FAST)
    assert composed.result.intent.genre == ["neo-soul"]
    assert composed.decisions and "neo-soul" in composed.decisions[0]
    # and the song says so itself: its manifest carries the assumption, where every client reads it
    manifest = json.loads((composed.result.session_dir / "manifest.json").read_text())
    assert manifest["assumptions"][0] == composed.decisions[0]


def test_an_approval_gate_is_a_question_too(tmp_path: Path) -> None:
    asked: list[Question] = []
    replies = iter(["reject", "approve"])

    def answer(question: Question) -> str:
        asked.append(question)
        return next(replies)

    composed = compose_song("trap beat", answer=answer, approval_gates=["harmony"], out_dir=str(tmp_path), **FAST)
    assert [(q.kind, q.topic) for q in asked] == [("approval", "harmony")] * 2
    assert asked[0].options == ("approve", "reject", "pause") and "Approve harmony" in asked[0].text
    assert composed.result.status == "completed" and composed.result.state.nodes["harmony"].variant == 1


def test_without_an_answer_a_gate_pauses_and_resume_decides(tmp_path: Path) -> None:
    paused = compose_song("trap beat", approval_gates=["parts"], out_dir=str(tmp_path), **FAST).result
    assert paused.status == "paused" and paused.state.paused_at == "parts"
    still = resume_song(paused.session_dir).result
    assert still.status == "paused"
    done = resume_song(paused.session_dir, decision="approve").result
    assert done.status == "completed"


def test_the_studio_generate_part_tool_runs_the_part_node_from_the_recipe(tmp_path: Path) -> None:
    from bandstand.producer.composing.compose import part_generator
    from bandstand.producer.sessions.projects import open_project

    song = compose_song("funk groove", out_dir=str(tmp_path), **FAST).result.session_dir
    session = open_project(song, generator=part_generator)
    outcome = session.apply_tools([{"name": "generate_part", "args": {
        "role": "arp", "bars": 4, "start_bar": 5, "style": "busier funk"}}], author="test")
    result = outcome.results[0].result
    arp = next(t for t in session.head.tracks if t.id == result["track_id"])
    assert arp.role == "arp" and result["note_count"] > 0
    assert all(r.start_beat == 16 and r.length_beats == 16 for r in arp.regions)
    assert "played as funk" in result["description"]
    counts = []
    for style in (None, "much simpler"):  # the same take (seed), played as the words say
        done = session.apply_tools([{"name": "generate_part", "args": {"role": "bass", "bars": 8, "start_bar": 5,
                                                                       "style": style}}], author="test")
        counts.append(done.results[0].result["note_count"])
    assert 0 < counts[1] < counts[0]


def test_generate_part_works_in_a_project_that_was_not_composed(tmp_path: Path) -> None:
    from bandstand.producer.composing.compose import part_generator
    from bandstand.producer.sessions.projects import create_from_song
    from bandstand.score import Song, TimeSignature
    from bandstand.studio import Provenance

    session = create_from_song(tmp_path / "blank", Song(title="sketch", tempo=96, key="D minor",
                                                         time_signature=TimeSignature(4, 4)),
                               Provenance(prompt="a sketch"))
    session.generator = part_generator
    outcome = session.apply_tools([{"name": "generate_part", "args": {"role": "bass", "bars": 8}}], author="test")
    assert outcome.results[0].result["note_count"] > 0
    pcs = {n.pitch % 12 for t in session.head.tracks for r in t.regions for n in r.notes}
    assert pcs <= {2, 4, 5, 7, 9, 10, 0, 1}  # D minor (harmonic minor's C# allowed)


def test_the_first_take_does_not_draw_the_piano_roll_compose_just_drew(tmp_path: Path, monkeypatch) -> None:
    """Revision 1's files are compose's: its piano roll is drawn once, and is HEAD's picture."""
    import bandstand.render.pianoroll as pianoroll
    from bandstand.producer.sessions.head_files import pianoroll_source, write_head_files
    from bandstand.studio import RevisionStore, to_song

    drawn: list[object] = []
    draw = pianoroll.pianoroll_png
    monkeypatch.setattr(pianoroll, "pianoroll_png", lambda song, *a, **k: drawn.append(song) or draw(song, *a, **k))
    result = compose_song("trap beat", out_dir=str(tmp_path), **{**FAST, "render_pianoroll": True}).result
    assert len(drawn) == 1
    store = RevisionStore(result.session_dir)
    head = to_song(store.project(store.pointer().head))
    assert (result.session_dir / "images/pianoroll.png").read_bytes() == draw(head)
    assert pianoroll_source(drawn[0]) == pianoroll_source(head)  # type: ignore[arg-type]
    # told it was drawn from something else, the head files draw it again
    write_head_files(result.session_dir, store.project(store.pointer().head), drawn="another song")
    assert len(drawn) == 2


def test_revision_one_keeps_the_lead_sheet_compose_wrote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Compose writes the lead sheet; revision 1's top-level files are of the same song (the
    head compares what each lead sheet is made from), so it is made once, and the manifest
    says what it was made from."""
    import bandstand.compose.leadsheet as leadsheet

    made: list[int] = []
    real = leadsheet.lead_sheet
    monkeypatch.setattr(leadsheet, "lead_sheet", lambda *a, **k: made.append(1) or real(*a, **k))
    composed = compose_song("funk groove in E minor", out_dir=str(tmp_path), **FAST)
    root = Path(composed.result.session_dir)
    assert made == [1]
    assert len(json.loads((root / "manifest.json").read_text())["lead_sheet_source"]) == 64
    assert (root / "notes" / "lead-sheet.musicxml").read_text().startswith("<?xml")
