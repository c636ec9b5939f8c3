"""The per-layer cap at play time (#24): validation cannot check every cycle of every pattern,
so the transport caps each layer's cycle again — a layer over 64 events is thinned to 64, one
whose cycle runs past its budget rests for that cycle — and the member says so once per
pattern; the recording keeps what was played, and every file of it exports."""

from __future__ import annotations

from pathlib import Path

import mido

from bandstand.jam.engine import JamEngine
from bandstand.jam.persona import resolve_members
from bandstand.jam.recording import export
from bandstand.jam.transport import Transport
from bandstand.patterns.cycle_cap import MAX_EVENTS_PER_CYCLE
from bandstand.patterns.validate import validate_pattern
from tests.jam.helpers import Recorder

# a hundred kicks in the last cycle of a thousand: validation checks a sample of the period
# (it misses cycle 999), the player caps it
LATE_BUSY = 's("bd").lastOf(1000, x => x.ply(100))'
# 16,384 kicks in that cycle: more work than one cycle may cost
LATE_HEAVY = 's("bd").lastOf(1000, x => x.ply(1024).ply(16))'


def _notes(thoughts: list[dict[str, object]], member: str) -> list[str]:
    return [str(t["note"]) for t in thoughts if t["member"] == member and t["note"]]


async def test_a_layer_over_the_cap_is_thinned_with_one_note_and_recorded_as_played(tmp_path: Path) -> None:
    report = validate_pattern(LATE_BUSY)
    assert report.valid and report.period == 1000 and 4 < report.cycles_checked < 1000
    rec = Recorder()
    engine = JamEngine(resolve_members(["beat", "groove"]), emitter=rec.emitter)
    transport = Transport(engine)
    await engine.start()
    try:
        await engine.override_member_code("BEAT", LATE_BUSY)
        transport.cycle = 998
        for cycle in (998, 999, 1000, 1001):
            beat = [e for e in transport.advance() if e.member == "BEAT"]
            assert len(beat) == (MAX_EVENTS_PER_CYCLE if cycle == 999 else 1), cycle
        busy = next(e for e in rec.of("events") if e["cycle"] == 999)["events"]
        onsets = sorted(e["begin"] for e in busy if e["member"] == "BEAT")
        assert onsets[0] == 0 and onsets[-1] > 0.95  # thinned evenly through the cycle, not cut short
        paths = export(engine, transport.played, tmp_path, wav=False)
        transport.cycle = 1999  # the same pattern overflows again: no second note
        assert len([e for e in transport.advance() if e.member == "BEAT"]) == MAX_EVENTS_PER_CYCLE
        notes = _notes(rec.of("agent_thought"), "BEAT")
        assert notes == [f"[thinned to {MAX_EVENTS_PER_CYCLE} of 100 events in cycle 999]"]
    finally:
        await engine.stop()
    kicks = [m for track in mido.MidiFile(paths["midi"]).tracks for m in track
             if m.type == "note_on" and m.velocity and m.channel == 9 and m.note == 36]
    assert len(kicks) == 3 + MAX_EVENTS_PER_CYCLE  # the recording keeps cycle 999 as it was played


async def test_a_layer_whose_cycle_runs_past_its_budget_rests_for_that_cycle(tmp_path: Path) -> None:
    assert validate_pattern(LATE_HEAVY).valid  # the sample misses its one heavy cycle
    rec = Recorder()
    engine = JamEngine(resolve_members(["beat", "groove"]), emitter=rec.emitter)
    transport = Transport(engine)
    await engine.start()
    try:
        await engine.override_member_code("BEAT", LATE_HEAVY)
        transport.cycle = 999
        assert not [e for e in transport.advance() if e.member == "BEAT"]
        assert [e for e in transport.advance() if e.member == "BEAT"]  # cycle 1000 plays again
        assert transport.played[0].muted == ("BEAT",) and transport.played[1].muted == ()
        notes = _notes(rec.of("agent_thought"), "BEAT")
        assert len(notes) == 1 and notes[0].startswith("[muted in cycle 999:") and "budget" in notes[0]
        paths = export(engine, transport.played, tmp_path, wav=False)
    finally:
        await engine.stop()
    assert paths["midi"].stat().st_size > 0 and paths["transcript"].read_text().startswith("# bandstand jam")
