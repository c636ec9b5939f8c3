"""COMPOSING through the studio stream: a fully specified structured prompt is
planned with no language model — setup first, then each part's `Create X track`,
`Add content to X`, `Add effects to X` — runs as tool calls on a copy, and
arrives as a variation; each entry of its Effects, MidiExpressiveness and
Automation blocks is one visible step and lands in the project when the
variation is committed. The request's emotion conditions what the parts play."""

from __future__ import annotations

from pathlib import Path

from bandstand.producer.sessions.studio import Studio
from tests.producer.streams import one, run, types

FUNK = """BANDSTAND PROMPT
Mode: compose
Style: funk
Tempo: 96
Key: E minor
Roles: [drums, bass, keys]
Bars: 16
"""


def test_a_full_structured_prompt_is_a_planned_variation(tmp_path: Path) -> None:
    studio = Studio(tmp_path)
    assert studio.backend is None  # the rules plan it: nothing else is there
    events = run(studio, FUNK)
    state = events[0]
    assert (state["state"], state["intent"], state["executionMode"]) == ("COMPOSING", "structured.compose", "variation")
    pid = state["projectId"]
    plan = one(events, "plan")
    assert plan["title"] == "Building a funk groove"
    assert [s["label"] for s in plan["steps"]] == [
        "Set up shared Reverb bus", "Create Drums track", "Add content to Drums", "Add effects to Drums",
        "Create Bass track", "Add content to Bass", "Add effects to Bass", "Create Keys track", "Add content to Keys",
        "Add effects to Keys"]
    kinds = types(events)
    assert kinds[kinds.index("meta") - 1] == "progress" and kinds[-3:] == ["done", "summary.final", "complete"]
    starts = [e["role"] for e in events if e["type"] == "generatorStart"]
    assert starts == ["drums", "bass", "chords"]
    assert all(e["status"] in ("active", "completed") for e in events if e["type"] == "planStepUpdate")
    complete = events[-1]
    assert complete["success"] and complete["revision"] == 1 and complete["projectId"] == pid
    session = studio.library.session(pid)
    assert session.head.tracks == () and session.head.tempo == 96 and session.head.key == "E minor"
    revision = studio.library.commit(complete["variationId"])["revision"]
    head = studio.library.session(pid).head
    assert revision == 2 and [t.name for t in head.tracks] == ["Drums", "Bass", "Keys"]
    assert all(t.note_count > 0 for t in head.tracks)
    drums, bass, keys = head.tracks
    assert [e.type for e in drums.inserts] == ["compressor"] == [e.type for e in bass.inserts]
    reverb = next(b for b in head.buses if b.name == "Reverb")
    assert [s.bus_id for s in keys.sends] == [reverb.id] and not keys.inserts  # reverb only through the bus


def test_block_entries_are_steps_and_land_in_the_project(tmp_path: Path) -> None:
    studio = Studio(tmp_path)
    prompt = FUNK.replace("Roles: [drums, bass, keys]", "Roles: [bass, lead]") + """Effects:
  bass: [overdrive]
  lead: [{type: delay, time_beats: 0.5}, reverb]
MidiExpressiveness:
  - track: lead
    cc: modulation
    from: 0
    to: 100
Automation:
  - track: bass
    parameter: volume
    points: [[0, 0.4], [32, 1.0]]
"""
    events = run(studio, prompt)
    labels = [s["label"] for s in one(events, "plan")["steps"]]
    assert labels == ["Set up shared Reverb bus", "Create Bass track", "Add content to Bass", "Add overdrive to Bass",
                      "Automate Bass volume", "Create Lead track", "Add content to Lead", "Add delay to Lead",
                      "Add reverb to Lead", "Add CC 1 to Lead"]
    studio.library.commit(events[-1]["variationId"])
    head = studio.library.session(events[0]["projectId"]).head
    bass, lead = head.tracks
    assert [e.type for e in bass.inserts] == ["overdrive"] and [e.type for e in lead.inserts] == ["delay"]
    assert lead.inserts[0].params["time_beats"] == 0.5 and lead.sends
    assert [p.value for p in bass.automation[0].points] == [0.4, 1.0]
    cc = [e for r in lead.regions for e in r.cc if e.cc == 1]
    assert cc and cc[0].value == 0 and max(e.value for e in cc) == 100


def _notes(studio: Studio, prompt: str) -> dict[str, tuple[int, float]]:
    events = run(studio, prompt)
    studio.library.commit(events[-1]["variationId"])
    head = studio.library.session(events[0]["projectId"]).head
    out = {}
    for track in head.tracks:
        notes = [n for r in track.regions for n in r.notes]
        out[track.role] = (len(notes), sum(n.duration for n in notes) / max(1, len(notes)))
    return out


def test_the_emotion_is_heard_in_the_parts(tmp_path: Path) -> None:
    base = "BANDSTAND PROMPT\nMode: compose\nStyle: neo-soul\nTempo: 90\nKey: D minor\nRoles: [bass, chords, lead]\nBars: 16\n"
    calm = _notes(Studio(tmp_path / "a"), base + "Energy: 0.1\nVibe: tender, intimate, sleepy\n")
    fired = _notes(Studio(tmp_path / "b"), base + "Energy: 0.95\nVibe: angry, driving, aggressive\n")
    assert sum(n for n, _ in fired.values()) > 1.3 * sum(n for n, _ in calm.values())
    assert fired["bass"][0] > calm["bass"][0]
    assert calm["lead"][1] > fired["lead"][1]  # longer, more legato notes when it is intimate


def test_a_generation_phrase_makes_a_new_project(tmp_path: Path) -> None:
    studio = Studio(tmp_path)
    events = run(studio, "a lo-fi groove at 84 bpm with drums, bass and keys, 8 bars")
    assert events[0]["intent"] == "compose.new"
    plan = one(events, "plan")
    assert plan["title"] == "Building a lo-fi groove"
    effects = {s["trackName"]: s for s in plan["steps"] if s["label"].startswith("Add effects")}
    assert set(effects) == {"Drums", "Bass", "Keys"}
    studio.library.commit(events[-1]["variationId"])
    head = studio.library.session(events[0]["projectId"]).head
    drums = next(t for t in head.tracks if t.name == "Drums")
    keys = next(t for t in head.tracks if t.name == "Keys")
    assert {e.type for e in drums.inserts} == {"compressor", "filter"} and [e.type for e in keys.inserts] == ["chorus"]
    assert head.tempo == 84
