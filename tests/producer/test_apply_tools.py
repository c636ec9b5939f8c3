"""Tool calls on a session: one revision per batch (undoable), none when they only read or
when any call is refused; in composing mode the same calls arrive as a variation."""

from __future__ import annotations

import pytest

from bandstand.errors import ToolCallError
from bandstand.producer.sessions.projects import ProjectSession
from bandstand.studio.tools import Strikes

from .conftest import snapshot


def test_a_batch_is_one_revision_and_undo_takes_it_back(session: ProjectSession) -> None:
    before = snapshot(session.session_dir, skip=("revisions",))
    outcome = session.apply_tools([
        {"name": "ensure_bus", "args": {"name": "Reverb"}},
        {"name": "add_send", "args": {"track": "Chords", "bus": "$0.bus_id", "level": 0.3}},
        {"name": "set_track_volume", "args": {"track": "bass", "volume": 0.7}},
    ], author="cli", request="wetter chords, quieter bass")
    assert outcome.revision == 2 and outcome.entry is not None
    entry = outcome.entry
    assert entry.kind == "tools" and entry.summary == "ensure_bus, add_send, set_track_volume"
    assert entry.tools[1]["args"]["bus"] == outcome.results[0].result["bus_id"]  # recorded as resolved
    labels = {c.label for c in entry.changes}
    assert {"Bass volume", "Chords sends"} <= labels
    assert next(c for c in entry.changes if c.label == "Bass volume").model_dump() == {
        "path": f"tracks/{session.head.tracks[1].id}/volume", "label": "Bass volume", "before": 1.0, "after": 0.7}
    session.undo()
    assert snapshot(session.session_dir, skip=("revisions",)) == before


def test_reading_makes_no_revision_and_a_refused_batch_changes_nothing(session: ProjectSession) -> None:
    before = snapshot(session.session_dir)
    outcome = session.apply_tools([{"name": "read_project", "args": {}}], author="cli")
    assert outcome.entry is None and outcome.revision == 1
    assert outcome.results[0].result["project"]["tempo"] == 100
    with pytest.raises(ToolCallError, match="call 1 \\(set_track_pan\\): pan 7 is out of range"):
        session.apply_tools([{"name": "set_tempo", "args": {"tempo": 90}},
                             {"name": "set_track_pan", "args": {"track": "Bass", "pan": 7}}], author="cli")
    assert snapshot(session.session_dir) == before


def test_strikes_last_across_batches_of_one_request(session: ProjectSession) -> None:
    strikes = Strikes()
    bad = [{"name": "transpose_notes", "args": {"region": "Bass/Verse", "semitones": -48}}]
    for _ in range(3):
        with pytest.raises(ToolCallError, match=r"outside 0\.\.127"):
            session.apply_tools(bad, author="agent", strikes=strikes)
    with pytest.raises(ToolCallError, match="stopped retrying region"):
        session.apply_tools([{"name": "transpose_notes", "args": {"region": "Bass/Verse", "semitones": 2}}],
                            author="agent", strikes=strikes)


def test_composing_calls_arrive_as_a_variation(session: ProjectSession) -> None:
    variation, results = session.propose_tools([
        {"name": "add_notes", "args": {"region": "Bass/Chorus", "notes": [
            {"pitch": 52, "start": 1.5, "duration": 0.5}, {"pitch": 47, "start": 3.5, "duration": 0.5}]}},
    ], author="agent", request="fills in the chorus", intent="bass fills")
    assert session.revision == 1 and variation.state == "ready"
    assert variation.counts == {"added": 2, "removed": 0, "modified": 0}
    assert variation.details["tools"][0]["name"] == "add_notes"
    assert results[0].result["note_count"] == 10
    assert session.accept(variation.id).revision == 2
